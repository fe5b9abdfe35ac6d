// Stands in for `yaml` in the worker bundle (wrangler.toml [alias]). The OpenCode format
// (core/agents/opencode.ts) and the agents SDK's skill files (`agents/skills`, their front matter)
// parse and write YAML with it; the package is ~70 modules, evaluated at every isolate's startup as
// soon as anything in the startup graph imports it. `parse` and `stringify` here are the package's
// own, reached on their first call (./on-first-use.ts). Tests import the real package (the alias
// is the bundler's); a name not exported here fails the bundle's build, not a request.
import type * as Yaml from "yaml";
import { onFirstUse } from "./on-first-use";

// esbuild turns a `require` of a bundled ES module into a synchronous call of its (lazy)
// initialiser: the package evaluates here, on the first call. By path: the package name is
// aliased to this file (its browser build, which the bundle took before).
declare const require: (path: string) => unknown;
let yaml: typeof Yaml | undefined;
const real = (): typeof Yaml => (yaml ??= require("../../node_modules/yaml/browser/index.js") as typeof Yaml);

export const parse: typeof Yaml.parse = onFirstUse(() => real().parse);
export const stringify: typeof Yaml.stringify = onFirstUse(() => real().stringify);

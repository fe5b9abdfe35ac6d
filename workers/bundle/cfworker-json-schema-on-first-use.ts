// Stands in for `@cfworker/json-schema` in the worker bundle (wrangler.toml [alias]). Pantheon checks
// a tool call's arguments (core/tools/validate.ts) and a grader's JSON (core/evals/grade.ts) with its
// `Validator`, and the MCP SDKs' validator wraps the same class; the package's modules (its format
// regexes among them) were evaluated at every isolate's startup for the requests that validate.
// `Validator` here is the package's own class, reached on first use (./on-first-use.ts): `new`,
// `instanceof` and the statics all go to it. Tests import the real package (the alias is the bundler's).
import type * as JsonSchema from "@cfworker/json-schema";
import { onFirstUse } from "./on-first-use";

// esbuild turns a `require` of a bundled ES module into a synchronous call of its (lazy)
// initialiser: the package evaluates here, the first time Validator is used. By path: the package
// name is aliased to this file.
declare const require: (path: string) => unknown;
let pkg: typeof JsonSchema | undefined;
const real = (): typeof JsonSchema =>
  (pkg ??= require("../../node_modules/@cfworker/json-schema/dist/esm/index.js") as typeof JsonSchema);

export const Validator: typeof JsonSchema.Validator = onFirstUse(() => real().Validator);

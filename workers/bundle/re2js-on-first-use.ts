// Stands in for `re2js` in the worker bundle (wrangler.toml [alias]). Pantheon's deny-pattern gates
// (core/gates/pattern.ts) and eval graders (core/evals/grade.ts) compile patterns with it, but only
// when a gate or a grader has one; its module builds ~100 classes and its tables when it is
// evaluated, which every isolate paid at startup. `RE2JS` here is the package's own class, reached
// on first use (./on-first-use.ts): the static `compile`, the flags and `instanceof` all go to it.
// Tests import the real package (the alias is the bundler's).
import type * as Re2js from "re2js";
import { onFirstUse } from "./on-first-use";

// esbuild turns a `require` of a bundled ES module into a synchronous call of its (lazy)
// initialiser: the package evaluates here, the first time RE2JS is used. By path: the package name
// is aliased to this file.
declare const require: (path: string) => unknown;
let re2js: typeof Re2js | undefined;
const real = (): typeof Re2js => (re2js ??= require("../../node_modules/re2js/build/index.js") as typeof Re2js);

export const RE2JS = onFirstUse(() => real().RE2JS);

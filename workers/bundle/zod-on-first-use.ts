// Stands in for `zod` (the exact specifier: Pantheon's `import { z } from "zod"`, the agents SDK's and
// the MCP SDK's) in the worker bundle (wrangler.toml [alias]). Every module that builds a schema
// imports zod, so zod's ~30 modules (each defining its classes and checks) were evaluated at every
// isolate's startup although the schemas themselves are built on first use (core/lazy-schema.ts).
// Here `z` is zod's own namespace (./zod-without-locales.ts, so one copy of each class), evaluated
// the first time anything reads from it: a request's first parse, or a schema built at its first
// use. `zod/v4` (the MCP SDK's, loaded on first use itself) keeps the plain stand-in.
// test/startup/zod-on-first-use.test.ts holds it to the real `z`.
import type * as Zod from "./zod-without-locales";
import { onFirstUse } from "./on-first-use";

// esbuild turns a `require` of a bundled ES module into a synchronous call of its (lazy)
// initialiser: zod evaluates here, the first time `z` is read.
declare const require: (path: string) => unknown;
let zod: typeof Zod | undefined;
const real = (): typeof Zod => (zod ??= require("./zod-without-locales") as typeof Zod);

/**
 * A namespace object that is `pick()`'s for every read (a property, `in`, its keys), reached on first use.
 * @example
 * const z = namespaceOnFirstUse(() => real().z); // nothing evaluated yet
 * z.string().parse("a"); // zod evaluates here, once
 */
export function namespaceOnFirstUse<T extends object>(pick: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(pick(), key),
    has: (_, key) => Reflect.has(pick(), key),
    ownKeys: () => Reflect.ownKeys(pick()),
    // Reported as configurable: a proxy may not claim a fixed property its (empty) target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(pick(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(pick()),
  });
}

export const z: typeof Zod.z = namespaceOnFirstUse(() => real().z);
export default z;
/** The MCP SDK's server imports this one class by name (`instanceof ZodOptional`). */
export const ZodOptional: typeof Zod.ZodOptional = onFirstUse(() => real().ZodOptional);

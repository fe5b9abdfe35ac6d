import type { z } from "zod";

/**
 * A zod schema that is built the first time anything reads it (a parse, a method such as
 * `.optional()` or `.extend()`, `.shape`, zod walking it inside a parent schema), then kept.
 *
 * Why: a module-level `z.object(...)` is built while the worker's isolate starts, whether or not a
 * request ever needs it, and zod building the platform's schemas was most of the startup CPU
 * (`wrangler check startup`). Behind this the same schemas cost nothing until their first use, and
 * they behave exactly as the built schema does: same results, same issues and messages, same type.
 * Keep such a schema out of module-level code that reads it (`Object.keys(s.shape)` at the top of a
 * module builds it there); composing it into another lazy schema's builder is free.
 * @example
 * export const toolSpecSchema = lazySchema(() => z.object({ name: z.string() }));
 * toolSpecSchema.parse({ name: "clock.now" }); // built here, once
 */
export function lazySchema<S extends z.ZodType>(build: () => S): S {
  let built: S | undefined;
  const schema = (): S => (built ??= build());
  // The proxy stands for the schema itself: zod's methods run with `this` = the proxy, so a schema
  // derived from it (`.optional()`, a parent object) holds the proxy and reaches the built one
  // through it.
  return new Proxy({} as S, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // Reported as configurable: a proxy may not claim a fixed property its (empty) target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}

// What the bundle's load-on-first-use stand-ins (wrangler.toml [alias]: workers/mcp-client-lazy.ts,
// ./re2js-on-first-use.ts) export in place of a package's classes and functions.

type Callable = (...args: unknown[]) => unknown;
type Constructible = new (...args: unknown[]) => object;

/** A function or class that is `pick()`'s value for every use but being imported. */
export function onFirstUse<T extends object>(pick: () => T): T {
  // biome-ignore lint/complexity/useArrowFunction: the target must be constructible for `new` to reach the construct trap
  const stand: T = new Proxy(function () {} as unknown as T, {
    get: (_, key) => Reflect.get(pick(), key),
    has: (_, key) => Reflect.has(pick(), key),
    apply: (_, self, args): unknown => Reflect.apply(pick() as Callable, self, args),
    // `new Stand()` builds the real class's object; a subclass of the stand (none today) keeps its own.
    construct: (_, args, newTarget): object =>
      Reflect.construct(pick() as Constructible, args, newTarget === stand ? (pick() as Constructible) : newTarget),
    getPrototypeOf: () => Reflect.getPrototypeOf(pick()),
  });
  return stand;
}

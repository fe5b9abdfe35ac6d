// A route that reads its own request body under its own cap (an image upload: 5 MiB, counted as it is
// read, refused with the image's limit named) says so beside itself, as a route declares its scope.
// The /api entrance's 64 KiB limit then lets that route's body through, and only that route's: the
// entrance learns which routes from the declarations, not from a list of paths kept in step by hand.
import type { Hono, MiddlewareHandler } from "hono";
import type { AppEnv } from "./env";

const declared = Symbol("reads its own body");
type Marked = MiddlewareHandler<AppEnv> & { [declared]?: number };

/**
 * Declares that the route reads its own body, at most `maxBytes` (its handler enforces the cap).
 * @example
 * app.post("/:name/images", scope("chat"), readsOwnBody(maxImageBytes + multipartSlack), async (c) => …)
 */
export function readsOwnBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  const handler: Marked = async (_c, next) => {
    await next();
  };
  handler[declared] = maxBytes;
  return handler;
}

/** Every route of `routes` that reads its own body, with its cap. */
export function ownBodyRoutes(
  routes: readonly { method: string; path: string; handler: unknown }[],
): { method: string; path: string; maxBytes: number }[] {
  return routes.flatMap(({ method, path, handler }) => {
    const maxBytes = typeof handler === "function" ? (handler as Marked)[declared] : undefined;
    return maxBytes === undefined ? [] : [{ method, path, maxBytes }];
  });
}

/**
 * Notes, on each request to a route that reads its own body, its cap (`ownBodyCap`): installed before
 * the /api entrance, which reads the note (doors/door.ts `authenticated`).
 */
export function noteOwnBodies(
  app: Hono<AppEnv>,
  routes: readonly { method: string; path: string; handler: unknown }[],
): void {
  for (const { method, path, maxBytes } of ownBodyRoutes(routes)) {
    app.on(method, path, async (c, next) => {
      c.set("ownBodyCap", maxBytes);
      await next();
    });
  }
}

import type { Hono, MiddlewareHandler } from "hono";
import type { Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import type { Scope } from "../core/auth";
import { checkScope } from "./auth";
import type { AppEnv } from "./env";

/** The mark a scope declaration leaves on its middleware, so the policy can be read back from `app.routes`. */
const declared = Symbol.for("pantheon.scope");

type Marked = MiddlewareHandler<AppEnv> & { [declared]?: Scope };

/**
 * Marks `handler` as declaring `need`: `declaredScopes` lists every route (or door) it guards. For a
 * middleware composed elsewhere (a protocol door's `door(scope)`) that checks the scope itself.
 * @example
 * export const door = (need: Scope) => markScope(async (c, next) => { …; checkScope(c, need); await next(); }, need);
 */
export function markScope<H extends MiddlewareHandler<AppEnv>>(handler: H, need: Scope): H {
  (handler as Marked)[declared] = need;
  return handler;
}

/** The scope `handler` declares, if it is a scope declaration (`scope(…)` or a marked door). */
export function scopeOf(handler: unknown): Scope | undefined {
  return typeof handler === "function" ? (handler as Marked)[declared] : undefined;
}

/**
 * A route's scope, declared beside the route as its first middleware: a token below `need` gets 403
 * naming the scope needed. Every `/api` route declares one, `admin` included (test/security/routes.test.ts
 * fails for a route without it); an `/api` path that declares none still needs `admin` (`enforceScopes`).
 * @example
 * new Hono<AppEnv>().get("/:name/sessions", scope("chat"), valid("param", nameParam), async (c) => …)
 */
export function scope(need: Scope): MiddlewareHandler<AppEnv> {
  return markScope(async (c, next) => {
    checkScope(c, need);
    await next();
  }, need);
}

/** One row of the policy: what a route needs. */
export interface ScopedRoute {
  method: string;
  path: string;
  scope: Scope;
}

/**
 * The policy table, derived from the declarations: every route of `routes` (an app's `.routes`) whose
 * handlers include a scope declaration. What the security tests and the docs read.
 * @example
 * declaredScopes(makeApp().routes).find((r) => r.method === "GET" && r.path === "/api/agents")?.scope; // "chat"
 */
export function declaredScopes(routes: readonly { method: string; path: string; handler: unknown }[]): ScopedRoute[] {
  const table: ScopedRoute[] = [];
  for (const { method, path, handler } of routes) {
    const need = scopeOf(handler);
    if (need) table.push({ method, path, scope: need });
  }
  return table;
}

/**
 * Installs the policy on the app: call after auth and before mounting `routes`. Each declared scope
 * below `admin` is checked ahead of the route's own middlewares (a chat token on an admin route of an
 * agent that does not exist gets 403, not 404), and any other `/api` path needs `admin`: a new route
 * is closed until its declaration opens it. One middleware looks the request up in a router of the
 * declared scopes, built on the first `/api` request, rather than a check registered per route (each
 * registration is startup work in every isolate: ~300 of them).
 */
export function enforceScopes(
  app: Hono<AppEnv>,
  routes: readonly { method: string; path: string; handler: unknown }[],
): void {
  let declarations: Router<Scope> | undefined;
  app.use("/api/*", async (c, next) => {
    declarations ??= scopeRouter(routes);
    // Hono routes a HEAD as its GET, so its scope is the GET's.
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    // Every declaration the request matches, in the order declared (as Hono would run them).
    for (const [need] of declarations.match(method, c.req.path)[0]) checkScope(c, need);
    if (!c.get("scopeChecked")) checkScope(c, "admin");
    await next();
  });
}

/** The declared scopes below `admin`, in Hono's own router (the app's default), so a request matches as it will be routed. */
function scopeRouter(routes: readonly { method: string; path: string; handler: unknown }[]): Router<Scope> {
  const router = new SmartRouter<Scope>({ routers: [new RegExpRouter(), new TrieRouter()] });
  for (const { method, path, scope: need } of declaredScopes(routes)) {
    // admin is what the fallback asks anyway; the route's own declaration still checks it.
    if (need !== "admin") router.add(method, path, need);
  }
  return router;
}

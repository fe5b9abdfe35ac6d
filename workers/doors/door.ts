// The one entrance every bearer-token door shares (/api, /v1, /mcp, /mcp/agents, /agui, /a2a): the
// project, the body limit, the token, the project's existence and the door's scope, in that order.
// The order is the contract: a bad project header is a 400 before anything else; an oversized body
// is a 413 before the token is checked (a stranger cannot make us read a large body); an unknown
// project answers 404 only to a caller whose token checked out (an unauthenticated caller learns
// nothing about which projects exist); the scope comes last.
import type { MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { Scope } from "../../core/auth";
import { apiAuth, projectMiddleware, requireScope } from "../auth";
import type { AppEnv } from "../env";
import { requireProject } from "../projects";
import { markScope } from "../scopes";
import { limitBody } from "../validation";

/** Request bodies above this answer 413 before any handler reads them: the API's limit and every door's unless it says otherwise. */
export const maxBodyBytes = 64 * 1024;

export interface DoorOptions {
  /** The door as its 413 names it (`/v1`, `/mcp/agents`, …): "the request body is larger than 64 KiB: /v1 takes at most 64 KiB". */
  path: string;
  /** The largest request body the door reads; {@link maxBodyBytes} unless given. */
  maxBodyBytes?: number;
}

/**
 * Project, body limit, bearer token and the project's existence, without a scope check: the `/api`
 * entrance, whose scopes are declared per route (workers/scopes.ts).
 * @example
 * app.use("/api/*", authenticated({ path: "/api" }));
 */
export function authenticated(options: DoorOptions): MiddlewareHandler<AppEnv> {
  const limit = limitBody(options.maxBodyBytes ?? maxBodyBytes, options.path);
  // A route that declared it reads its own body under its own cap (workers/own-body.ts) gets it whole.
  const body: MiddlewareHandler<AppEnv> = (c, next) => (c.get("ownBodyCap") ? next() : limit(c, next));
  return every(projectMiddleware, body, apiAuth, requireProject);
}

/**
 * A protocol door's entrance: {@link authenticated}, then the one scope the whole door needs (403
 * naming it). Finer checks inside a door (AG-UI's `approve` for answering an interrupt, the agent MCP
 * server's admin tools) stay in the door.
 * @example
 * export const openaiRoutes = new Hono<AppEnv>().use("*", door("chat", { path: "/v1" })).post("/chat/completions", …);
 */
export function door(scope: Scope, options: DoorOptions): MiddlewareHandler<AppEnv> {
  // Marked like a route's scope(): declaredScopes(app.routes) lists each door with the scope it needs.
  return markScope(every(authenticated(options), requireScope(scope)), scope);
}

import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { apiRoutes, inviteRedeemRoutes } from "./api";
import { mcpOAuthCallbackRoutes } from "./api/mcp-oauth";
import { version } from "./api/health";
import { authenticated, maxBodyBytes, mountDoors } from "./doors";
import { enforceScopes } from "./scopes";
import { noteOwnBodies } from "./own-body";
import { agentSocket } from "./sockets";
import { gitHttpRoutes } from "./git-http";
import type { AppEnv } from "./env";
import { notFound, onError } from "./errors";
import { limitBody } from "./validation";

export { version };

/**
 * The Hono app: `/api/*` (bearer auth, each route's scope declared beside it with `scope()` of ./scopes.ts, JSON),
 * `/agents/*` (one agent's WebSocket, only within the token's project: ./sockets.ts), the protocol doors (`/v1`,
 * `/mcp`, `/mcp/agents/:name`, `/agui`, `/a2a`, `/gateways`: ./doors/), `/git/*`, everything else the PWA's static assets.
 */
export function makeApp() {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", async (c, next) => {
    await next();
    c.header("x-request-id", c.get("requestId"));
  });
  app.onError(onError);
  app.notFound(notFound);

  // The public liveness probe; `?detail=…` goes on through auth to the doctor (admin, ./api/health.ts).
  app.get("/api/health", async (c, next) => {
    if (c.req.query("detail") === undefined) return c.json({ ok: true, version });
    await next();
  });

  // Opening a sign-in link: the invite's code is the credential, so no bearer token (./api/invites.ts).
  app.route("/", inviteRedeemRoutes);
  // The browser's return from an MCP server's OAuth consent page: the agent's one-use `state` is the credential (./api/mcp-oauth.ts).
  app.route("/", mcpOAuthCallbackRoutes);

  // A route that reads its own body under its own cap says so beside itself (`readsOwnBody`, ./own-body.ts:
  // the image upload's 5 MiB); every other /api body stays at 64 KiB.
  noteOwnBodies(app, apiRoutes.routes);
  app.use("/api/*", authenticated({ path: "/api" }));
  enforceScopes(app, apiRoutes.routes);
  // The routes, typed for clients (ApiRoutes in ./api): after auth and the scope policy, in this order.
  app.route("/", apiRoutes);

  app.all("/api/*", notFound);

  // The protocol doors (/v1, /mcp, /mcp/agents, /agui, /a2a, /gateways): ./doors/index.ts.
  mountDoors(app, version);

  // A feature's repository for plain `git clone`/`fetch` (./git-http.ts): the token as the HTTP basic password or a bearer.
  app.use("/git/*", limitBody(maxBodyBytes, "/git"));
  app.route("/git", gitHttpRoutes);
  app.all("/git/*", notFound);

  app.all("/agents/*", agentSocket);

  app.get("*", (c) => c.env.ASSETS.fetch(c.req.raw));
  return app;
}

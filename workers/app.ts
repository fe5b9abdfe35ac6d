import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { apiRoutes, inviteRedeemRoutes } from "./api";
import { version } from "./api/health";
import { openaiRoutes } from "./api/openai-compat";
import { telegramWebhookRoutes } from "./gateways/telegram";
import { mcpServerRoutes } from "./mcp-server";
import { a2aRoutes } from "./protocols/a2a";
import { aguiRoutes } from "./protocols/agui";
import { agentMcpRoutes } from "./protocols/agent-mcp";
import { apiAuth, projectMiddleware, requireScope } from "./auth";
import { requireProject } from "./projects";
import { enforceScopes } from "./scopes";
import { agentSocket } from "./sockets";
import { gitHttpRoutes } from "./git-http";
import type { AppEnv } from "./env";
import { notFound, onError } from "./errors";
import { limitBody } from "./validation";

export { version };
/** Request bodies above this answer 413 before any handler reads them. */
export const maxBodyBytes = 64 * 1024;

/**
 * The Hono app: `/api/*` (bearer auth, each route's scope declared beside it with `scope()` of ./scopes.ts, JSON), `/agents/*` (one
 * agent's WebSocket, only within the token's project: ./sockets.ts), `/v1/*` (OpenAI-compatible), `/mcp` (MCP server), `/mcp/agents/:name` (one agent's MCP server), `/agui/*` (AG-UI), everything else the PWA's
 * static assets.
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

  app.use("/api/*", projectMiddleware, limitBody(maxBodyBytes, "/api"), apiAuth, requireProject);
  enforceScopes(app, apiRoutes.routes);
  // The routes, typed for clients (ApiRoutes in ./api): after auth and the scope policy, in this order.
  app.route("/", apiRoutes);

  app.all("/api/*", notFound);
  app.route("/v1", openaiRoutes);

  // MCP clients (Claude Desktop, IDEs, the Inspector) reach the project's agents with the API's bearer token.
  app.use("/mcp", projectMiddleware, limitBody(maxBodyBytes, "/mcp"), apiAuth, requireProject, requireScope("chat"));
  app.route("/mcp", mcpServerRoutes(version));
  // One agent as an MCP server (./protocols/agent-mcp.ts): the same auth; its tools, memory and sources need admin.
  app.use("/mcp/agents/*", projectMiddleware, limitBody(maxBodyBytes, "/mcp/agents"), apiAuth, requireProject, requireScope("chat"));
  app.route("/mcp/agents", agentMcpRoutes(version));

  // AG-UI clients (web UIs) run an agent with the API's bearer token: ./protocols/agui.ts.
  app.route("/agui", aguiRoutes);

  // A2A (Agent2Agent): each agent's card and JSON-RPC endpoint, with the API's bearer token and project.
  app.use("/a2a/*", projectMiddleware, limitBody(maxBodyBytes, "/a2a"), apiAuth, requireProject, requireScope("chat"));
  app.route("/a2a", a2aRoutes(version));
  app.all("/a2a/*", notFound);

  // Messaging gateways' public webhooks: no bearer token; each authenticates its own way (./gateways/).
  app.route("/gateways", telegramWebhookRoutes);
  app.all("/gateways/*", notFound);

  // A feature's repository for plain `git clone`/`fetch` (./git-http.ts): the token as the HTTP basic password or a bearer.
  app.use("/git/*", limitBody(maxBodyBytes, "/git"));
  app.route("/git", gitHttpRoutes);
  app.all("/git/*", notFound);

  app.all("/agents/*", agentSocket);

  app.get("*", (c) => c.env.ASSETS.fetch(c.req.raw));
  return app;
}

import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { agentRoutes } from "./api/agents";
import { healthRoutes } from "./api/health";
import { messageRoutes } from "./api/messages";
import { mcpRoutes } from "./api/mcp";
import { approvalRoutes, runRoutes } from "./api/runs";
import { toolRoutes } from "./api/tools";
import { scheduleRoutes } from "./api/schedules";
import { scriptRoutes } from "./api/scripts";
import { sessionRoutes } from "./api/sessions";
import { tokenRoutes } from "./api/tokens";
import { contextRoutes } from "./api/context";
import { memoryRoutes } from "./api/memory";
import { busRoutes, conversationRoutes } from "./api/bus";
import { connectionRoutes } from "./api/connections";
import { openaiRoutes } from "./api/openai-compat";
import { mcpServerRoutes } from "./mcp-server";
import { apiAuth, projectMiddleware, socketAuth } from "./auth";
import type { AppEnv } from "./env";
import { notFound, onError } from "./errors";
import { agentSocket } from "./socket";

export const version = "0.1.0";
/** Request bodies above this answer 413 before any handler reads them. */
export const maxBodyBytes = 64 * 1024;

/**
 * The Hono app: `/api/*` (bearer auth, JSON), `/agents/*` (the agents SDK's WebSocket routing,
 * authenticated), `/v1/*` (OpenAI-compatible), `/mcp` (MCP server), everything else the PWA's
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

  app.get("/api/health", (c) => c.json({ ok: true, version }));

  app.use("/api/*", projectMiddleware, bodyLimit({ maxSize: maxBodyBytes, onError: () => { throw new HTTPException(413); } }), apiAuth);
  app.route("/api/health", healthRoutes);
  app.route("/api/agents", agentRoutes);
  app.route("/api/agents", messageRoutes);
  app.route("/api/agents", sessionRoutes);
  app.route("/api/agents", runRoutes);
  app.route("/api/agents", mcpRoutes);
  app.route("/api/agents", toolRoutes);
  app.route("/api/agents", scriptRoutes);
  app.route("/api/agents", scheduleRoutes);
  app.route("/api/agents", memoryRoutes);
  app.route("/api/agents", contextRoutes);
  app.route("/api/approvals", approvalRoutes);
  app.route("/api/tokens", tokenRoutes);
  app.route("/api/agents", connectionRoutes);
  app.route("/api/bus", busRoutes);
  app.route("/api/conversations", conversationRoutes);

  app.all("/api/*", notFound);
  app.route("/v1", openaiRoutes);

  // MCP clients (Claude Desktop, IDEs, the Inspector) reach the project's agents with the API's bearer token.
  app.use("/mcp", projectMiddleware, bodyLimit({ maxSize: maxBodyBytes, onError: () => { throw new HTTPException(413); } }), apiAuth);
  app.route("/mcp", mcpServerRoutes(version));

  app.all("/agents/*", projectMiddleware, socketAuth, agentSocket);

  app.get("*", (c) => c.env.ASSETS.fetch(c.req.raw));
  return app;
}

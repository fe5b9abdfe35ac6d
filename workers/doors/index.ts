// Every protocol door of the worker, mounted in one place. Each door is a folder here whose router
// opens with its entrance (`door(scope, { path })`, ./door.ts) or, for a public webhook, its own
// authentication; the pure mappings they speak live in core/protocols/. ACP (./acp/) is the one door
// the worker does not serve: the CLI runs it on an editor's stdio and it reaches the worker over /api.
import type { Hono } from "hono";
import type { AppEnv } from "../env";
import { notFound } from "../errors";
import { a2aRoutes } from "./a2a";
import { aguiRoutes } from "./agui";
import { telegramWebhookRoutes } from "./gateways/telegram";
import { mcpServerRoutes } from "./mcp";
import { agentMcpRoutes } from "./mcp-agents";
import { openaiRoutes } from "./openai";

export { authenticated, door, maxBodyBytes, type DoorOptions } from "./door";

/**
 * Mounts the doors on the app, after `/api` (their paths do not overlap it). The email gateway is
 * not a route: it is the worker's `email` handler (./gateways/email.ts, wired in workers/index.ts).
 * @example
 * mountDoors(app, version); // /v1, /mcp, /mcp/agents, /agui, /a2a, /gateways
 */
export function mountDoors(app: Hono<AppEnv>, version: string): void {
  // OpenAI's Chat Completions API in front of the project's agents (./openai): its errors in OpenAI's shape.
  app.route("/v1", openaiRoutes);
  // MCP clients (Claude Desktop, IDEs, the Inspector) reach the project's agents (./mcp).
  app.route("/mcp", mcpServerRoutes(version));
  // One agent as an MCP server (./mcp-agents): its tools, memory and sources need admin, checked inside.
  app.route("/mcp/agents", agentMcpRoutes(version));
  // AG-UI clients (web UIs) run an agent (./agui); answering an approval interrupt needs `approve`.
  app.route("/agui", aguiRoutes);
  // A2A (Agent2Agent): each agent's card and JSON-RPC endpoint (./a2a).
  app.route("/a2a", a2aRoutes(version));
  app.all("/a2a/*", notFound);
  // Messaging gateways' public webhooks: no bearer token; each authenticates its own way (./gateways).
  app.route("/gateways", telegramWebhookRoutes);
  app.all("/gateways/*", notFound);
}

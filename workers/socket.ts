import { routeAgentRequest } from "agents";
import type { Handler } from "hono";
import { PantheonError } from "../core/errors";
import type { AppEnv } from "./env";
import { notFound } from "./errors";

/** The path segment of `AGENT_DO` in the agents SDK's routing (`/agents/agent-do/<project>.<agent>`). */
export const agentSocketBinding = "agent-do";

/** Longer socket URLs answer 400: the SDK keeps the URL with each connection, in at most 16 KiB. */
export const maxSocketUrlLength = 8 * 1024;

/**
 * `/agents/*` after auth: an agent's live WebSocket, through the agents SDK's routing. Everything
 * the SDK would answer in its own way (plain text, or a 500) answers the API's JSON error instead.
 * @example
 * app.all("/agents/*", projectMiddleware, socketAuth, agentSocket);
 * // GET /agents/agent-do/default.helper (Upgrade: websocket) → 101
 */
export const agentSocket: Handler<AppEnv> = async (c) => {
  // Agents serve WebSockets only; the SDK answers any other request with a plain-text 404.
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    throw new PantheonError("not_found", "agents answer WebSocket upgrades only: connect with 'Upgrade: websocket'");
  }
  // The SDK routes `/agents/<any Durable Object binding>/<name>`: the registry's too, which has no
  // fetch handler (a 500). Only the agents' binding is a socket route.
  if (new URL(c.req.url).pathname.split("/").filter(Boolean)[1] !== agentSocketBinding) return notFound(c);
  // Past the attachment's 16 KiB the upgrade succeeds and the session dies at once (close 1011,
  // with the runtime's message as a frame).
  if (c.req.url.length > maxSocketUrlLength) throw new PantheonError("bad_request", `the socket URL is longer than ${maxSocketUrlLength} characters`);
  const response = await routeAgentRequest(c.req.raw, c.env);
  return response ?? notFound(c);
};

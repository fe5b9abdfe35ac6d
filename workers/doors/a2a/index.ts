// The A2A door of every agent (card + JSON-RPC); the mapping itself is core/protocols/a2a.
import { Hono } from "hono";
import type { AppEnv } from "../../env";
import { door } from "../door";

type A2aHandlers = typeof import("./routes");

/**
 * The A2A routes. The A2A SDK (its server, transports and the v0.3 compat layer) is loaded on the
 * first A2A request rather than with the worker: a worker that never speaks A2A never evaluates
 * it, and the test pool's per-file module snapshot of the worker stays within its message limit.
 * @example
 * app.route("/a2a", a2aRoutes("0.1.0")); // behind its door: a token with the chat scope
 */
export function a2aRoutes(version: string) {
  let handlers: Promise<A2aHandlers> | undefined;
  const load = () => (handlers ??= import("./routes"));
  return new Hono<AppEnv>()
    .use("*", door("chat", { path: "/a2a" }))
    .get("/agents/:name/.well-known/agent-card.json", async (c) => (await load()).agentCardResponse(c, version))
    .post("/agents/:name", async (c) => (await load()).jsonRpcResponse(c, version));
}

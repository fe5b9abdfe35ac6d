// One agent as an MCP server (`/mcp/agents/:name`): the routes. The server itself
// (./server.ts, on the MCP SDK) is loaded by the first request, not at the worker's startup.
import { runPrincipal } from "../../auth";
import { Hono } from "hono";
import { unknownAgent } from "../../../core/errors";
import { agentStub, registryStub } from "../../../durable-objects/stubs";
import type { AppEnv } from "../../env";
import { door } from "../door";
import { answerStateless, readJsonRpc } from "../mcp/index";

const rpcError = (code: number, message: string, data?: Record<string, unknown>) => ({
  jsonrpc: "2.0" as const,
  error: { code, message, ...(data ? { data } : {}) },
  id: null,
});

let serverModule: Promise<typeof import("./server")> | undefined;

/**
 * `/mcp/agents/:name`, behind its door (a token with the chat scope). Stateless like
 * `/mcp`: POST carries JSON-RPC and answers JSON; GET and DELETE answer 405. An agent the project
 * does not have is a 404 with a JSON-RPC error.
 * @example
 * app.route("/mcp/agents", agentMcpRoutes("0.1.0"));
 */
export function agentMcpRoutes(version: string) {
  return new Hono<AppEnv>()
    .use("*", door("chat", { path: "/mcp/agents" }))
    .post("/:name", async (c) => {
      const name = c.req.param("name");
      const parsed = await readJsonRpc(c.req.raw);
      if (parsed.refused) return c.json(parsed.refused, 400);
      const project = c.get("project");
      if (!(await registryStub(c.env, project).getAgent(name)).ok) {
        const error = unknownAgent(name, project);
        return c.json(rpcError(-32001, error.message, { code: error.code, ...error.details }), 404);
      }
      const { makeAgentMcpServer } = await (serverModule ??= import("./server"));
      const server = makeAgentMcpServer({
        agent: await agentStub(c.env, project, name),
        name,
        project,
        principal: c.get("principal"),
        scope: c.get("scope"),
        runPrincipal: runPrincipal(c, "mcp"),
        version,
      });
      return answerStateless(server, c.req.raw, parsed);
    })
    .on(["GET", "DELETE"], "/:name", (c) =>
      c.json(rpcError(-32000, "this MCP server is stateless: send JSON-RPC with POST"), 405, { allow: "POST" }),
    )
    .all("*", (c) =>
      c.json(
        rpcError(-32001, `no MCP server at ${new URL(c.req.url).pathname}: one agent's is /mcp/agents/<agent>`, {
          code: "not_found",
        }),
        404,
      ),
    );
}

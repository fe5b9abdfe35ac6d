// A real MCP server (the official TypeScript SDK: McpServer + Streamable HTTP transport) for
// workerd tests, started by vitest.config.ts on 127.0.0.1 next to the scripted model double.
//   POST/GET/DELETE /mcp[?tenant=<t>]   the MCP endpoint; tools `add` {a,b} and `echo` {text}
//   GET /__calls?tenant=<t>             the tool calls the server received for that tenant
//   GET /__hits?tenant=<t>              how many HTTP requests (any path but /__…) came for that tenant
//   POST/GET/DELETE /mcp-bearer[?tenant=<t>]  the same server behind `Authorization: Bearer <mcpTestBearer>`
//                                       (401 without it), with a tool `whoami` answering the header it got
//   POST/GET/DELETE /mcp-changing[?tenant=<t>]  tools `add`, `echo` and `swap`: calling `swap` replaces `echo`
//                                       with `mul` {a,b} for that tenant and sends `notifications/tools/list_changed`
//   POST/GET/DELETE /mcp-asking[?tenant=<t>]  a tool `book` that asks the client how many seats (elicitation/create,
//                                       form mode) and answers `booked N seats`, `declined` or `cancelled`;
//                                       `quote` asks the same, is read-only, and answers `quoted N seats`
// Each test connects with its own `tenant` query, so it sees only its own calls.
// Stateless mode (no session ids): a fresh server and transport per request, as the SDK's
// stateless example does, so concurrent tests never share protocol state.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { mcpTestBearer } from "./mcp-bearer";

export interface RecordedMcpCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/** Tenants of /mcp-changing whose `echo` was swapped for `mul`. */
const swapped = new Set<string>();

function makeChangingTools(server: McpServer, tenant: string, record: (call: RecordedMcpCall) => void): boolean {
  server.registerTool(
    "swap",
    { description: "Replaces the tool echo with mul and says the tool list changed.", inputSchema: {} },
    async (_args, extra) => {
      record({ tool: "swap", arguments: {} });
      swapped.add(tenant);
      // On this request's own stream: a stateless server has no other to send it on.
      await extra.sendNotification({ method: "notifications/tools/list_changed" });
      return { content: [{ type: "text", text: "swapped" }] };
    },
  );
  if (!swapped.has(tenant)) return false;
  server.registerTool(
    "mul",
    { description: "Multiplies two numbers.", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => {
      record({ tool: "mul", arguments: { a, b } });
      return { content: [{ type: "text", text: String(a * b) }] };
    },
  );
  return true;
}

function makeAskingTools(server: McpServer, record: (call: RecordedMcpCall) => void): void {
  askingTool(server, record, "book", "Books seats after asking the person how many.", "booked");
  // Read-only: a call interrupted by an eviction is made again (and asks again).
  askingTool(server, record, "quote", "Quotes seats after asking the person how many.", "quoted", {
    readOnlyHint: true,
  });
}

function askingTool(
  server: McpServer,
  record: (call: RecordedMcpCall) => void,
  name: string,
  description: string,
  done: string,
  annotations?: { readOnlyHint: boolean },
): void {
  server.registerTool(
    name,
    { description, inputSchema: {}, ...(annotations ? { annotations } : {}) },
    async (_args, extra) => {
      const answer = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: "How many seats should I book?",
            requestedSchema: { type: "object", properties: { seats: { type: "number" } }, required: ["seats"] },
          },
        },
        ElicitResultSchema,
      );
      record({ tool: name, arguments: { answer } });
      const text =
        answer.action === "accept"
          ? `${done} ${String(answer.content?.seats)} seats`
          : answer.action === "decline"
            ? "declined"
            : "cancelled";
      return { content: [{ type: "text", text }] };
    },
  );
}

function makeMcpServer(
  record: (call: RecordedMcpCall) => void,
  bearer = false,
  changing?: { tenant: string },
  asking = false,
): McpServer {
  const server = new McpServer({ name: "pantheon-test-mcp", version: "1.0.0" });
  const withoutEcho = changing ? makeChangingTools(server, changing.tenant, record) : false;
  if (asking) makeAskingTools(server, record);
  if (bearer)
    server.registerTool(
      "whoami",
      { description: "Answers the Authorization header the server was sent.", inputSchema: {} },
      async (_args, extra) => {
        record({ tool: "whoami", arguments: {} });
        return { content: [{ type: "text", text: `you sent: ${String(extra.requestInfo?.headers.authorization)}` }] };
      },
    );
  server.registerTool(
    "add",
    { description: "Adds two numbers and answers their sum.", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => {
      record({ tool: "add", arguments: { a, b } });
      return { content: [{ type: "text", text: String(a + b) }] };
    },
  );
  if (!withoutEcho)
    server.registerTool(
      "echo",
      { description: "Answers the text it was given.", inputSchema: { text: z.string() } },
      async ({ text }) => {
        record({ tool: "echo", arguments: { text } });
        return { content: [{ type: "text", text }] };
      },
    );
  return server;
}

/**
 * /mcp-asking keeps a session (a server and transport per `mcp-session-id`): the client answers a
 * server's question in a request of its own, which must reach the server that asked.
 */
const sessions = new Map<string, StreamableHTTPServerTransport>();
async function askingSessions(req: IncomingMessage, res: ServerResponse, make: () => McpServer) {
  const id = req.headers["mcp-session-id"];
  const known = typeof id === "string" ? sessions.get(id) : undefined;
  if (known) return known.handleRequest(req, res);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await make().connect(transport);
  await transport.handleRequest(req, res);
}

export async function startMcpTestServer(): Promise<{ url: string; server: Server }> {
  const calls = new Map<string, RecordedMcpCall[]>();
  const hits = new Map<string, number>();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://double");
    const tenant = url.searchParams.get("tenant") ?? "";
    if (req.method === "GET" && url.pathname === "/__calls") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(calls.get(tenant) ?? []));
    }
    if (req.method === "GET" && url.pathname === "/__hits") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ hits: hits.get(tenant) ?? 0 }));
    }
    hits.set(tenant, (hits.get(tenant) ?? 0) + 1);
    const bearer = url.pathname === "/mcp-bearer";
    const changing = url.pathname === "/mcp-changing";
    const asking = url.pathname === "/mcp-asking";
    if (url.pathname !== "/mcp" && !bearer && !changing && !asking) {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: "not found" }));
    }
    if (bearer && req.headers.authorization !== `Bearer ${mcpTestBearer}`) {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: "invalid_token", error_description: "a bearer token is required" }));
    }
    const record = (call: RecordedMcpCall) => calls.set(tenant, [...(calls.get(tenant) ?? []), call]);
    if (asking) return askingSessions(req, res, () => makeMcpServer(record, false, undefined, true));
    const server = makeMcpServer(record, bearer, changing ? { tenant } : undefined);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  const { url, server } = await listenOnLoopback(handle, { json: true });
  return { url: `${url}/mcp`, server };
}

// MCP servers that want a bearer token, through the real stack (wrangler dev) and the agents SDK's
// MCP client: a loopback server run here on the official SDK (@modelcontextprotocol/sdk) answers 401
// without `Authorization: Bearer <token>`, over Streamable HTTP (/mcp) and the older SSE transport
// (/sse). Project a keeps the token as a project secret and connects by its name; every refusal sits
// beside its positive control: no header and a wrong token are refused by the server, project b's
// agent has neither the secret nor the connection, the token is in no trace, export, snapshot or
// log line even when the server echoes it, and with the deployment's loopback allowance off the
// same URL is refused before anything is sent. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeProjectCall, makeTenant } from "./check-kit.mjs";

/** The ports of helper I's range (brief 39), so parallel checks never collide. */
const port = 8890;
const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const token = `mcp-${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-mcp-cred-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 600);

/** The MCP server: `add`, and `whoami` answering the Authorization header it was sent. */
function mcpServer() {
  const server = new McpServer({ name: "bearer-mcp", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    }),
  );
  server.registerTool(
    "whoami",
    { description: "Answers the Authorization header it got.", inputSchema: {} },
    (_args, extra) => ({
      content: [{ type: "text", text: `you sent: ${extra.requestInfo?.headers.authorization}` }],
    }),
  );
  return server;
}

let refusedRequests = 0;
const sseSessions = new Map();
const mcp = createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://mcp");
  if (req.headers.authorization !== `Bearer ${token}`) {
    refusedRequests += 1;
    res.writeHead(401, { "content-type": "application/json" });
    return res.end(JSON.stringify({ error: "invalid_token" }));
  }
  if (url.pathname === "/mcp") {
    // Stateless: a fresh server and transport per request, as the SDK's stateless example does.
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void server.close());
    await server.connect(transport);
    return transport.handleRequest(req, res);
  }
  if (url.pathname === "/sse" && req.method === "GET") {
    const transport = new SSEServerTransport("/messages", res);
    sseSessions.set(transport.sessionId, transport);
    res.on("close", () => sseSessions.delete(transport.sessionId));
    return mcpServer().connect(transport);
  }
  if (url.pathname === "/messages" && req.method === "POST") {
    const transport = sseSessions.get(url.searchParams.get("sessionId"));
    if (transport) return transport.handlePostMessage(req, res);
  }
  res.writeHead(404).end();
});
await new Promise((resolve) => mcp.listen(0, "127.0.0.1", resolve));
const mcpOrigin = `http://127.0.0.1:${mcp.address().port}`;
const bearer = { Authorization: { secret: "DOCS_TOKEN", prefix: "Bearer " } };

let server;
try {
  server = await startDevServer({
    port,
    token: deploymentToken,
    persistTo,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const call = makeProjectCall(server.url);
  const a = await makeTenant(call, deploymentToken, "a");
  const b = await makeTenant(call, deploymentToken, "b");
  const agent = { method: "POST", body: JSON.stringify({ name: "helper", runtime: { allowHosts: ["127.0.0.1"] } }) };
  await a.call("/api/agents", agent);
  await b.call("/api/agents", agent);
  const set = await a.call("/api/projects/a/secrets/DOCS_TOKEN", {
    method: "PUT",
    body: JSON.stringify({ value: token }),
  });
  check("project a keeps the token as its secret DOCS_TOKEN", set.status === 200, shown(set));

  const connect = (tenant, json) =>
    tenant.call("/api/agents/helper/mcp", { method: "POST", body: JSON.stringify(json) });
  const none = await connect(a, { name: "docs", url: `${mcpOrigin}/mcp` });
  check(
    "without the header the server refuses the connection (502 naming the URL), and nothing is kept",
    none.status === 502 && none.body?.error?.message.includes(`${mcpOrigin}/mcp`) && refusedRequests > 0,
    shown(none),
  );
  const http = await connect(a, { name: "docs", url: `${mcpOrigin}/mcp`, headers: bearer });
  check(
    "with the header from the secret it connects over Streamable HTTP and lists the secret by name only",
    http.status === 201 &&
      http.body?.state === "ready" &&
      http.body.tools.some((t) => t.name === "docs.whoami") &&
      JSON.stringify(http.body.headers) === JSON.stringify(bearer) &&
      !http.text.includes(token),
    shown(http),
  );
  const sse = await connect(a, { name: "legacy", url: `${mcpOrigin}/sse`, transport: "sse", headers: bearer });
  check(
    "an older server over SSE is sent the same header and connects",
    sse.status === 201 && sse.body?.state === "ready" && sse.body.tools.some((t) => t.name === "legacy.add"),
    shown(sse),
  );

  const chat = async (tenant, content) =>
    (await tenant.call("/api/agents/helper/messages", { method: "POST", body: JSON.stringify({ content }) })).body;
  const added = await chat(a, '/tool legacy.add {"a":2,"b":3}');
  check(
    "the SSE server's tool answers in a turn",
    added?.reply?.content === "The tool legacy.add returned: 5",
    shown(added),
  );
  const who = await chat(a, "/tool docs.whoami {}");
  const trace = await a.call(`/api/agents/helper/runs/${who?.runId}`);
  check(
    "the server echoes the header it got, and the trace shows it redacted (the token is in no trace)",
    trace.status === 200 && trace.text.includes("you sent: Bearer ") && !trace.text.includes(token),
    trace.text.slice(0, 600),
  );
  const [history, snapshot, exported, listed] = await Promise.all([
    a.call("/api/agents/helper/messages"),
    a.call("/api/agents/helper/snapshot"),
    a.call("/api/projects/a/export"),
    a.call("/api/agents/helper/mcp"),
  ]);
  check(
    "the token is in no reply, history, snapshot, project export or server listing",
    [history, snapshot, exported, listed].every((r) => r.status === 200 && !r.text.includes(token)) &&
      !JSON.stringify(who).includes(token) &&
      snapshot.text.includes('"helper"'),
    shown([history.status, snapshot.status, exported.status, listed.status]),
  );

  const wrong = await b.call("/api/projects/b/secrets/DOCS_TOKEN", {
    method: "PUT",
    body: JSON.stringify({ value: "not-the-token" }),
  });
  const bServers = await b.call("/api/agents/helper/mcp");
  const bTurn = await chat(b, '/tool docs.add {"a":1,"b":1}');
  check(
    "project b's agent of the same name has none of a's servers or tools",
    wrong.status === 200 &&
      bServers.body?.servers?.length === 0 &&
      bTurn?.reply?.content.includes("I was not given a tool named docs.add"),
    shown({ bServers: bServers.body, reply: bTurn?.reply }),
  );
  const bConnect = await connect(b, { name: "docs", url: `${mcpOrigin}/mcp`, headers: bearer });
  check(
    "project b naming DOCS_TOKEN gets its own value, which the server refuses",
    bConnect.status === 502 && !bConnect.text.includes(token),
    shown(bConnect),
  );
  const foreign = await call(a.token, "b", "/api/agents/helper/mcp");
  check("a's token cannot list b's agent's servers", foreign.status === 401 || foreign.status === 403, shown(foreign));

  await server.stop();
  check("the token is in no line wrangler dev logged", !server.output().includes(token), "found in the logs");

  // The same stack with the deployment's loopback allowance off (its default).
  server = await startDevServer({
    port,
    token: deploymentToken,
    persistTo,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "false" },
  });
  const off = makeProjectCall(server.url);
  const aOff = { call: (path, init) => off(a.token, "a", path, init) };
  const before = refusedRequests;
  const refused = await connect(aOff, { name: "again", url: `${mcpOrigin}/mcp`, headers: bearer });
  check(
    "with loopback not allowed a loopback URL is a 400 naming url, and the server is sent nothing",
    refused.status === 400 &&
      refused.body?.error?.details?.issues?.[0]?.path?.[0] === "url" &&
      refusedRequests === before,
    shown(refused),
  );
  const offTurn = await chat(aOff, '/tool docs.add {"a":1,"b":1}');
  check(
    "the server connected before is not used: its tool is withdrawn",
    offTurn?.reply?.content.includes("I was not given a tool named docs.add"),
    shown(offTurn?.reply),
  );
  await server.stop();
  check("the token is in no line of the second stack's log", !server.output().includes(token), "found in the logs");
} catch (error) {
  check("the check ran to the end", false, error?.stack ?? String(error));
} finally {
  await server?.stop();
  mcp.closeAllConnections?.();
  mcp.close();
  await rm(persistTo, { recursive: true, force: true });
  finish();
}

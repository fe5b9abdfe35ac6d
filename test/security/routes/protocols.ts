import type { RouteEntry } from "./types";

const mcpAccept = { accept: "application/json, text/event-stream" };

/** The other doors to agents: OpenAI-compatible, MCP, A2A, AG-UI and the live socket. */
export const protocolRoutes: readonly RouteEntry[] = [
  // ---- OpenAI-compatible ---------------------------------------------------------------------
  {
    method: "POST",
    path: "/v1/chat/completions",
    family: "openai",
    scope: "chat",
    expect: 200,
    sample: (f) => ({
      params: {},
      body: {
        json: {
          model: f.agent,
          messages: [
            { role: "system", content: "ignored" },
            { role: "user", content: "hello" },
          ],
          temperature: 0.2,
          user: "fuzz-user",
        },
      },
    }),
  },
  { method: "GET", path: "/v1/models", family: "openai", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "GET",
    path: "/v1/models/:model",
    family: "openai",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { model: f.agent } }),
  },
  {
    method: "ALL",
    path: "/v1/*",
    family: "openai",
    scope: "chat",
    expect: 404,
    sample: () => ({ method: "GET", params: { "*": "embeddings" } }),
  },

  // ---- MCP server ----------------------------------------------------------------------------
  {
    method: "POST",
    path: "/mcp",
    family: "mcp",
    scope: "chat",
    expect: 200,
    sample: (f) => ({
      params: {},
      headers: mcpAccept,
      body: {
        json: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "ask_agent", arguments: { agent: f.agent, message: "hello" } },
        },
      },
    }),
  },
  {
    method: "GET",
    path: "/mcp",
    family: "mcp",
    scope: "chat",
    expect: 405,
    sample: () => ({ params: {}, headers: mcpAccept }),
  },
  {
    method: "DELETE",
    path: "/mcp",
    family: "mcp",
    scope: "chat",
    expect: 405,
    sample: () => ({ params: {}, headers: mcpAccept }),
  },

  // ---- A2A (Agent2Agent) -------------------------------------------------------------------
  {
    method: "GET",
    path: "/a2a/agents/:name/.well-known/agent-card.json",
    family: "a2a",
    scope: "chat",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent } }),
  },
  {
    method: "POST",
    path: "/a2a/agents/:name",
    family: "a2a",
    scope: "chat",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: {
        json: {
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: {
            message: { kind: "message", messageId: "fuzz-1", role: "user", parts: [{ kind: "text", text: "hello" }] },
          },
        },
      },
    }),
  },
  {
    method: "ALL",
    path: "/a2a/*",
    family: "a2a",
    scope: "chat",
    expect: 404,
    sample: (f) => ({ method: "GET", params: { "*": `agents/${f.agent}/tasks` } }),
  },

  // ---- one agent's MCP server ------------------------------------------------------------------
  {
    method: "POST",
    path: "/mcp/agents/:name",
    family: "mcp",
    scope: "chat",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      headers: mcpAccept,
      body: {
        json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask", arguments: { message: "hello" } } },
      },
    }),
  },
  {
    method: "GET",
    path: "/mcp/agents/:name",
    family: "mcp",
    scope: "chat",
    expect: 405,
    sample: (f) => ({ params: { name: f.agent }, headers: mcpAccept }),
  },
  {
    method: "DELETE",
    path: "/mcp/agents/:name",
    family: "mcp",
    scope: "chat",
    expect: 405,
    sample: (f) => ({ params: { name: f.agent }, headers: mcpAccept }),
  },
  // Also holds the project, body limit and auth middleware of every agent's server.
  {
    method: "ALL",
    path: "/mcp/agents/*",
    family: "mcp",
    scope: "chat",
    expect: 404,
    sample: (f) => ({
      method: "POST",
      params: { "*": `${f.agent}/extra` },
      headers: mcpAccept,
      body: { json: { jsonrpc: "2.0", id: 1, method: "tools/list" } },
    }),
  },

  // ---- AG-UI ---------------------------------------------------------------------------------
  {
    method: "POST",
    path: "/agui/agents/:name",
    family: "agui",
    scope: "chat",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      headers: { accept: "text/event-stream" },
      body: {
        json: {
          threadId: "fuzz-thread",
          runId: "fuzz-run",
          messages: [{ id: "m1", role: "user", content: "hello" }],
          tools: [],
          context: [],
        },
      },
    }),
  },
  {
    method: "ALL",
    path: "/agui/*",
    family: "agui",
    scope: "chat",
    expect: 404,
    sample: () => ({ method: "GET", params: { "*": "nothing-here" } }),
  },

  // ---- live socket ---------------------------------------------------------------------------
  {
    method: "ALL",
    path: "/agents/*",
    family: "socket",
    scope: "chat",
    expect: 101,
    sample: (f) => ({
      method: "GET",
      params: { "*": `agent-do/default.${f.agent}` },
      headers: { upgrade: "websocket" },
    }),
  },
];

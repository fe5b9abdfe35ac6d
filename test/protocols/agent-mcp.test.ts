// `/mcp/agents/:name` driven by the official MCP client (Client + Streamable HTTP transport), the
// way an MCP host would, through the real worker (SELF).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { adminToken, api, createAgent } from "../api/client";

const open: Client[] = [];

async function connect(agent: string, options: { token?: string; project?: string } = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`https://pantheon.test/mcp/agents/${agent}`), {
    fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
    requestInit: {
      headers: {
        authorization: `Bearer ${options.token ?? adminToken}`,
        ...(options.project ? { "x-pantheon-project": options.project } : {}),
      },
    },
  });
  // Ajv (the client's default validator) compiles code at run time, which workerd forbids.
  const client = new Client(
    { name: "pantheon-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  open.push(client);
  return client;
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

async function tokenOf(scope: "chat" | "approve" | "admin", project = "default") {
  const res = await api("/api/tokens", {
    method: "POST",
    json: { name: `mcp ${scope}`, scope },
    headers: { "x-pantheon-project": project },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

async function runs(agent: string) {
  return (
    (await (await api(`/api/agents/${agent}/runs`)).json()) as {
      runs: { id: string; status: string; trigger: string }[];
    }
  ).runs;
}
async function traceOf(agent: string, run: string) {
  return ((await (await api(`/api/agents/${agent}/runs/${run}`)).json()) as { trace: { name: string; data: any }[] })
    .trace;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

describe("one agent as an MCP server at /mcp/agents/:name", () => {
  it("introduces itself as the agent and offers ask, search_memory and the agent's own tools with their schemas", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const client = await connect(agent.name);
    expect(client.getServerVersion()?.name).toBe(`pantheon-${agent.name}`);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.slice(0, 2)).toEqual(["ask", "search_memory"]);
    expect(names).toContain("clock.now");
    expect(tools.find((t) => t.name === "ask")?.inputSchema.required).toEqual(["message"]);
  });

  it("ask runs one turn, a tool call included, end to end, and the turn is in the agent's history", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const client = await connect(agent.name);
    const plain = await client.callTool({ name: "ask", arguments: { message: "What is the launch code word?" } });
    expect(plain.isError).toBeFalsy();
    expect(textOf(plain)).toContain("pineapple");
    const { sessionId } = plain.structuredContent as { sessionId: string };

    const withTool = await client.callTool({
      name: "ask",
      arguments: { message: "/tool clock.now {}", session: sessionId },
    });
    expect(withTool.isError).toBeFalsy();
    expect(textOf(withTool)).toMatch(/^The tool clock\.now returned: \{"iso":"\d{4}-/);
    const { runId } = withTool.structuredContent as { runId: string };
    expect((await traceOf(agent.name, runId)).find((s) => s.name === "tool_result")?.data).toMatchObject({
      tool: "clock.now",
      ok: true,
    });
    const history = (await (await api(`/api/agents/${agent.name}/messages?session=${sessionId}`)).json()) as {
      messages: { content: string }[];
    };
    expect(history.messages.map((m) => m.content)).toContain("/tool clock.now {}");
  });

  it("calls one of the agent's tools as a manual run, through its gates, traced with who called", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const client = await connect(agent.name);
    const result = await client.callTool({ name: "clock.now", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toHaveProperty("iso");
    const { runId, status } = result.structuredContent as { runId: string; status: string };
    expect(status).toBe("completed");
    const [run] = await runs(agent.name);
    expect(run).toMatchObject({ id: runId, trigger: "manual" });
    const trace = await traceOf(agent.name, runId);
    expect(trace.some((s) => s.name === "gate_decisions")).toBe(true);
    expect(JSON.stringify(trace)).toContain("admin via mcp");
  });

  it("answers an approval-gated tool with the pending approval; the tool does not run", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const client = await connect(agent.name);
    const result = await client.callTool({ name: "clock.now", arguments: {} });
    expect(result.isError).toBe(true);
    const { runId, status, pending } = result.structuredContent as {
      runId: string;
      status: string;
      pending: { tool: string };
    };
    expect(status).toBe("waiting_approval");
    expect(pending.tool).toBe("clock.now");
    expect(textOf(result)).toContain(`pantheon runs approve ${agent.name} ${runId}`);
    expect((await runs(agent.name))[0]?.status).toBe("waiting_approval");
    expect((await traceOf(agent.name, runId)).some((s) => s.name === "tool_result")).toBe(false);
  });

  it("says which gate refused a call, as a tool error", async () => {
    const agent = await createAgent({
      runtime: { tools: ["clock.now"], gates: [{ name: "no-passwords", kind: "deny-pattern", pattern: "password" }] },
    });
    const client = await connect(agent.name);
    const result = await client.callTool({ name: "clock.now", arguments: { note: "my password" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^gate_rejected: gate '[a-z-]+' refused the call: /);
  });

  it("searches the agent's memory and serves its context sources as resources", async () => {
    const agent = await createAgent();
    expect(
      (
        await api(`/api/agents/${agent.name}/memories`, {
          method: "POST",
          json: { text: "The spare key is under the blue flowerpot", kind: "fact" },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api(`/api/agents/${agent.name}/sources/handbook/documents`, {
          method: "POST",
          json: { title: "Opening hours", text: "The office opens at nine." },
        })
      ).status,
    ).toBe(201);
    const client = await connect(agent.name);
    const found = await client.callTool({ name: "search_memory", arguments: { query: "where is the spare key" } });
    expect(found.isError).toBeFalsy();
    expect(textOf(found)).toContain("blue flowerpot");

    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(`pantheon://default/agents/${agent.name}/sources/memory`);
    expect(uris).toContain(`pantheon://default/agents/${agent.name}/sources/handbook`);
    const handbook = await client.readResource({ uri: `pantheon://default/agents/${agent.name}/sources/handbook` });
    expect((handbook.contents[0] as { text: string }).text).toContain("The office opens at nine.");
    const memory = await client.readResource({ uri: `pantheon://default/agents/${agent.name}/sources/memory` });
    expect((memory.contents[0] as { text: string }).text).toContain("blue flowerpot");
    await expect(client.readResource({ uri: `pantheon://other/agents/${agent.name}/sources/memory` })).rejects.toThrow(
      /unknown resource/,
    );
  });

  it("lets a chat token talk (ask) but not call tools, search memory or read sources: JSON-RPC errors naming the scope", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const client = await connect(agent.name, { token: await tokenOf("chat") });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["ask"]);
    expect((await client.callTool({ name: "ask", arguments: { message: "hello" } })).isError).toBeFalsy();
    const refused = await client.callTool({ name: "clock.now", arguments: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32003);
    expect((refused as McpError).message).toContain("this needs a token with the 'admin' scope; this token has 'chat'");
    // The client puts "MCP error <code>: " in front of what the server sent: once, not twice.
    expect((refused as McpError).message).toBe(
      "MCP error -32003: this needs a token with the 'admin' scope; this token has 'chat'",
    );
    await expect(client.callTool({ name: "search_memory", arguments: { query: "x" } })).rejects.toThrow(
      /'admin' scope/,
    );
    expect((await client.listResources()).resources).toEqual([]);
    await expect(
      client.readResource({ uri: `pantheon://default/agents/${agent.name}/sources/memory` }),
    ).rejects.toThrow(/'admin' scope/);
    // Only the ask ran.
    expect((await runs(agent.name)).map((r) => r.trigger)).toEqual(["message"]);
  });

  it("refuses bad arguments and unknown tools with JSON-RPC invalid params", async () => {
    const agent = await createAgent();
    const client = await connect(agent.name);
    const empty = await client.callTool({ name: "ask", arguments: { message: "  " } }).catch((e: unknown) => e);
    expect((empty as McpError).code).toBe(-32602);
    expect((empty as McpError).message).toContain("ask: message: say something");
    expect((empty as McpError).message.match(/MCP error/g)).toHaveLength(1);
    const unknown = await client.callTool({ name: "shell.exec", arguments: {} }).catch((e: unknown) => e);
    expect((unknown as McpError).code).toBe(-32602);
    expect((unknown as McpError).message).toContain("unknown tool 'shell.exec'");
  });

  it("keeps projects apart: another project's token is refused, an agent of another project is a 404 JSON-RPC error", async () => {
    const agent = await createAgent();
    const body = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const headers = { accept: "application/json, text/event-stream" };
    const foreign = await api(`/mcp/agents/${agent.name}`, {
      method: "POST",
      headers,
      token: await tokenOf("admin", "mcp-elsewhere"),
      json: body,
    });
    expect(foreign.status).toBe(401);
    const elsewhere = await api(`/mcp/agents/${agent.name}`, {
      method: "POST",
      headers: { ...headers, "x-pantheon-project": "mcp-elsewhere" },
      json: body,
    });
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32001,
      message: `agent '${agent.name}' does not exist in project 'mcp-elsewhere'`,
    });
    await expect(connect(agent.name, { project: "mcp-elsewhere" })).rejects.toThrow();
  });

  it("gives a client that reads slowly the whole answer", async () => {
    const agent = await createAgent();
    const res = await api(`/mcp/agents/${agent.name}`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      json: {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "ask", arguments: { message: "What is the launch code word?" } },
      },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader({ mode: "byob" });
    const bytes: number[] = [];
    for (;;) {
      await new Promise((r) => setTimeout(r, 5));
      const { value, done } = await reader.read(new Uint8Array(16));
      if (value) bytes.push(...value);
      if (done) break;
    }
    const answer = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes))) as {
      id: number;
      result: CallToolResult;
    };
    expect(answer.id).toBe(7);
    expect(textOf(answer.result)).toContain("pineapple");
  });
});

// One fault, one sentence: an agent the project does not have is a 404 that says
// "agent '<name>' does not exist in project '<project>'" on every door (core/errors.ts
// unknownAgent), with `pantheon agents list` as the hint where the door has room for one. Each
// refusal sits beside the same call to an agent that exists, which works.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { adminToken, api, createAgent, uniqueName } from "./client";

const words = (agent: string, project = "default") => `agent '${agent}' does not exist in project '${project}'`;
const open: Client[] = [];

async function mcpClient(path: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`https://pantheon.test${path}`), {
    fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
    requestInit: { headers: { authorization: `Bearer ${adminToken}` } },
  });
  const client = new Client(
    { name: "pantheon-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  open.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
}

describe("an unknown agent, on every door", () => {
  it("/api: show, tell (messages, streamed too), runs, sessions and memory all answer 404 with the same words and the hint", async () => {
    const missing = uniqueName("nosuch");
    const known = await createAgent();
    expect((await api(`/api/agents/${known.name}`)).status).toBe(200);
    expect(
      (await api(`/api/agents/${known.name}/messages`, { method: "POST", json: { content: "hello" } })).status,
    ).toBe(200);
    const calls: [string, RequestInit & { json?: unknown }][] = [
      [`/api/agents/${missing}`, {}],
      [`/api/agents/${missing}/messages`, { method: "POST", json: { content: "hello" } }],
      [
        `/api/agents/${missing}/messages`,
        { method: "POST", json: { content: "hello" }, headers: { accept: "text/event-stream" } },
      ],
      [`/api/agents/${missing}/messages`, {}],
      [`/api/agents/${missing}/runs`, {}],
      [`/api/agents/${missing}/sessions`, {}],
      [`/api/agents/${missing}/memories`, {}],
    ];
    for (const [path, init] of calls) {
      const res = await api(path, init);
      expect(res.status, path).toBe(404);
      const error = await errorOf(res);
      expect(error, `${init.method ?? "GET"} ${path}`).toMatchObject({
        code: "not_found",
        message: words(missing),
        details: { agent: missing, project: "default", hint: "pantheon agents list" },
      });
    }
  });

  it("names the project the token works in", async () => {
    const project = uniqueName("proj");
    const res = await api("/api/agents/nosuch/messages", {
      method: "POST",
      json: { content: "hi" },
      headers: { "x-pantheon-project": project },
    });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).message).toBe(words("nosuch", project));
  });

  it("/v1: OpenAI's model_not_found, 404, in the same words", async () => {
    const known = await createAgent();
    const ask = (model: string) =>
      api("/v1/chat/completions", { method: "POST", json: { model, messages: [{ role: "user", content: "hello" }] } });
    expect((await ask(known.name)).status).toBe(200);
    const res = await ask("nosuch");
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { message: string; code: string; param: string } };
    expect(error).toMatchObject({ code: "model_not_found", param: "model" });
    expect(error.message.startsWith(words("nosuch"))).toBe(true);
  });

  it("/mcp: ask_agent and get_run answer a tool error in the same words", async () => {
    const known = await createAgent();
    const client = await mcpClient("/mcp");
    expect(
      (await client.callTool({ name: "ask_agent", arguments: { agent: known.name, message: "hello" } })).isError,
    ).toBeFalsy();
    for (const call of [
      { name: "ask_agent", arguments: { agent: "nosuch", message: "hello" } },
      { name: "get_run", arguments: { agent: "nosuch", run: "r1" } },
    ]) {
      const result = (await client.callTool(call)) as CallToolResult;
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toContain(`not_found: ${words("nosuch")}`);
      expect(result.structuredContent).toMatchObject({
        code: "not_found",
        agent: "nosuch",
        project: "default",
        hint: "pantheon agents list",
      });
    }
  });

  it("/mcp/agents/:name: a 404 JSON-RPC error in the same words", async () => {
    const known = await createAgent();
    expect((await (await mcpClient(`/mcp/agents/${known.name}`)).listTools()).tools.map((t) => t.name)).toContain(
      "ask",
    );
    const res = await api("/mcp/agents/nosuch", {
      method: "POST",
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream" },
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { message: string; data: Record<string, unknown> } };
    expect(body.error.message).toBe(words("nosuch"));
    expect(body.error.data).toMatchObject({ code: "not_found", hint: "pantheon agents list" });
  });

  it("/agui: the API's 404 in the same words", async () => {
    const input = {
      threadId: "t1",
      runId: "r1",
      messages: [{ id: "1", role: "user", content: "hello" }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    const known = await createAgent();
    const ok = await api(`/agui/agents/${known.name}`, {
      method: "POST",
      json: input,
      headers: { accept: "text/event-stream" },
    });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    const res = await api("/agui/agents/nosuch", {
      method: "POST",
      json: input,
      headers: { accept: "text/event-stream" },
    });
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toMatchObject({ code: "not_found", message: words("nosuch") });
  });

  it("/a2a: the card and the JSON-RPC endpoint answer 404 in the same words", async () => {
    const known = await createAgent();
    expect((await api(`/a2a/agents/${known.name}/.well-known/agent-card.json`)).status).toBe(200);
    const card = await api("/a2a/agents/nosuch/.well-known/agent-card.json");
    expect(card.status).toBe(404);
    expect((await errorOf(card)).message).toBe(words("nosuch"));
    const rpc = await api("/a2a/agents/nosuch", {
      method: "POST",
      json: {
        jsonrpc: "2.0",
        id: 7,
        method: "message/send",
        params: { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text: "hi" }] } },
      },
    });
    expect(rpc.status).toBe(404);
    expect(((await rpc.json()) as { error: { message: string } }).error.message).toBe(words("nosuch"));
  });

  it("the agent socket: 404 in the same words", async () => {
    const known = await createAgent();
    const socket = (agent: string) =>
      api(`/agents/agent-do/default.${agent}?token=${adminToken}`, { token: null, headers: { upgrade: "websocket" } });
    const ok = await socket(known.name);
    expect(ok.status).toBe(101);
    ok.webSocket?.accept();
    ok.webSocket?.close();
    const res = await socket("nosuch");
    expect(res.status).toBe(404);
    expect((await errorOf(res)).message).toBe(words("nosuch"));
  });
});

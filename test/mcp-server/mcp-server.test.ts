// The `/mcp` endpoint driven by the official MCP client (Client + Streamable HTTP transport), the
// way Claude Desktop or the MCP Inspector would, through the real worker (SELF).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { adminToken, api, createAgent, ensureProject, type ErrorBody } from "../api/client";

const endpoint = new URL("https://pantheon.test/mcp");
const open: Client[] = [];

async function connect(project?: string): Promise<Client> {
  if (project) await ensureProject(project);
  const transport = new StreamableHTTPClientTransport(endpoint, {
    fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
    requestInit: {
      headers: { authorization: `Bearer ${adminToken}`, ...(project ? { "x-pantheon-project": project } : {}) },
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

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

describe("the MCP server at /mcp", () => {
  it("introduces itself as pantheon and offers list_agents, ask_agent and get_run", async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe("pantheon");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask_agent", "get_run", "list_agents"]);
    const ask = tools.find((t) => t.name === "ask_agent");
    expect(ask?.inputSchema.required).toEqual(["agent"]);
    expect(Object.keys(ask?.inputSchema.properties ?? {}).sort()).toEqual(["agent", "input", "message", "session"]);
  });

  it("lists the project's agents with their descriptions", async () => {
    const agent = await createAgent({ description: "Knows the launch code word" });
    const client = await connect();
    const result = await client.callTool({ name: "list_agents", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(`${agent.name}: Knows the launch code word`);
  });

  it("answers with the agent's reply, and the conversation is kept in the agent's history", async () => {
    const agent = await createAgent();
    const client = await connect();
    const result = await client.callTool({
      name: "ask_agent",
      arguments: { agent: agent.name, message: "What is the launch code word?" },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result).toLowerCase()).toContain("pineapple");
    const { sessionId, status } = result.structuredContent as { sessionId: string; status: string };
    expect(status).toBe("completed");

    const history = (await (await api(`/api/agents/${agent.name}/messages?session=${sessionId}`)).json()) as {
      messages: { role: string; content: string }[];
    };
    expect(history.messages.map((m) => m.content)).toContain("What is the launch code word?");
  });

  it("says so, as a tool error, when the agent does not exist", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "ask_agent", arguments: { agent: "nobody-here", message: "hello" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("not_found: agent 'nobody-here' does not exist in project 'default'");
  });

  it("only sees the agents of the project named by X-Pantheon-Project", async () => {
    const agent = await createAgent();
    const client = await connect("other-project");
    const listed = await client.callTool({ name: "list_agents", arguments: {} });
    expect(textOf(listed)).not.toContain(agent.name);
    const asked = await client.callTool({ name: "ask_agent", arguments: { agent: agent.name, message: "hello" } });
    expect(asked.isError).toBe(true);
  });

  it("reports a run waiting for approval with its id and how a person approves it, and get_run shows it", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const client = await connect();
    const result = await client.callTool({
      name: "ask_agent",
      arguments: { agent: agent.name, message: "/tool clock.now {}" },
    });
    expect(result.isError).toBe(true);
    const { runId, status } = result.structuredContent as { runId: string; status: string };
    expect(status).toBe("waiting_approval");
    expect(textOf(result)).toContain(runId);
    expect(textOf(result)).toContain(`pantheon runs approve ${agent.name} ${runId}`);

    const run = await client.callTool({ name: "get_run", arguments: { agent: agent.name, run: runId } });
    expect(run.isError).toBeFalsy();
    expect(textOf(run)).toContain(`run ${runId} of '${agent.name}': waiting_approval`);
    expect(textOf(run)).toContain("waiting for approval: clock.now");
  });

  it("answers 401 with a JSON error to a client without a token", async () => {
    const res = await SELF.fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    expect(((await res.json()) as ErrorBody).error.code).toBe("unauthorized");
  });

  it("refuses a wrong token before any MCP message is read", async () => {
    const res = await api("/mcp", {
      method: "POST",
      token: "pt_not-a-real-token",
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(res.status).toBe(401);
  });
});

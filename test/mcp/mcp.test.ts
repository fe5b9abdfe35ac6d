import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName, type ErrorBody } from "../api/client";

const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;

/** Each test talks to the shared MCP server under its own tenant, so it reads only its own calls. */
function tenantUrl() {
  const tenant = uniqueName("tenant");
  const url = `${mcpUrl}?tenant=${tenant}`;
  const calls = async () =>
    (await (await fetch(`${new URL(mcpUrl).origin}/__calls?tenant=${tenant}`)).json()) as {
      tool: string;
      arguments: Record<string, unknown>;
    }[];
  /** Every HTTP request that reached the server for this tenant (connects, lists, calls). */
  const hits = async () =>
    ((await (await fetch(`${new URL(mcpUrl).origin}/__hits?tenant=${tenant}`)).json()) as { hits: number }).hits;
  return { url, calls, hits };
}

/** The MCP server's host (127.0.0.1): an agent reaches it only with that host on its allowlist. */
const mcpHost = new URL(mcpUrl).hostname;

/** An agent allowed to reach the test MCP server. */
const mcpAgent = (runtime: Record<string, unknown> = {}) =>
  createAgent({ runtime: { allowHosts: [mcpHost], ...runtime } });

async function evict(agent: string) {
  const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent}`));
  await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evict"))).rejects.toThrow("evict");
}

async function connect(agent: string, json: unknown) {
  const res = await api(`/api/agents/${agent}/mcp`, { method: "POST", json });
  return { res, body: (await res.json()) as any };
}

async function chat(agent: string, content: string) {
  const res = await api(`/api/agents/${agent}/messages`, { method: "POST", json: { content } });
  return (await res.json()) as any;
}

async function trace(agent: string, runId: string) {
  return ((await (await api(`/api/agents/${agent}/runs/${runId}`)).json()) as any).trace as {
    name: string;
    data: any;
  }[];
}

describe("MCP servers of an agent", () => {
  it("connects a server by URL and lists its tools as <server>.<tool>", async () => {
    const agent = await mcpAgent();
    const { url } = tenantUrl();
    const { res, body } = await connect(agent.name, { name: "calc", url });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ id: "calc", name: "calc", url, state: "ready" });
    expect(body.tools.map((t: any) => t.name).sort()).toEqual(["calc.add", "calc.echo"]);
    const add = body.tools.find((t: any) => t.name === "calc.add");
    expect(add).toMatchObject({ mcpName: "add", description: "Adds two numbers and answers their sum." });
    expect(add.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });

    const listed = (await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any;
    expect(listed.servers).toHaveLength(1);
    expect(listed.servers[0]).toMatchObject({ id: "calc", name: "calc", url, state: "ready" });
    expect(listed.servers[0].tools.map((t: any) => t.name).sort()).toEqual(["calc.add", "calc.echo"]);
  });

  it("lets the model call an MCP tool in a chat turn, and the reply and trace show its result", async () => {
    const agent = await mcpAgent();
    const { url, calls } = tenantUrl();
    await connect(agent.name, { name: "calc", url });

    const turn = await chat(agent.name, '/tool calc.add {"a":2,"b":3}');
    expect(turn.status).toBe("completed");
    expect(turn.reply.content).toBe("The tool calc.add returned: 5");
    expect(await calls()).toEqual([{ tool: "add", arguments: { a: 2, b: 3 } }]);

    const steps = await trace(agent.name, turn.runId);
    expect(steps.find((s) => s.name === "tool_call")?.data).toMatchObject({
      tool: "calc.add",
      arguments: { a: 2, b: 3 },
      runtime: "mcp",
    });
    expect(steps.find((s) => s.name === "tool_result")?.data).toMatchObject({
      tool: "calc.add",
      ok: true,
      output: "5",
    });
  });

  it("shows the connected MCP tools to the model next to its other tools", async () => {
    const agent = await mcpAgent();
    await connect(agent.name, { name: "calc", url: tenantUrl().url });
    const turn = await chat(agent.name, "/tools");
    expect(turn.reply.content).toContain("- calc.add: Adds two numbers and answers their sum.");
    expect(turn.reply.content).toContain("- calc.echo: Answers the text it was given.");
  });

  it("rejects arguments that do not match the tool's schema before the server is called", async () => {
    const agent = await mcpAgent();
    const { url, calls } = tenantUrl();
    await connect(agent.name, { name: "calc", url });

    const turn = await chat(agent.name, '/tool calc.add {"a":"two","b":3}');
    const steps = await trace(agent.name, turn.runId);
    const gates = steps.find((s) => s.name === "gate_decisions")?.data;
    const schema = gates.decisions.find((d: any) => d.gate === "schema");
    expect(schema.decision.allow).toBe(false);
    expect(schema.decision.reason).toContain("invalid arguments");
    expect(steps.some((s) => s.name === "tool_result" && s.data.ok)).toBe(false);
    expect(await calls()).toEqual([]);
  });

  it("keeps its MCP servers, and their tools work, after the agent's object is evicted", async () => {
    const agent = await mcpAgent();
    const { url, calls } = tenantUrl();
    await connect(agent.name, { name: "calc", url });
    await evict(agent.name);

    const turn = await chat(agent.name, '/tool calc.echo {"text":"still here"}');
    expect(turn.reply.content).toBe("The tool calc.echo returned: still here");
    expect(await calls()).toEqual([{ tool: "echo", arguments: { text: "still here" } }]);
    const listed = (await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any;
    expect(listed.servers[0]).toMatchObject({ id: "calc", state: "ready" });
  });

  it("removes a server and its tools with it", async () => {
    const agent = await mcpAgent();
    const { url, calls } = tenantUrl();
    await connect(agent.name, { name: "calc", url });

    const removed = await api(`/api/agents/${agent.name}/mcp/calc`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    expect(((await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any).servers).toEqual([]);

    const turn = await chat(agent.name, '/tool calc.add {"a":2,"b":3}');
    expect(turn.reply.content).toContain("I was not given a tool named calc.add");
    expect(await calls()).toEqual([]);

    const again = await api(`/api/agents/${agent.name}/mcp/calc`, { method: "DELETE" });
    expect(again.status).toBe(404);
  });

  it("answers 400 naming the field for a URL that is not http(s) or a name that is not a slug", async () => {
    const agent = await mcpAgent();
    const { res, body } = await connect(agent.name, { name: "calc", url: "ftp://example.com/mcp" });
    expect(res.status).toBe(400);
    expect((body as ErrorBody).error.details?.issues?.[0]).toMatchObject({
      path: ["url"],
      message: "an http:// or https:// URL of an MCP server",
    });

    const bad = await connect(agent.name, { name: "Calc Server", url: tenantUrl().url });
    expect(bad.res.status).toBe(400);
    expect((bad.body as ErrorBody).error.details?.issues?.[0]?.path).toEqual(["name"]);
  });

  it("answers 502 with a clear message when the server cannot be reached, and keeps nothing of it", async () => {
    const agent = await mcpAgent();
    // The MCP server's host with a path it does not serve: reachable host, no MCP endpoint there.
    const { res, body } = await connect(agent.name, { name: "gone", url: `${new URL(mcpUrl).origin}/no-mcp-here` });
    expect(res.status).toBe(502);
    expect((body as ErrorBody).error.code).toBe("tool_failed");
    expect((body as ErrorBody).error.message).toMatch(
      /^could not connect to the MCP server at http:\/\/127\.0\.0\.1:\d+\/no-mcp-here: /,
    );
    expect(((await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any).servers).toEqual([]);
  });

  it("answers 502 when nothing listens at the URL", async () => {
    const agent = await mcpAgent();
    const { res, body } = await connect(agent.name, { name: "nobody", url: "http://127.0.0.1:9/mcp" });
    expect(res.status).toBe(502);
    expect((body as ErrorBody).error.message).toContain("http://127.0.0.1:9/mcp");
  });

  it("refuses a server whose host is not on the agent's allowlist, saying which host to add, and sends it nothing", async () => {
    const agent = await createAgent();
    const { url, hits } = tenantUrl();
    const { res, body } = await connect(agent.name, { name: "calc", url });
    expect(res.status).toBe(400);
    expect((body as ErrorBody).error.code).toBe("validation_failed");
    const message = `host ${mcpHost} is not on this agent's allowlist; add "${mcpHost}" to runtime.allowHosts to connect this server`;
    expect((body as ErrorBody).error.message).toBe(message);
    expect((body as ErrorBody).error.details?.issues).toEqual([{ path: ["url"], message }]);
    expect(await hits()).toBe(0);
    expect(((await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any).servers).toEqual([]);
  });

  it("refuses private, link-local and metadata addresses even on the allowlist and with the loopback override on", async () => {
    for (const url of [
      "http://10.0.0.1/mcp",
      "http://169.254.169.254/mcp",
      "http://[::ffff:169.254.169.254]/mcp",
      "http://metadata.google.internal/mcp",
    ]) {
      const agent = await mcpAgent({
        allowHosts: [new URL(url).hostname.replace(/^\[|\]$/g, ""), "metadata.google.internal"],
      });
      const { res, body } = await connect(agent.name, { name: "calc", url });
      expect(res.status, url).toBe(400);
      expect((body as ErrorBody).error.details?.issues?.[0]?.path, url).toEqual(["url"]);
      expect((body as ErrorBody).error.message, url).toMatch(/^MCP server refused: .*(range|not a public host)/);
    }
  });

  it("stops using a server whose host left the allowlist: its tools are withdrawn, and after a restart it is not reconnected", async () => {
    const agent = await mcpAgent();
    const { url, calls, hits } = tenantUrl();
    expect((await connect(agent.name, { name: "calc", url })).res.status).toBe(201);
    const patched = await api(`/api/agents/${agent.name}`, { method: "PATCH", json: { runtime: { allowHosts: [] } } });
    expect(patched.status).toBe(200);

    const turn = await chat(agent.name, '/tool calc.add {"a":2,"b":3}');
    expect(turn.reply.content).toContain("I was not given a tool named calc.add");
    const refused = `refused: host ${mcpHost} is not on this agent's allowlist`;
    expect(((await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any).servers[0]).toMatchObject({
      id: "calc",
      error: refused,
    });
    const before = await hits();

    // The SDK restores the server from storage when the object starts again; its requests pass the guard.
    await evict(agent.name);
    const listed = (await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any;
    expect(listed.servers[0]).toMatchObject({ id: "calc", state: "failed", error: refused });
    expect(await hits()).toBe(before);
    expect(await calls()).toEqual([]);
  });

  it("refuses a second server under a name already in use", async () => {
    const agent = await mcpAgent();
    await connect(agent.name, { name: "calc", url: tenantUrl().url });
    const { res } = await connect(agent.name, { name: "calc", url: tenantUrl().url });
    expect(res.status).toBe(409);
  });

  it("answers 404 for the MCP servers of an agent that does not exist", async () => {
    const res = await api(`/api/agents/${uniqueName("ghost")}/mcp`);
    expect(res.status).toBe(404);
  });
});

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mcpReservedServerNames, mcpToolNames } from "../../durable-objects/agent/mcp";
import { api, createAgent, uniqueName } from "../api/client";

const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;
const mcpHost = new URL(mcpUrl).hostname;
const origin = new URL(mcpUrl).origin;

async function connect(agent: string, json: unknown) {
  const res = await api(`/api/agents/${agent}/mcp`, { method: "POST", json });
  return { res, body: (await res.json()) as any };
}

async function chat(agent: string, content: string) {
  return (await (await api(`/api/agents/${agent}/messages`, { method: "POST", json: { content } })).json()) as any;
}

async function trace(agent: string, runId: string) {
  return ((await (await api(`/api/agents/${agent}/runs/${runId}`)).json()) as any).trace as {
    name: string;
    data: any;
  }[];
}

const toolNames = (servers: { tools: { name: string }[] }[]) =>
  servers.flatMap((s) => s.tools.map((t) => t.name)).sort();

describe("MCP tool names", () => {
  it("moves a tool of a server named like a built-in namespace under mcp., and keeps the others as <server>.<tool>", () => {
    const names = mcpToolNames([
      { serverId: "http", serverName: "http", tools: ["fetch"] },
      { serverId: "calc", serverName: "calc", tools: ["add"] },
    ]);
    expect(names.get("http\nfetch")).toBe("mcp.http.fetch");
    expect(names.get("calc\nadd")).toBe("calc.add");
    expect([...mcpReservedServerNames()]).toEqual(
      expect.arrayContaining(["http", "memory", "clock", "fs", "agent", "mcp"]),
    );
    expect(mcpReservedServerNames().has("calc")).toBe(false);
  });

  it("renames, never drops, tools whose names clash: within a server, across servers as the provider sees them, and with a name taken", () => {
    const names = mcpToolNames(
      [
        { serverId: "a", serverName: "a", tools: ["listPrs", "list_prs", "b__c"] },
        { serverId: "a__b", serverName: "a__b", tools: ["c"] },
        { serverId: "gh", serverName: "gh", tools: ["search", "other"] },
      ],
      (providerName) => providerName === "gh__search",
    );
    expect(names.get("a\nlistPrs")).toBe("a.list_prs");
    expect(names.get("a\nlist_prs")).toBe("mcp.a.list_prs");
    expect(names.get("a\nb__c")).toBe("a.b__c");
    // "a__b.c" is "a__b__c" to the provider, as "a.b__c" is.
    expect(names.get("a__b\nc")).toBe("mcp.a__b.c");
    expect(names.get("gh\nsearch")).toBe("mcp.gh.search");
    expect(names.get("gh\nother")).toBe("gh.other");
    expect(new Set(names.values()).size).toBe(names.size);
  });

  it("refuses a server named like a built-in tool namespace (400 naming the field), and connects the same server under another name", async () => {
    const agent = await createAgent({ runtime: { allowHosts: [mcpHost] } });
    const url = `${mcpUrl}?tenant=${uniqueName("tenant")}`;
    for (const name of ["http", "memory", "mcp"]) {
      const { res, body } = await connect(agent.name, { name, url });
      expect(res.status).toBe(400);
      expect(body.error.message).toContain(`'${name}' is the namespace of Pantheon's built-in tools`);
      expect(body.error.details.issues[0].path).toEqual(["name"]);
    }
    const { res, body } = await connect(agent.name, { name: "calc", url });
    expect(res.status).toBe(201);
    expect(toolNames([body])).toEqual(["calc.add", "calc.echo"]);
  });
});

describe("an MCP tool whose name another tool of the agent has", () => {
  it("is offered as mcp.<server>.<tool> beside it, and each answers as itself", async () => {
    const agent = await createAgent({
      runtime: {
        allowHosts: [mcpHost],
        httpTools: [{ name: "calc.add", description: "The operator's own adder", endpoint: `${origin}/__hits` }],
      },
    });
    const tenant = uniqueName("tenant");
    await connect(agent.name, { name: "calc", url: `${mcpUrl}?tenant=${tenant}` });
    const tools = (await chat(agent.name, "/tools")).reply.content as string;
    expect(tools).toContain("- calc.add: The operator's own adder");
    expect(tools).toContain("- mcp.calc.add: Adds two numbers and answers their sum.");
    expect(tools).toContain("- calc.echo: Answers the text it was given.");
    const turn = await chat(agent.name, '/tool mcp.calc.add {"a":2,"b":3}');
    expect(turn.reply.content).toBe("The tool mcp.calc.add returned: 5");
  });
});

describe("an MCP server's tools/list_changed", () => {
  it("is picked up: the new tool is offered, the removed one is gone, and the next run's trace names both", async () => {
    const agent = await createAgent({ runtime: { allowHosts: [mcpHost] } });
    const tenant = uniqueName("tenant");
    await connect(agent.name, { name: "calc", url: `${origin}/mcp-changing?tenant=${tenant}` });
    const before = (await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any;
    expect(toolNames(before.servers)).toEqual(["calc.add", "calc.echo", "calc.swap"]);

    const swap = await chat(agent.name, "/tool calc.swap {}");
    expect(swap.reply.content).toBe("The tool calc.swap returned: swapped");
    // The client refetches the list when the notification arrives, after the call's reply: wait for it.
    let servers: any[] = before.servers;
    for (let i = 0; i < 100 && !toolNames(servers).includes("calc.mul"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      servers = ((await (await api(`/api/agents/${agent.name}/mcp`)).json()) as any).servers;
    }
    expect(toolNames(servers)).toEqual(["calc.add", "calc.mul", "calc.swap"]);

    const turn = await chat(agent.name, '/tool calc.mul {"a":6,"b":7}');
    expect(turn.reply.content).toBe("The tool calc.mul returned: 42");
    const steps = await trace(agent.name, turn.runId);
    expect(steps.find((s) => s.name === "mcp_tools_changed")?.data).toEqual({
      server: "calc",
      added: ["calc.mul"],
      removed: ["calc.echo"],
    });
    // Told once: the run after does not repeat it; the swap's own run had no change to tell.
    const next = await chat(agent.name, "/tools");
    expect((await trace(agent.name, next.runId)).some((s) => s.name === "mcp_tools_changed")).toBe(false);
    expect((await trace(agent.name, swap.runId)).some((s) => s.name === "mcp_tools_changed")).toBe(false);
    expect(next.reply.content).not.toContain("calc.echo");
  });
});

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mcpTestBearer } from "../doubles/mcp-bearer";
import { tenant } from "../secrets/helpers";

// A project declares an MCP server for all its agents (POST /api/projects/:slug/mcp): each agent of
// the project connects it with its own client, its header's secret read from the project.

const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;
const mcpHost = new URL(mcpUrl).hostname;
/** The test server's endpoint that wants `Authorization: Bearer <mcpTestBearer>` (test/doubles/mcp-server.ts). */
const bearerUrl = `${new URL(mcpUrl).origin}/mcp-bearer`;
const authorization = { Authorization: { secret: "DOCS_MCP_TOKEN", prefix: "Bearer " } };

/** A project with the token as its secret and an agent `helper` allowed to reach the test server. */
async function project(prefix = "mcpproj") {
  const t = await tenant(prefix);
  expect((await t.setSecret("DOCS_MCP_TOKEN", mcpTestBearer)).status).toBe(200);
  const made = await t.call("/api/agents", {
    method: "POST",
    json: { name: "helper", runtime: { allowHosts: [mcpHost] } },
  });
  expect(made.status).toBe(201);
  const declare = (json: Record<string, unknown>) => t.call(`/api/projects/${t.slug}/mcp`, { method: "POST", json });
  const servers = async (agent = "helper") =>
    JSON.parse(await (await t.call(`/api/agents/${agent}/mcp`)).text()).servers as any[];
  const chat = async (content: string, agent = "helper") =>
    (await (await t.call(`/api/agents/${agent}/messages`, { method: "POST", json: { content } })).json()) as any;
  return { ...t, declare, servers, chat };
}

describe("an MCP server the project declares for all its agents", () => {
  it("every agent of the project uses it (one made later too); the token is in no listing, trace, snapshot or export", async () => {
    const p = await project();
    const declared = await p.declare({ name: "docs", url: bearerUrl, headers: authorization });
    expect(declared.status, await declared.clone().text()).toBe(201);
    const made = await p.call("/api/agents", {
      method: "POST",
      json: { name: "later", runtime: { allowHosts: [mcpHost] } },
    });
    expect(made.status).toBe(201);
    for (const agent of ["helper", "later"]) {
      const turn = await p.chat('/tool docs.add {"a":2,"b":3}', agent);
      expect(turn.reply.content).toBe("The tool docs.add returned: 5");
      const [server] = await p.servers(agent);
      expect(server).toMatchObject({ id: "docs", state: "ready", project: true, headers: authorization });
    }
    const turn = await p.chat("/tool docs.whoami {}");
    const trace = await (await p.call(`/api/agents/helper/runs/${turn.runId}`)).text();
    // The control: the server echoed the header it was sent, and the trace has it redacted.
    expect(trace).toContain("you sent: Bearer ");
    for (const path of [
      `/api/agents/helper/runs/${turn.runId}`,
      "/api/agents/helper/mcp",
      `/api/projects/${p.slug}/mcp`,
      "/api/agents/helper/snapshot",
      `/api/projects/${p.slug}/export`,
    ])
      expect(await (await p.call(path)).text(), path).not.toContain(mcpTestBearer);
    expect(await (await p.call(`/api/projects/${p.slug}/mcp`)).json()).toMatchObject({
      servers: [{ name: "docs", url: bearerUrl, headers: authorization }],
    });
  });

  it("an agent of another project never has it, even with the same secret name set (the control: the declaring project's agent does)", async () => {
    const a = await project();
    const b = await project("mcpother");
    expect((await a.declare({ name: "docs", url: bearerUrl, headers: authorization })).status).toBe(201);
    expect((await a.chat('/tool docs.add {"a":1,"b":1}')).reply.content).toBe("The tool docs.add returned: 2");
    expect(await b.servers()).toEqual([]);
    expect((await b.chat('/tool docs.add {"a":1,"b":1}')).reply.content).toContain(
      "I was not given a tool named docs.add",
    );
    // Nor can b's token reach a's declarations.
    const reach = await b.call(`/api/projects/${a.slug}/mcp`);
    expect(reach.status).toBe(403);
  });

  it("an agent's own server of the same name wins, and the project's cannot be removed on the agent", async () => {
    const p = await project();
    expect((await p.declare({ name: "docs", url: bearerUrl, headers: authorization })).status).toBe(201);
    expect((await p.servers())[0]).toMatchObject({ id: "docs", project: true });
    // Removing the project's server on the agent is refused, naming where it is removed.
    const refused = await p.call("/api/agents/helper/mcp/docs", { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as any).error.message).toContain("pantheon mcp remove --project-wide docs");
    // The agent's own "docs" (the open test server, whose tools differ) replaces it for this agent.
    const own = await p.call("/api/agents/helper/mcp", { method: "POST", json: { name: "docs", url: mcpUrl } });
    expect(own.status, await own.clone().text()).toBe(201);
    const [server] = await p.servers();
    expect(server.url).toBe(new URL(mcpUrl).href);
    expect(server.project).toBeUndefined();
    expect((await p.chat("/tool docs.whoami {}")).reply.content).toContain("I was not given a tool named docs.whoami");
    // Its own is removed like any of its own (the control of the refusal above).
    expect((await p.call("/api/agents/helper/mcp/docs", { method: "DELETE" })).status).toBe(204);
  });

  it("removed from the project, it leaves every agent before its next turn", async () => {
    const p = await project();
    expect((await p.declare({ name: "docs", url: bearerUrl, headers: authorization })).status).toBe(201);
    expect((await p.chat('/tool docs.add {"a":1,"b":2}')).reply.content).toBe("The tool docs.add returned: 3");
    expect((await p.call(`/api/projects/${p.slug}/mcp/docs`, { method: "DELETE" })).status).toBe(204);
    expect((await p.chat('/tool docs.add {"a":1,"b":2}')).reply.content).toContain(
      "I was not given a tool named docs.add",
    );
    expect(await p.servers()).toEqual([]);
    const again = await p.call(`/api/projects/${p.slug}/mcp/docs`, { method: "DELETE" });
    expect(again.status).toBe(404);
  });

  it("refuses a secret the project lacks and a built-in's name, naming the field (the control: a good one is declared)", async () => {
    const p = await project();
    const missing = await p.declare({
      name: "docs",
      url: bearerUrl,
      headers: { Authorization: { secret: "NO_SUCH_TOKEN", prefix: "Bearer " } },
    });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toContain("Authorization");
    const reserved = await p.declare({ name: "memory", url: bearerUrl, headers: authorization });
    expect(reserved.status).toBe(400);
    expect(((await reserved.json()) as any).error.message).toContain("'memory' is a built-in tool namespace");
    expect((await (await p.call(`/api/projects/${p.slug}/mcp`)).json()) as any).toMatchObject({ servers: [] });
    expect((await p.declare({ name: "docs", url: bearerUrl, headers: authorization })).status).toBe(201);
  });
});

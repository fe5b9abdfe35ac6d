import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mcpTestBearer } from "../doubles/mcp-bearer";
import { tenant } from "../secrets/helpers";

// The project file carries the project's MCP servers (declarations, no token): exported from one
// project and imported into another, whose agents then use the server.

const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;
const mcpHost = new URL(mcpUrl).hostname;
const bearerUrl = `${new URL(mcpUrl).origin}/mcp-bearer`;
const authorization = { Authorization: { secret: "DOCS_MCP_TOKEN", prefix: "Bearer " } };

async function project(prefix: string) {
  const t = await tenant(prefix);
  expect((await t.setSecret("DOCS_MCP_TOKEN", mcpTestBearer)).status).toBe(200);
  const chat = async (content: string, agent = "helper") =>
    (await (await t.call(`/api/agents/${agent}/messages`, { method: "POST", json: { content } })).json()) as any;
  return { ...t, chat };
}

describe("a project file's MCP servers", () => {
  it("are exported as declarations (the secret by name) and imported into another project, whose agents use them", async () => {
    const a = await project("mcpfilea");
    const made = await a.call("/api/agents", {
      method: "POST",
      json: { name: "helper", runtime: { allowHosts: [mcpHost] } },
    });
    expect(made.status).toBe(201);
    const declared = await a.call(`/api/projects/${a.slug}/mcp`, {
      method: "POST",
      json: { name: "docs", url: bearerUrl, headers: authorization },
    });
    expect(declared.status).toBe(201);
    const exported = await a.call(`/api/projects/${a.slug}/export`);
    const text = await exported.text();
    expect(text).not.toContain(mcpTestBearer);
    const file = JSON.parse(text);
    expect(file.mcpServers).toEqual({ docs: { url: bearerUrl, headers: authorization } });

    const b = await project("mcpfileb");
    // Before the import, b's agent has no such tool (the control for the import's effect).
    const imported = await b.call(`/api/projects/${b.slug}/import`, { method: "POST", json: file });
    expect(imported.status, await imported.clone().text()).toBe(200);
    expect(await (await b.call(`/api/projects/${b.slug}/mcp`)).json()).toMatchObject({
      servers: [{ name: "docs", url: bearerUrl, headers: authorization }],
    });
    const turn = await b.chat('/tool docs.add {"a":2,"b":5}');
    expect(turn.reply.content).toBe("The tool docs.add returned: 7");
    // The same file again changes nothing.
    const again = await b.call(`/api/projects/${b.slug}/import`, { method: "POST", json: file });
    expect(((await again.json()) as { changed: boolean }).changed).toBe(false);
  });

  it("a bad declaration is refused at its path, nothing kept (the control: a good one imports)", async () => {
    const p = await project("mcpfilebad");
    const bad = await p.call(`/api/projects/${p.slug}/import`, {
      method: "POST",
      json: {
        agents: {},
        mcpServers: { docs: { url: "ftp://example.com/mcp" }, http: { url: bearerUrl } },
      },
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toEqual([
      { path: "$.mcpServers.docs.url", message: "an http:// or https:// URL of an MCP server" },
      { path: "$.mcpServers.http", message: "a built-in tool namespace; an MCP server may not take it" },
    ]);
    expect(await (await p.call(`/api/projects/${p.slug}/mcp`)).json()).toMatchObject({ servers: [] });
    const good = await p.call(`/api/projects/${p.slug}/import`, {
      method: "POST",
      json: { agents: {}, mcpServers: { docs: { url: bearerUrl, oauth: true } } },
    });
    expect(good.status, await good.clone().text()).toBe(200);
    expect(await (await p.call(`/api/projects/${p.slug}/mcp`)).json()).toMatchObject({
      servers: [{ name: "docs", url: bearerUrl, oauth: true, authorisation: { state: "authenticating" } }],
    });
  });
});

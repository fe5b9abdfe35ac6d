import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mcpTestBearer } from "../doubles/mcp-bearer";
import type { ErrorBody } from "../api/client";
import { tenant } from "../secrets/helpers";

const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;
const mcpHost = new URL(mcpUrl).hostname;
/** The test server's endpoint that wants `Authorization: Bearer <mcpTestBearer>` (test/doubles/mcp-server.ts). */
const bearerUrl = `${new URL(mcpUrl).origin}/mcp-bearer`;
const authorization = { Authorization: { secret: "DOCS_MCP_TOKEN", prefix: "Bearer " } };

/** A project with the token set as its secret, and an agent of it allowed to reach the test server. */
async function projectWithToken(value = mcpTestBearer) {
  const t = await tenant("mcpcred");
  expect((await t.setSecret("DOCS_MCP_TOKEN", value)).status).toBe(200);
  const res = await t.call("/api/agents", {
    method: "POST",
    json: { name: "helper", runtime: { allowHosts: [mcpHost] } },
  });
  expect(res.status).toBe(201);
  const connect = async (json: Record<string, unknown>) => {
    const r = await t.call("/api/agents/helper/mcp", { method: "POST", json });
    return { res: r, text: await r.text() };
  };
  const chat = async (content: string) =>
    (await (await t.call("/api/agents/helper/messages", { method: "POST", json: { content } })).json()) as any;
  return { ...t, connect, chat };
}

describe("MCP servers that want credentials", () => {
  it("sends a header whose value is a project secret, and lists the secret's name only", async () => {
    const p = await projectWithToken();
    const { res, text } = await p.connect({ name: "docs", url: bearerUrl, headers: authorization });
    expect(res.status).toBe(201);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ id: "docs", state: "ready", headers: authorization });
    expect(body.tools.map((t: any) => t.name).sort()).toEqual(["docs.add", "docs.echo", "docs.whoami"]);
    expect(text).not.toContain(mcpTestBearer);

    const listed = await (await p.call("/api/agents/helper/mcp")).text();
    expect(JSON.parse(listed).servers[0]).toMatchObject({ id: "docs", state: "ready", headers: authorization });
    expect(listed).not.toContain(mcpTestBearer);

    const turn = await p.chat('/tool docs.add {"a":2,"b":3}');
    expect(turn.reply.content).toBe("The tool docs.add returned: 5");
  });

  it("refuses the server without the header or with a wrong token (the control: the right token connects)", async () => {
    const p = await projectWithToken("not-the-token");
    const none = await p.connect({ name: "docs", url: bearerUrl });
    expect(none.res.status).toBe(502);
    expect(JSON.parse(none.text).error.message).toMatch(/^could not connect to the MCP server at .*mcp-bearer: /);
    const wrong = await p.connect({ name: "docs", url: bearerUrl, headers: authorization });
    expect(wrong.res.status).toBe(502);
    expect(wrong.text).not.toContain("not-the-token");
    expect(JSON.parse(await (await p.call("/api/agents/helper/mcp")).text()).servers).toEqual([]);

    expect((await p.setSecret("DOCS_MCP_TOKEN", mcpTestBearer)).status).toBe(200);
    expect((await p.connect({ name: "docs", url: bearerUrl, headers: authorization })).res.status).toBe(201);
  });

  it("answers 400 naming the header when the project lacks the secret or names a model key", async () => {
    const p = await projectWithToken();
    const missing = await p.connect({
      name: "docs",
      url: bearerUrl,
      headers: { Authorization: { secret: "NO_SUCH_TOKEN", prefix: "Bearer " } },
    });
    expect(missing.res.status).toBe(400);
    const issue = (JSON.parse(missing.text) as ErrorBody).error.details?.issues?.[0];
    expect(issue?.path).toEqual(["headers", "Authorization", "secret"]);
    expect(issue?.message).toContain(`no secret 'NO_SUCH_TOKEN' in project '${p.slug}'`);

    const model = await p.connect({ name: "docs", url: bearerUrl, headers: { "X-Key": { secret: "OPENAI_API_KEY" } } });
    expect(model.res.status).toBe(400);
    expect((JSON.parse(model.text) as ErrorBody).error.message).toContain("model key and never reaches a tool");

    const reserved = await p.connect({ name: "docs", url: bearerUrl, headers: { "Mcp-Session-Id": "x" } });
    expect(reserved.res.status).toBe(400);
    expect((JSON.parse(reserved.text) as ErrorBody).error.details?.issues?.[0]?.path).toEqual([
      "headers",
      "Mcp-Session-Id",
    ]);
  });

  it("keeps the token out of the trace, the reply, the export and the snapshot, even when the server echoes it", async () => {
    const p = await projectWithToken();
    expect((await p.connect({ name: "docs", url: bearerUrl, headers: authorization })).res.status).toBe(201);
    const turn = await p.chat("/tool docs.whoami {}");
    expect(turn.status).toBe("completed");
    const trace = await (await p.call(`/api/agents/helper/runs/${turn.runId}`)).text();
    // The control: the tool did run and its echo reached the trace, redacted.
    expect(trace).toContain("you sent: Bearer ");
    expect(trace).not.toContain(mcpTestBearer);
    expect(JSON.stringify(turn)).not.toContain(mcpTestBearer);
    const history = await (await p.call("/api/agents/helper/messages")).text();
    expect(history).not.toContain(mcpTestBearer);
    const snapshot = await (await p.call("/api/agents/helper/snapshot")).text();
    expect(snapshot).toContain('"name":"helper"');
    expect(snapshot).not.toContain(mcpTestBearer);
    const exported = await (await p.call(`/api/projects/${p.slug}/export`)).text();
    expect(exported).toContain("helper");
    expect(exported).not.toContain(mcpTestBearer);
  });

  it("another project's agent cannot use the secret or the connection", async () => {
    const a = await projectWithToken();
    expect((await a.connect({ name: "docs", url: bearerUrl, headers: authorization })).res.status).toBe(201);
    const b = await tenant("mcpother");
    expect(
      (await b.call("/api/agents", { method: "POST", json: { name: "helper", runtime: { allowHosts: [mcpHost] } } }))
        .status,
    ).toBe(201);
    // The same agent name in another project has none of the first project's servers.
    expect(JSON.parse(await (await b.call("/api/agents/helper/mcp")).text()).servers).toEqual([]);
    const turn = (await (
      await b.call("/api/agents/helper/messages", { method: "POST", json: { content: "/tool docs.add {}" } })
    ).json()) as any;
    expect(turn.reply.content).toContain("I was not given a tool named docs.add");
    // Naming the first project's secret is a 400: project b has no such secret.
    const res = await b.call("/api/agents/helper/mcp", {
      method: "POST",
      json: { name: "docs", url: bearerUrl, headers: authorization },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(`no secret 'DOCS_MCP_TOKEN' in project '${b.slug}'`);
    // The first project's admin token cannot reach project b's agent.
    const foreign = await a.call("/api/agents/helper/mcp", { headers: { "x-pantheon-project": b.slug } });
    expect([401, 403]).toContain(foreign.status);
  });

  it("a replaced secret is the one the next request carries; a deleted one fails the server by name", async () => {
    const p = await projectWithToken();
    expect((await p.connect({ name: "docs", url: bearerUrl, headers: authorization })).res.status).toBe(201);
    expect((await p.setSecret("DOCS_MCP_TOKEN", "a-revoked-token")).status).toBe(200);
    const refused = await p.chat('/tool docs.add {"a":1,"b":1}');
    expect(JSON.stringify(refused)).not.toContain("a-revoked-token");
    expect(refused.reply.content).toContain("invalid_token");
    expect((await p.setSecret("DOCS_MCP_TOKEN", mcpTestBearer)).status).toBe(200);
    const turn = await p.chat('/tool docs.add {"a":1,"b":1}');
    expect(turn.reply.content).toBe("The tool docs.add returned: 2");

    expect((await p.call(`/api/projects/${p.slug}/secrets/DOCS_MCP_TOKEN`, { method: "DELETE" })).status).toBe(204);
    const gone = await p.chat('/tool docs.add {"a":1,"b":1}');
    expect(gone.reply.content).toContain(
      `header Authorization names secret 'DOCS_MCP_TOKEN', which project '${p.slug}' no longer has`,
    );
  });
});

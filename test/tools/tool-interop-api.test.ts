import { describe, expect, it } from "vitest";
import { api, createAgent } from "../api/client";
import anthropicTools from "./fixtures/anthropic-tools.json";
import githubList from "./fixtures/mcp-github.tools-list.json";
import openaiTools from "./fixtures/openai-function-tools.json";

const importTools = (agent: string, json: unknown, token?: string) =>
  api(`/api/agents/${agent}/tools/import`, { method: "POST", json, ...(token ? { token } : {}) });

describe("GET /api/agents/:name/tools?format=", () => {
  it("answers the agent's tools as MCP manifests, OpenAI function tools or Anthropic tools", async () => {
    const { name } = await createAgent({ runtime: { tools: ["clock.now"] } });
    const mcp = (await (await api(`/api/agents/${name}/tools?format=mcp`)).json()) as any;
    expect(mcp.format).toBe("mcp");
    expect(mcp.tools.find((t: any) => t.name === "clock.now")).toMatchObject({
      name: "clock.now",
      inputSchema: { type: "object" },
      _meta: { "pantheon/tool": { runtime: "builtin" } },
    });
    const openai = (await (await api(`/api/agents/${name}/tools?format=openai`)).json()) as any;
    expect(openai.tools.find((t: any) => t.function.name === "clock__now")).toMatchObject({
      type: "function",
      function: { name: "clock__now", parameters: { type: "object" } },
    });
    const anthropic = (await (await api(`/api/agents/${name}/tools?format=anthropic`)).json()) as any;
    expect(anthropic.tools.find((t: any) => t.name === "clock__now")).toMatchObject({
      input_schema: { type: "object" },
    });
    // Without a format, Pantheon's own list as before.
    const own = (await (await api(`/api/agents/${name}/tools`)).json()) as any;
    expect(own.format).toBeUndefined();
    expect(own.tools.find((t: any) => t.name === "clock.now")).toMatchObject({ runtime: "builtin" });
    const bad = await api(`/api/agents/${name}/tools?format=yaml`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details.issues[0]).toEqual({
      path: ["format"],
      message: "one of mcp, openai, anthropic",
    });
  });
});

describe("POST /api/agents/:name/tools/import", () => {
  it("a tool with an endpoint becomes an HTTP tool; one without is declared with a warning; both round-trip back out", async () => {
    const { name } = await createAgent({ runtime: { tools: ["clock.now"], allowHosts: ["weather.example.com"] } });
    const [weather] = openaiTools.chatCompletions;
    const res = await importTools(name, {
      format: "openai",
      tools: [
        { ...weather, endpoint: "https://weather.example.com/now" },
        {
          type: "function",
          function: {
            name: "lookup_order",
            description: "Find an order",
            parameters: { type: "object", properties: { id: { type: "string" } } },
          },
        },
      ],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.imported).toEqual([
      { name: "get_weather", runtime: "http" },
      { name: "lookup_order", runtime: "declared" },
    ]);
    expect(body.warnings).toEqual([
      { path: "$.tools[0].strict", message: "an HTTP tool keeps no 'strict'; left out" },
      { path: "$.tools[1]", message: expect.stringMatching(/^'lookup_order' has no endpoint: declared by name only/) },
    ]);
    const agent = (await (await api(`/api/agents/${name}`)).json()) as any;
    expect(agent.runtime.httpTools).toEqual([
      expect.objectContaining({
        name: "get_weather",
        endpoint: "https://weather.example.com/now",
        description: weather!.function.description,
        parameters: weather!.function.parameters,
      }),
    ]);
    expect(agent.runtime.tools).toEqual(["clock.now", "lookup_order"]);
    // The HTTP tool is one of the agent's tools now, and comes back out in OpenAI's shape.
    const out = (await (await api(`/api/agents/${name}/tools?format=openai`)).json()) as any;
    expect(out.tools.find((t: any) => t.function.name === "get_weather").function).toEqual({
      name: "get_weather",
      description: weather!.function.description,
      parameters: weather!.function.parameters,
    });
    // A second import changes nothing more.
    expect(
      (
        await importTools(name, {
          format: "openai",
          tools: [{ ...weather, endpoint: "https://weather.example.com/now" }],
        })
      ).status,
    ).toBe(200);
    const again = (await (await api(`/api/agents/${name}`)).json()) as any;
    expect(again.runtime.httpTools).toHaveLength(1);
  });

  it("reads an MCP tools/list result and Anthropic tools (server tools skipped with a warning)", async () => {
    const { name } = await createAgent();
    const mcp = (await (await importTools(name, { format: "mcp", tools: githubList })).json()) as any;
    expect(mcp.imported.map((t: any) => t.name)).toEqual(["get_file_contents", "create_issue", "search_repositories"]);
    const anthropic = (await (await importTools(name, { format: "anthropic", tools: anthropicTools })).json()) as any;
    expect(anthropic.imported).toEqual([
      { name: "get_weather", runtime: "declared" },
      { name: "get_time", runtime: "declared" },
    ]);
    expect(anthropic.warnings).toContainEqual({
      path: "$.tools[2].type",
      message: "Anthropic's 'web_search_20250305' tool runs on Anthropic's side, not a tool with a schema; skipped",
    });
  });

  it("refuses an endpoint outside the agent's allowHosts, naming the host, and a list it cannot read, naming each path; nothing changes", async () => {
    const { name } = await createAgent({ runtime: { tools: ["clock.now"] } });
    const outside = await importTools(name, {
      format: "anthropic",
      tools: [{ name: "leak", input_schema: { type: "object" }, endpoint: "https://evil.example.com/x" }],
    });
    expect(outside.status).toBe(400);
    expect(((await outside.json()) as any).error.message).toMatch(/evil\.example\.com/);
    const metadata = await importTools(name, {
      format: "anthropic",
      tools: [{ name: "meta", input_schema: { type: "object" }, endpoint: "http://169.254.169.254/latest" }],
    });
    expect(metadata.status).toBe(400);
    const bad = await importTools(name, { format: "mcp", tools: { tools: [{ name: "x" }] } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details.issues).toEqual([
      { path: "$.tools.tools[0].inputSchema", message: expect.any(String) },
    ]);
    expect((await importTools(name, { format: "xml", tools: [] })).status).toBe(400);
    const agent = (await (await api(`/api/agents/${name}`)).json()) as any;
    expect(agent.runtime).toMatchObject({ tools: ["clock.now"], httpTools: [] });
  });

  it("a chat token may list tools in a format but not import them", async () => {
    const { name } = await createAgent();
    const token = (
      (await (await api("/api/tokens", { method: "POST", json: { name: "phone", scope: "chat" } })).json()) as any
    ).token;
    expect((await api(`/api/agents/${name}/tools?format=mcp`, { token })).status).toBe(200);
    const refused = await importTools(name, { format: "anthropic", tools: anthropicTools }, token);
    expect(refused.status).toBe(403);
  });
});

import { describe, expect, it } from "vitest";
import { exportTools, fromMcpTool, importTools, toMcpTool, type ToolSpec } from "../../core/tools";
import anthropicTools from "./fixtures/anthropic-tools.json";
import fetchList from "./fixtures/mcp-fetch.tools-list.json";
import filesystemList from "./fixtures/mcp-filesystem.tools-list.json";
import githubList from "./fixtures/mcp-github.tools-list.json";
import openaiTools from "./fixtures/openai-function-tools.json";

/** Reads `payload` in `format`, failing the test on any issue. */
function read(format: "mcp" | "openai" | "anthropic", payload: unknown) {
  const result = importTools(format, payload);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result;
}

const specsOf = (format: "mcp" | "openai" | "anthropic", payload: unknown) =>
  read(format, payload).tools.map((t) => t.spec);

describe("published MCP servers' tool lists round-trip through ToolSpec", () => {
  for (const [server, list, tools] of [
    ["filesystem", filesystemList, filesystemList.tools],
    ["fetch (a JSON-RPC tools/list response)", fetchList, fetchList.result.tools],
    ["github", githubList, githubList.tools],
  ] as const) {
    it(`${server}: MCP → ToolSpec → MCP is lossless, with no warning`, () => {
      const { tools: imported, warnings } = read("mcp", list);
      expect(warnings).toEqual([]);
      const back = exportTools(
        imported.map((t) => t.spec),
        "mcp",
      );
      expect(back.warnings).toEqual([]);
      expect(back.tools).toEqual(tools);
    });

    it(`${server}: through OpenAI and Anthropic the name, description and schema survive, and each loss is named`, () => {
      const specs = specsOf("mcp", list);
      for (const format of ["openai", "anthropic"] as const) {
        const out = exportTools(specs, format);
        const again = specsOf(format, out.tools);
        expect(again.map(({ name, description, parameters }) => ({ name, description, parameters }))).toEqual(
          specs.map(({ name, description, parameters }) => ({ name, description, parameters })),
        );
        // Every MCP field the format cannot hold is named in a warning at its tool.
        specs.forEach((spec, i) => {
          for (const field of ["title", "outputSchema", "annotations"] as const) {
            if (spec[field] === undefined) continue;
            expect(out.warnings, `${spec.name}.${field} in ${format}`).toContainEqual({
              path: `$[${i}].${field}`,
              message: expect.stringContaining(`${spec.name}: `),
            });
          }
        });
      }
    });
  }

  it("keeps what Pantheon acts on: read-only and idempotent hints make a tool safe to repeat", () => {
    const specs = specsOf("mcp", filesystemList);
    expect(specs.find((s) => s.name === "read_text_file")?.idempotent).toBe(true);
    expect(specs.find((s) => s.name === "write_file")?.idempotent).toBe(true);
    expect(specs.find((s) => s.name === "edit_file")?.idempotent).toBeUndefined();
    const openai = exportTools(specs, "openai");
    expect(openai.warnings.find((w) => w.path === "$[0].annotations")?.message).toBe(
      "read_text_file: OpenAI function tools have no place for MCP annotations (readOnlyHint); left out",
    );
    expect(openai.warnings.find((w) => w.path === "$[0].outputSchema")?.message).toBe(
      "read_text_file: OpenAI function tools have no place for an output schema (MCP outputSchema); left out",
    );
  });
});

describe("the OpenAI and Anthropic docs' examples round-trip", () => {
  it("OpenAI Chat Completions function tools, strict mode included, come back as they were", () => {
    const { tools, warnings } = read("openai", openaiTools.chatCompletions);
    expect(warnings).toEqual([]);
    expect(tools[0]!.spec).toMatchObject({ name: "get_weather", strict: true });
    expect(
      exportTools(
        tools.map((t) => t.spec),
        "openai",
      ),
    ).toEqual({ tools: openaiTools.chatCompletions, warnings: [] });
  });

  it("the Responses API's flat function tools are read too; OpenAI's hosted tools are skipped with a warning", () => {
    const { tools, warnings } = read("openai", openaiTools.responses);
    expect(tools).toHaveLength(1);
    expect(warnings).toEqual([
      { path: "$[1].type", message: "OpenAI's 'web_search_preview' tool is hosted by OpenAI, not a function; skipped" },
    ]);
    const flat = openaiTools.responses[0]!;
    expect(exportTools([tools[0]!.spec], "openai").tools).toEqual([
      {
        type: "function",
        function: { name: flat.name, description: flat.description, parameters: flat.parameters, strict: true },
      },
    ]);
  });

  it("Anthropic tools come back as they were; cache_control and server tools are named", () => {
    const { tools, warnings } = read("anthropic", anthropicTools);
    expect(tools.map((t) => t.spec.name)).toEqual(["get_weather", "get_time"]);
    expect(warnings).toEqual([
      { path: "$[1].cache_control", message: "'cache_control' is not kept" },
      {
        path: "$[2].type",
        message: "Anthropic's 'web_search_20250305' tool runs on Anthropic's side, not a tool with a schema; skipped",
      },
    ]);
    expect(
      exportTools(
        tools.map((t) => t.spec),
        "anthropic",
      ).tools,
    ).toEqual(
      [anthropicTools[0], { ...anthropicTools[1], cache_control: undefined }].map((t) => JSON.parse(JSON.stringify(t))),
    );
  });

  it("OpenAI → ToolSpec → Anthropic → ToolSpec → OpenAI keeps the weather tool; strict is named as lost in Anthropic", () => {
    const specs = specsOf("openai", openaiTools.chatCompletions);
    const anthropic = exportTools(specs, "anthropic");
    expect(anthropic.warnings).toEqual([
      { path: "$[0].strict", message: "get_weather: Anthropic tools have no place for OpenAI's 'strict'; left out" },
    ]);
    const back = exportTools(specsOf("anthropic", anthropic.tools), "openai").tools as any[];
    const { strict: _, ...fn } = openaiTools.chatCompletions[0]!.function;
    expect(back).toEqual([{ type: "function", function: fn }]);
  });
});

describe("ToolSpec → MCP → ToolSpec", () => {
  it("is lossless for every ToolSpec field: Pantheon's own travel under _meta", () => {
    const spec: ToolSpec = {
      name: "airtable.query",
      title: "Query Airtable",
      description: "Query a base",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      runtime: "http",
      requiresApproval: true,
      timeoutMs: 5000,
      idempotent: true,
      strict: false,
      outputSchema: { type: "object" },
    };
    const manifest = toMcpTool(spec);
    expect(manifest.annotations).toEqual({ idempotentHint: true });
    expect(manifest._meta).toEqual({
      "pantheon/tool": { runtime: "http", requiresApproval: true, timeoutMs: 5000, strict: false },
    });
    expect(fromMcpTool(manifest)).toEqual(spec);
  });

  it("dotted names travel as __ in OpenAI and Anthropic and come back dotted", () => {
    const spec: ToolSpec = {
      name: "clock.now",
      description: "Now",
      parameters: { type: "object", properties: {} },
      runtime: "builtin",
    };
    for (const format of ["openai", "anthropic"] as const)
      expect(specsOf(format, exportTools([spec], format).tools)[0]!.name).toBe("clock.now");
  });
});

describe("reading foreign tool lists", () => {
  it("a tool with an endpoint says so; names Pantheon cannot use are renamed with a warning", () => {
    const result = read("openai", [
      {
        type: "function",
        function: { name: "getWeather", parameters: { type: "object" } },
        endpoint: "https://weather.example.com/now",
      },
    ]);
    expect(result.tools[0]).toMatchObject({
      spec: { name: "getweather" },
      endpoint: "https://weather.example.com/now",
    });
    expect(result.warnings).toEqual([
      {
        path: "$[0].name",
        message:
          "'getWeather' is named 'getweather' in Pantheon (tool names are lower-case words joined by '.', '_' or '-')",
      },
    ]);
  });

  it("refuses a list it cannot read, naming each problem's path", () => {
    const bad = importTools("mcp", {
      tools: [{ name: "ok", inputSchema: {} }, { name: "", inputSchema: 3 }, { description: "no name" }],
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        "$.tools[1].name",
        "$.tools[1].inputSchema",
        "$.tools[2].name",
        "$.tools[2].inputSchema",
      ]),
    );
    expect(importTools("anthropic", { nope: 1 })).toEqual({
      ok: false,
      issues: [{ path: "$", message: "an array of Anthropic tools" }],
    });
    const twice = importTools("anthropic", [
      { name: "a", input_schema: {} },
      { name: "a", input_schema: {} },
    ]);
    expect(twice).toEqual({ ok: false, issues: [{ path: "$[1].name", message: "a second tool named 'a'" }] });
  });
});

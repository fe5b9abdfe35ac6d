import { describe, expect, it } from "vitest";
import {
  decodeToolName,
  encodeToolName,
  fromAnthropicTool,
  fromMcpTool,
  fromOpenAITool,
  makeToolNameCodec,
  toAnthropicTool,
  toMcpTool,
  toModelTool,
  toOpenAITool,
  toolSpecSchema,
  type ToolSpec,
} from "../../core/tools";

const spec: ToolSpec = {
  name: "github.list_prs",
  description: "List open pull requests",
  parameters: { type: "object", properties: { repo: { type: "string" } }, required: ["repo"] },
  runtime: "builtin",
};

describe("tool converters", () => {
  it("round-trips a tool through an MCP manifest, keeping the dotted name", () => {
    const manifest = toMcpTool(spec);
    expect(manifest).toEqual({
      name: "github.list_prs",
      description: spec.description,
      inputSchema: spec.parameters,
      _meta: { "pantheon/tool": { runtime: "builtin" } },
    });
    expect(fromMcpTool(manifest, "builtin")).toEqual(spec);
  });

  it("round-trips a tool through an OpenAI function tool with a provider-safe name", () => {
    const tool = toOpenAITool(spec);
    expect(tool).toEqual({
      type: "function",
      function: { name: "github__list_prs", description: spec.description, parameters: spec.parameters },
    });
    expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(fromOpenAITool(tool)).toEqual(spec);
  });

  it("round-trips a tool through an Anthropic tool with a provider-safe name", () => {
    const tool = toAnthropicTool(spec);
    expect(tool).toEqual({ name: "github__list_prs", description: spec.description, input_schema: spec.parameters });
    expect(fromAnthropicTool(tool)).toEqual(spec);
  });

  it("gives the model port the declared name, description and schema", () => {
    expect(toModelTool(spec)).toEqual({
      name: "github.list_prs",
      description: spec.description,
      parameters: spec.parameters,
    });
  });

  it("encodes clock.now as clock__now and back", () => {
    expect(encodeToolName("clock.now")).toBe("clock__now");
    expect(decodeToolName("clock__now")).toBe("clock.now");
    expect(decodeToolName(encodeToolName("a.b.c-d"))).toBe("a.b.c-d");
  });

  it("resolves provider names exactly against the declared tools, and refuses two tools that would clash", () => {
    const codec = makeToolNameCodec([{ name: "ask_bob" }, { name: "clock.now" }]);
    expect(codec.decode("ask_bob")).toBe("ask_bob");
    expect(codec.decode("clock__now")).toBe("clock.now");
    expect(codec.decode("nope")).toBeUndefined();
    expect(() => makeToolNameCodec([{ name: "a.b" }, { name: "a__b" }])).toThrow(/same provider name/);
  });

  it("produces specs that pass the ToolSpec schema", () => {
    expect(toolSpecSchema.safeParse(fromOpenAITool(toOpenAITool(spec))).success).toBe(true);
  });
});

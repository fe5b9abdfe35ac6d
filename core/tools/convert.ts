import type { ModelTool } from "../ports";
import { decodeToolName, encodeToolName } from "./names";
import type { ToolRuntime, ToolSpec } from "./tool-spec";

/** MCP `tools/list` entry. MCP allows dots in names, so the name is kept as is. */
export interface McpToolManifest {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /** MCP's behaviour hints; read-only or idempotent tools are safe to repeat after a restart. */
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean; [hint: string]: unknown };
}

export interface OpenAIFunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** What every converter needs of a tool: a ToolSpec or a ModelTool both fit. */
type ToolLike = Pick<ToolSpec, "name" | "description" | "parameters">;

const emptyObjectSchema = (): Record<string, unknown> => ({ type: "object", properties: {} });

/**
 * The tool as the model port sees it (canonical name; adapters encode it for their provider).
 * @example
 * toModelTool(spec); // { name: "clock.now", description: "...", parameters: {...} }
 */
export function toModelTool(spec: ToolLike): ModelTool {
  return { name: spec.name, description: spec.description, parameters: spec.parameters };
}

/**
 * @example
 * toMcpTool(spec); // { name: "clock.now", description, inputSchema }
 */
export function toMcpTool(spec: ToolLike): McpToolManifest {
  return { name: spec.name, description: spec.description, inputSchema: spec.parameters };
}

export function fromMcpTool(tool: McpToolManifest, runtime: ToolRuntime = "mcp"): ToolSpec {
  const repeatable = tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true;
  return { name: tool.name, description: tool.description ?? "", parameters: tool.inputSchema ?? emptyObjectSchema(), runtime, ...(repeatable ? { idempotent: true } : {}) };
}

/**
 * @example
 * toOpenAITool(spec); // { type: "function", function: { name: "clock__now", description, parameters } }
 */
export function toOpenAITool(spec: ToolLike): OpenAIFunctionTool {
  return { type: "function", function: { name: encodeToolName(spec.name), description: spec.description, parameters: spec.parameters } };
}

export function fromOpenAITool(tool: OpenAIFunctionTool, runtime: ToolRuntime = "builtin"): ToolSpec {
  const fn = tool.function;
  return { name: decodeToolName(fn.name), description: fn.description ?? "", parameters: fn.parameters ?? emptyObjectSchema(), runtime };
}

/**
 * @example
 * toAnthropicTool(spec); // { name: "clock__now", description, input_schema }
 */
export function toAnthropicTool(spec: ToolLike): AnthropicTool {
  return { name: encodeToolName(spec.name), description: spec.description, input_schema: spec.parameters };
}

export function fromAnthropicTool(tool: AnthropicTool, runtime: ToolRuntime = "builtin"): ToolSpec {
  return { name: decodeToolName(tool.name), description: tool.description ?? "", parameters: tool.input_schema ?? emptyObjectSchema(), runtime };
}

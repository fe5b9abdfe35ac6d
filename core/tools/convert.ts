import type { ModelTool } from "../ports";
import { decodeToolName, encodeToolName } from "./names";
import type { ToolRuntime, ToolSpec } from "./tool-spec";

/** MCP's behaviour hints; read-only or idempotent tools are safe to repeat after a restart. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [hint: string]: unknown;
}

/** MCP `tools/list` entry. MCP allows dots in names, so the name is kept as is. */
export interface McpToolManifest {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: McpToolAnnotations;
  /** MCP's extension point: Pantheon's own fields travel under {@link pantheonMetaKey}. */
  _meta?: Record<string, unknown>;
}

/** Chat Completions' function tool. */
export interface OpenAIFunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

/** The `_meta` key of an MCP manifest that carries what only Pantheon knows of a tool. */
export const pantheonMetaKey = "pantheon/tool";

/** Pantheon's fields no MCP field holds. */
interface PantheonMeta {
  runtime?: ToolRuntime;
  requiresApproval?: boolean;
  timeoutMs?: number;
  strict?: boolean;
}

/** What every converter needs of a tool: a ToolSpec or a ModelTool both fit. */
type ToolLike = Pick<ToolSpec, "name" | "description" | "parameters"> &
  Partial<Omit<ToolSpec, "name" | "description" | "parameters">>;

const emptyObjectSchema = (): Record<string, unknown> => ({ type: "object", properties: {} });

/** `idempotent` says what these hints say: a tool with only this derived hint needs no annotations of its own. */
const derivedHints = { idempotentHint: true };

/**
 * The tool as the model port sees it (canonical name; adapters encode it for their provider).
 * @example
 * toModelTool(spec); // { name: "clock.now", description: "...", parameters: {...} }
 */
export function toModelTool(spec: ToolLike): ModelTool {
  return { name: spec.name, description: spec.description, parameters: spec.parameters };
}

/**
 * Lossless: MCP holds title, output schema and annotations; `idempotent` becomes `idempotentHint`,
 * and Pantheon's own fields (runtime, approval, timeout, OpenAI's strict) go under `_meta`.
 * @example
 * toMcpTool(spec); // { name: "clock.now", description, inputSchema, _meta: { "pantheon/tool": { runtime: "builtin" } } }
 */
export function toMcpTool(spec: ToolLike): McpToolManifest {
  const hinted = spec.annotations?.readOnlyHint === true || spec.annotations?.idempotentHint === true;
  const annotations = spec.idempotent && !hinted ? { ...spec.annotations, ...derivedHints } : spec.annotations;
  const meta: PantheonMeta = {
    // `mcp` is what reading a manifest assumes, so only other runtimes are written.
    ...(spec.runtime && spec.runtime !== "mcp" ? { runtime: spec.runtime } : {}),
    ...(spec.requiresApproval !== undefined ? { requiresApproval: spec.requiresApproval } : {}),
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    ...(spec.strict !== undefined ? { strict: spec.strict } : {}),
  };
  return {
    name: spec.name,
    ...(spec.title !== undefined ? { title: spec.title } : {}),
    description: spec.description,
    inputSchema: spec.parameters,
    ...(spec.outputSchema ? { outputSchema: spec.outputSchema } : {}),
    ...(annotations ? { annotations } : {}),
    ...(Object.keys(meta).length ? { _meta: { [pantheonMetaKey]: meta } } : {}),
  };
}

export function fromMcpTool(tool: McpToolManifest, runtime: ToolRuntime = "mcp"): ToolSpec {
  const meta = (tool._meta?.[pantheonMetaKey] ?? {}) as PantheonMeta;
  const repeatable = tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true;
  const onlyDerived = tool.annotations && JSON.stringify(tool.annotations) === JSON.stringify(derivedHints);
  return {
    name: tool.name,
    description: tool.description ?? "",
    parameters: tool.inputSchema ?? emptyObjectSchema(),
    runtime: meta.runtime ?? runtime,
    ...(repeatable ? { idempotent: true } : {}),
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations && !onlyDerived ? { annotations: tool.annotations } : {}),
    ...(meta.requiresApproval !== undefined ? { requiresApproval: meta.requiresApproval } : {}),
    ...(meta.timeoutMs !== undefined ? { timeoutMs: meta.timeoutMs } : {}),
    ...(meta.strict !== undefined ? { strict: meta.strict } : {}),
  };
}

/**
 * Holds name (dots as `__`), description, schema and `strict`; {@link formatLosses} names the rest.
 * @example
 * toOpenAITool(spec); // { type: "function", function: { name: "clock__now", description, parameters } }
 */
export function toOpenAITool(spec: ToolLike): OpenAIFunctionTool {
  return {
    type: "function",
    function: {
      name: encodeToolName(spec.name),
      description: spec.description,
      parameters: spec.parameters,
      ...(spec.strict !== undefined ? { strict: spec.strict } : {}),
    },
  };
}

export function fromOpenAITool(tool: OpenAIFunctionTool, runtime: ToolRuntime = "builtin"): ToolSpec {
  const fn = tool.function;
  return {
    name: decodeToolName(fn.name),
    description: fn.description ?? "",
    parameters: fn.parameters ?? emptyObjectSchema(),
    runtime,
    ...(typeof fn.strict === "boolean" ? { strict: fn.strict } : {}),
  };
}

/**
 * Holds name (dots as `__`), description and schema; {@link formatLosses} names the rest.
 * @example
 * toAnthropicTool(spec); // { name: "clock__now", description, input_schema }
 */
export function toAnthropicTool(spec: ToolLike): AnthropicTool {
  return { name: encodeToolName(spec.name), description: spec.description, input_schema: spec.parameters };
}

export function fromAnthropicTool(tool: AnthropicTool, runtime: ToolRuntime = "builtin"): ToolSpec {
  return {
    name: decodeToolName(tool.name),
    description: tool.description ?? "",
    parameters: tool.input_schema ?? emptyObjectSchema(),
    runtime,
  };
}

export type ToolFormat = "mcp" | "openai" | "anthropic";

const formatNames: Record<ToolFormat, string> = {
  mcp: "MCP tool manifests",
  openai: "OpenAI function tools",
  anthropic: "Anthropic tools",
};

/**
 * The fields of `spec` that `format` has no place for (and that carry something), each with why.
 * @example
 * formatLosses({ ...spec, annotations: { readOnlyHint: true } }, "openai")
 * // [{ field: "annotations", message: "OpenAI function tools have no place for MCP annotations (readOnlyHint); left out" }]
 */
export function formatLosses(spec: ToolLike, format: ToolFormat): { field: string; message: string }[] {
  const lost: { field: string; message: string }[] = [];
  const what = formatNames[format];
  const drop = (field: string, described: string) =>
    lost.push({ field, message: `${what} have no place for ${described}; left out` });
  if (format === "mcp") return lost;
  if (spec.title !== undefined) drop("title", `a title ('${spec.title}')`);
  if (spec.outputSchema) drop("outputSchema", "an output schema (MCP outputSchema)");
  if (spec.annotations && Object.keys(spec.annotations).length)
    drop("annotations", `MCP annotations (${Object.keys(spec.annotations).join(", ")})`);
  if (spec.idempotent && !spec.annotations) drop("idempotent", "'idempotent' (MCP idempotentHint)");
  if (spec.requiresApproval)
    drop("requiresApproval", "Pantheon's 'requiresApproval' (the gate still applies in Pantheon)");
  if (spec.timeoutMs !== undefined) drop("timeoutMs", "Pantheon's 'timeoutMs'");
  if (format === "anthropic" && spec.strict !== undefined) drop("strict", "OpenAI's 'strict'");
  return lost;
}

/** Converts one tool to `format`. */
export function toFormat(spec: ToolLike, format: ToolFormat): McpToolManifest | OpenAIFunctionTool | AnthropicTool {
  return format === "mcp" ? toMcpTool(spec) : format === "openai" ? toOpenAITool(spec) : toAnthropicTool(spec);
}

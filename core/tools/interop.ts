import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { jsonPath, jsonPath as pathIn } from "../errors";
import {
  formatLosses,
  fromAnthropicTool,
  fromMcpTool,
  fromOpenAITool,
  pantheonMetaKey,
  toFormat,
  type McpToolManifest,
  type ToolFormat,
} from "./convert";
import { toolNamePattern, type ToolSpec } from "./tool-spec";
import { isReservedName, reservedNameMessage } from "../reserved-names";

export const toolFormats = ["mcp", "openai", "anthropic"] as const satisfies readonly ToolFormat[];

/** A problem or a warning about an uploaded tool list, at its JSON path (`$.tools[2].name`). */
export interface ToolIssue {
  path: string;
  message: string;
}

/**
 * An agent's tools in another format, with a warning for each field a format cannot hold.
 * @example
 * exportTools(specs, "openai") // { tools: [{ type: "function", function: {...} }], warnings: [{ path: "$[0].annotations", message: "…" }] }
 */
export function exportTools(
  specs: readonly ToolSpec[],
  format: ToolFormat,
): { tools: unknown[]; warnings: ToolIssue[] } {
  const warnings = specs.flatMap((spec, i) =>
    formatLosses(spec, format).map(({ field, message }) => ({
      path: jsonPath([i, field]),
      message: `${spec.name}: ${message}`,
    })),
  );
  return { tools: specs.map((spec) => toFormat(spec, format)), warnings };
}

const schemaObject = lazySchema(() => z.record(z.string(), z.unknown()));
const endpointOf = (value: unknown) => (typeof value === "string" ? value : undefined);

const mcpToolSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().min(1).max(128),
    title: z.string().max(200).optional(),
    description: z.string().max(2000, "at most 2,000 characters").optional(),
    inputSchema: schemaObject,
    outputSchema: schemaObject.optional(),
    annotations: schemaObject.optional(),
    _meta: schemaObject.optional(),
    endpoint: z.string().optional(),
  }),
);
const openaiChatToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal("function"),
    function: z.looseObject({
      name: z.string().min(1).max(64),
      description: z.string().max(2000, "at most 2,000 characters").optional(),
      parameters: schemaObject.optional(),
      strict: z.boolean().nullish(),
    }),
    endpoint: z.string().optional(),
  }),
);
/** The Responses API (and the Agents SDK) write function tools flat. */
const openaiFlatToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal("function"),
    name: z.string().min(1).max(64),
    description: z.string().max(2000, "at most 2,000 characters").nullish(),
    parameters: schemaObject.nullish(),
    strict: z.boolean().nullish(),
    endpoint: z.string().optional(),
  }),
);
const anthropicToolSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().min(1).max(128),
    description: z.string().max(2000, "at most 2,000 characters").optional(),
    input_schema: schemaObject,
    type: z.literal("custom").optional(),
    endpoint: z.string().optional(),
  }),
);

/** Keys each format has that Pantheon keeps (`endpoint` makes an HTTP tool). */
const keptKeys: Record<string, readonly string[]> = {
  mcp: ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "endpoint"],
  openai: ["type", "function", "endpoint"],
  openaiFlat: ["type", "name", "description", "parameters", "strict", "endpoint"],
  anthropic: ["name", "description", "input_schema", "type", "endpoint"],
};

/** A tool read from another format: its spec, and the URL it is served at when it says so. */
export interface ImportedTool {
  spec: ToolSpec;
  endpoint?: string;
  /** Where the tool was in the list (`$.tools[2]`). */
  path: string;
}

/**
 * A Pantheon tool name for a foreign one: lower-cased, other characters as `_`; null when nothing usable is left.
 * @example
 * pantheonToolName("getWeather") // "getweather"
 */
function pantheonToolName(name: string): string | null {
  if (toolNamePattern.test(name) && name.length <= 64) return name;
  const fixed = name
    .toLowerCase()
    .replace(/[^a-z0-9_.-]/g, "_")
    .replace(/^[^a-z]+/, "")
    .slice(0, 64);
  return toolNamePattern.test(fixed) ? fixed : null;
}

/** The list inside what a client sends: an MCP `tools/list` result (or its JSON-RPC response), `{ tools }`, or a bare array. */
function listOf(payload: unknown): { list: unknown[]; at: PropertyKey[] } | null {
  if (Array.isArray(payload)) return { list: payload, at: [] };
  if (payload && typeof payload === "object") {
    const record = payload as Record<string, unknown>;
    if (Array.isArray(record.tools)) return { list: record.tools, at: ["tools"] };
    const result = record.result as Record<string, unknown> | undefined;
    if (result && Array.isArray(result.tools)) return { list: result.tools, at: ["result", "tools"] };
  }
  return null;
}

/**
 * Reads a tool list in `format`: MCP `tools/list` results, OpenAI function tools (Chat Completions
 * or the flat Responses shape) or Anthropic tools. A tool with an `endpoint` (top level, or MCP
 * `_meta["pantheon/tool"].endpoint`) can become an HTTP tool. Fields Pantheon does not keep, and
 * names it had to change, are warnings; a tool it cannot read is an issue (the whole list is refused).
 * @example
 * importTools("openai", [{ type: "function", function: { name: "get_weather", parameters: {...} } }])
 * // { ok: true, tools: [{ spec: { name: "get_weather", … } }], warnings: [] }
 */
export function importTools(
  format: ToolFormat,
  payload: unknown,
  root = "$",
): { ok: true; tools: ImportedTool[]; warnings: ToolIssue[] } | { ok: false; issues: ToolIssue[] } {
  const found = listOf(payload);
  if (!found)
    return {
      ok: false,
      issues: [
        {
          path: root,
          message:
            format === "mcp"
              ? "an MCP tools/list result ({ tools: [...] }) or an array of tools"
              : `an array of ${format === "openai" ? "OpenAI function tools" : "Anthropic tools"}`,
        },
      ],
    };
  if (found.list.length > 100)
    return { ok: false, issues: [{ path: pathIn(found.at, root), message: "at most 100 tools at a time" }] };
  const issues: ToolIssue[] = [];
  const warnings: ToolIssue[] = [];
  const tools: ImportedTool[] = [];
  found.list.forEach((raw, i) => {
    const at = [...found.at, i];
    const jsonPath = (path: readonly PropertyKey[]) => pathIn(path, root);
    const issue = (error: z.ZodError) =>
      issues.push(...error.issues.map((x) => ({ path: jsonPath([...at, ...x.path]), message: x.message })));
    let spec: ToolSpec;
    let endpoint: string | undefined;
    let kept: readonly string[];
    if (format === "mcp") {
      const parsed = mcpToolSchema.safeParse(raw);
      if (!parsed.success) return issue(parsed.error);
      spec = fromMcpTool(parsed.data as McpToolManifest);
      const meta = parsed.data._meta?.[pantheonMetaKey] as Record<string, unknown> | undefined;
      endpoint = endpointOf(parsed.data.endpoint) ?? endpointOf(meta?.endpoint);
      kept = keptKeys.mcp!;
    } else if (format === "openai") {
      const chat = openaiChatToolSchema.safeParse(raw);
      const flat = chat.success ? null : openaiFlatToolSchema.safeParse(raw);
      if (!chat.success && !flat?.success) {
        const type = (raw as { type?: unknown } | null)?.type;
        if (typeof type === "string" && type !== "function") {
          warnings.push({
            path: jsonPath([...at, "type"]),
            message: `OpenAI's '${type}' tool is hosted by OpenAI, not a function; skipped`,
          });
          return;
        }
        return issue(raw && typeof raw === "object" && "function" in raw ? chat.error! : flat!.error!);
      }
      const fn = chat.success ? chat.data.function : flat!.data!;
      spec = fromOpenAITool(
        {
          type: "function",
          function: {
            name: fn.name,
            description: fn.description ?? "",
            parameters: fn.parameters ?? { type: "object", properties: {} },
            ...(typeof fn.strict === "boolean" ? { strict: fn.strict } : {}),
          },
        },
        "http",
      );
      endpoint = endpointOf(chat.success ? chat.data.endpoint : flat!.data!.endpoint);
      kept = chat.success ? keptKeys.openai! : keptKeys.openaiFlat!;
      if (chat.success)
        for (const key of Object.keys(chat.data.function))
          if (!["name", "description", "parameters", "strict"].includes(key))
            warnings.push({ path: jsonPath([...at, "function", key]), message: `'${key}' is not kept` });
    } else {
      const type = (raw as { type?: unknown } | null)?.type;
      if (typeof type === "string" && type !== "custom") {
        warnings.push({
          path: jsonPath([...at, "type"]),
          message: `Anthropic's '${type}' tool runs on Anthropic's side, not a tool with a schema; skipped`,
        });
        return;
      }
      const parsed = anthropicToolSchema.safeParse(raw);
      if (!parsed.success) return issue(parsed.error);
      spec = fromAnthropicTool(parsed.data, "http");
      endpoint = endpointOf(parsed.data.endpoint);
      kept = keptKeys.anthropic!;
    }
    for (const key of Object.keys(raw as object))
      if (!kept.includes(key)) warnings.push({ path: jsonPath([...at, key]), message: `'${key}' is not kept` });
    const name = pantheonToolName(spec.name);
    // Where the name stands (index 0 included: filtering falsy parts used to drop it).
    const namePath = jsonPath([
      ...at,
      ...(format === "openai" && raw && typeof raw === "object" && "function" in raw ? ["function"] : []),
      "name",
    ]);
    if (name && isReservedName(name))
      return issues.push({ path: namePath, message: `'${spec.name}' cannot be a tool name: ${reservedNameMessage}` });
    if (!name)
      return issues.push({
        path: namePath,
        message: `'${spec.name}' cannot be a tool name: lower-case words joined by '.', '_' or '-'`,
      });
    if (name !== spec.name)
      warnings.push({
        path: jsonPath([...at, "name"]),
        message: `'${spec.name}' is named '${name}' in Pantheon (tool names are lower-case words joined by '.', '_' or '-')`,
      });
    if (tools.some((t) => t.spec.name === name))
      return issues.push({ path: jsonPath([...at, "name"]), message: `a second tool named '${name}'` });
    tools.push({ spec: { ...spec, name }, ...(endpoint !== undefined ? { endpoint } : {}), path: jsonPath(at) });
  });
  return issues.length ? { ok: false, issues } : { ok: true, tools, warnings };
}

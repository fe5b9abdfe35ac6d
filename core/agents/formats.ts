import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { printScript, type ActorScript } from "../dsl";
import { jsonPath } from "../errors";
import type { ModelSettings } from "../run/limits";
import { exportTools, importTools, type ImportedTool, type ToolIssue, type ToolSpec } from "../tools";
import { unheldFields, type AgentDefinition } from "./definition";
import { unheldParts, type FormatWarning } from "./lost-parts";

/** Formats an agent is exported to: OpenAI Agents SDK / Responses, Anthropic Messages, an OpenCode agent file. */
export const agentExportFormats = ["openai", "anthropic", "opencode"] as const;
export type AgentExportFormat = (typeof agentExportFormats)[number];
/** Formats an agent is imported from (an OpenCode agent file: ./opencode.ts). */
export const agentImportFormats = ["openai", "anthropic", "opencode"] as const;
export type AgentImportFormat = (typeof agentImportFormats)[number];

/** `provider/name` for anything but the format's own provider (`anthropic/claude-…` in an OpenAI config). */
function modelString(model: ModelSettings, own: string): string {
  return model.provider === own ? model.name : `${model.provider}/${model.name}`;
}

/** Reads `provider/name` (a LiteLLM `litellm/` prefix too); a bare name belongs to the format's own provider. */
function modelOf(value: string, own: string): { provider: string; name: string } {
  const bare = value.replace(/^litellm\//, "");
  const slash = bare.indexOf("/");
  return slash > 0 ? { provider: bare.slice(0, slash), name: bare.slice(slash + 1) } : { provider: own, name: bare };
}

const modelWarning = (model: ModelSettings, own: string, what: string): ToolIssue[] =>
  model.provider === own
    ? []
    : [
        {
          path: "$.model",
          message: `the agent's model is '${model.provider}/${model.name}', not ${what}: the config names it as '${model.provider}/${model.name}' (a LiteLLM-style name), which ${what} clients will not run as it is`,
        },
      ];

const dropTool = (warnings: ToolIssue[], at: string) =>
  warnings.map((w) => ({ ...w, path: w.path.replace(/^\$/, at) }));

/**
 * The agent as an OpenAI Agents SDK `Agent` (Python field names) that is also a Responses API
 * request body's `instructions`, `model` and `tools` (flat function tools).
 * @example
 * toOpenAIAgentConfig(profile, specs).config // { name, instructions, model, tools: [{ type: "function", name, … }] }
 */
export function toOpenAIAgentConfig(profile: AgentDefinition, specs: readonly ToolSpec[]) {
  const exported = exportTools(specs, "openai");
  const tools = (
    exported.tools as {
      function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean };
    }[]
  ).map((t) => ({ type: "function" as const, ...t.function }));
  const settings = {
    ...(profile.model.temperature !== undefined ? { temperature: profile.model.temperature } : {}),
    ...(profile.model.maxTokens !== undefined ? { max_tokens: profile.model.maxTokens } : {}),
  };
  const config = {
    name: profile.name,
    instructions: profile.systemPrompt,
    ...(profile.description ? { handoff_description: profile.description } : {}),
    model: modelString(profile.model, "openai"),
    ...(Object.keys(settings).length ? { model_settings: settings } : {}),
    tools,
  };
  return {
    config,
    warnings: [
      ...modelWarning(profile.model, "openai", "OpenAI"),
      ...dropTool(exported.warnings, "$.tools"),
      ...unheldParts(profile, specs, "openai"),
      ...unheldFields(profile, "openai"),
    ] as FormatWarning[],
  };
}

/** The agent as an Anthropic Messages request's configuration: `model`, `system`, `tools`, `max_tokens`. */
export function toAnthropicAgentConfig(profile: AgentDefinition, specs: readonly ToolSpec[]) {
  const exported = exportTools(specs, "anthropic");
  const config = {
    model: modelString(profile.model, "anthropic"),
    system: profile.systemPrompt,
    max_tokens: profile.model.maxTokens ?? 1024,
    ...(profile.model.temperature !== undefined ? { temperature: profile.model.temperature } : {}),
    tools: exported.tools,
  };
  const warnings: FormatWarning[] = [
    ...modelWarning(profile.model, "anthropic", "Anthropic"),
    ...dropTool(exported.warnings, "$.tools"),
    ...unheldParts(profile, specs, "anthropic"),
    ...unheldFields(profile, "anthropic"),
  ];
  return { config, warnings };
}

const schemaObject = lazySchema(() => z.record(z.string(), z.unknown()));
const openaiConfigSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().max(200).optional(),
    instructions: z.string().max(32_000, "at most 32,000 characters").optional(),
    handoff_description: z.string().max(2000, "at most 2,000 characters").nullish(),
    model: z.string().min(1).max(160).optional(),
    model_settings: z
      .looseObject({
        temperature: z.number().min(0).max(2).nullish(),
        max_tokens: z.number().int().min(1).max(200_000).nullish(),
      })
      .optional(),
    temperature: z.number().min(0).max(2).nullish(),
    max_output_tokens: z.number().int().min(1).max(200_000).nullish(),
    tools: z.array(z.unknown()).max(100).default([]),
  }),
);
const textBlock = lazySchema(() => z.looseObject({ type: z.literal("text"), text: z.string() }));
const anthropicConfigSchema = lazySchema(() =>
  z.looseObject({
    model: z.string().min(1).max(160).optional(),
    system: z.union([z.string().max(32_000, "at most 32,000 characters"), z.array(textBlock).max(50)]).optional(),
    max_tokens: z.number().int().min(1).max(200_000).optional(),
    temperature: z.number().min(0).max(1).optional(),
    tools: z.array(schemaObject).max(100).default([]),
  }),
);

/** What importing a configuration gives: the script to set, the system prompt, the tools to import, and warnings. */
export interface AgentImport {
  source: string;
  systemPrompt: string | null;
  /** The config's tools, read as `POST …/tools/import` reads them; their names are the script's `tools`. */
  tools: ImportedTool[];
  warnings: ToolIssue[];
}

/**
 * Reads an OpenAI Agents SDK / Responses or an Anthropic Messages configuration into a Pantheon
 * script (DSL source) for agent `name`. The script language has no form for instructions, so they
 * become the agent's system prompt beside the script (said in a warning); its tools are imported
 * with `POST …/tools/import`'s rules by the caller.
 * @example
 * fromAgentConfig("openai", "scout", { instructions: "Be brief.", model: "gpt-4o", tools: [] })
 * // { ok: true, value: { source: '(actor "scout" …)', systemPrompt: "Be brief.", tools: [], warnings: [...] } }
 */
export function fromAgentConfig(
  format: Exclude<AgentImportFormat, "opencode">,
  name: string,
  value: unknown,
): { ok: true; value: AgentImport } | { ok: false; issues: ToolIssue[] } {
  const warnings: ToolIssue[] = [];
  const unkept = (keys: string[], kept: readonly string[]) => {
    for (const key of keys)
      if (!kept.includes(key)) warnings.push({ path: jsonPath([key], "$.config"), message: `'${key}' is not kept` });
  };
  let model: ModelSettings;
  let systemPrompt: string | null;
  let description: string;
  let tools: unknown[];
  if (format === "openai") {
    const parsed = openaiConfigSchema.safeParse(value);
    if (!parsed.success)
      return {
        ok: false,
        issues: parsed.error.issues.map((i) => ({ path: jsonPath(i.path, "$.config"), message: i.message })),
      };
    const c = parsed.data;
    unkept(Object.keys(c), [
      "name",
      "instructions",
      "handoff_description",
      "model",
      "model_settings",
      "temperature",
      "max_output_tokens",
      "tools",
    ]);
    const temperature = c.model_settings?.temperature ?? c.temperature ?? undefined;
    const maxTokens = c.model_settings?.max_tokens ?? c.max_output_tokens ?? undefined;
    model = {
      ...modelOf(c.model ?? "gpt-4o-mini", "openai"),
      ...(temperature != null ? { temperature } : {}),
      ...(maxTokens != null ? { maxTokens } : {}),
    };
    systemPrompt = c.instructions ?? null;
    description = c.handoff_description ?? "";
    tools = c.tools;
  } else {
    const parsed = anthropicConfigSchema.safeParse(value);
    if (!parsed.success)
      return {
        ok: false,
        issues: parsed.error.issues.map((i) => ({ path: jsonPath(i.path, "$.config"), message: i.message })),
      };
    const c = parsed.data;
    unkept(Object.keys(c), ["model", "system", "max_tokens", "temperature", "tools", "messages"]);
    if (Array.isArray(c.system))
      c.system.forEach((block, i) =>
        Object.keys(block)
          .filter((k) => k !== "type" && k !== "text")
          .forEach((k) =>
            warnings.push({ path: jsonPath(["system", i, k], "$.config"), message: `'${k}' is not kept` }),
          ),
      );
    model = {
      ...modelOf(c.model ?? "claude-haiku-4-5", "anthropic"),
      ...(c.temperature !== undefined ? { temperature: c.temperature } : {}),
      ...(c.max_tokens !== undefined ? { maxTokens: c.max_tokens } : {}),
    };
    systemPrompt =
      c.system === undefined
        ? null
        : typeof c.system === "string"
          ? c.system
          : c.system.map((b) => b.text).join("\n\n");
    description = "";
    tools = c.tools;
  }
  if (systemPrompt !== null)
    warnings.push({
      path: format === "openai" ? "$.config.instructions" : "$.config.system",
      message:
        "the script language has no form for instructions: they are the agent's system prompt, kept beside the script (setting the script again derives the prompt from it)",
    });
  const read = importTools(format, tools, "$.config.tools");
  if (!read.ok) return { ok: false, issues: read.issues };
  const script: ActorScript = {
    name,
    description: description.slice(0, 2000),
    model,
    contextSources: [],
    tools: read.tools.map((t) => t.spec.name),
    connections: [],
    limits: {},
    gates: [],
    talents: [],
  };
  return {
    ok: true,
    value: { source: printScript(script), systemPrompt, tools: read.tools, warnings: [...warnings, ...read.warnings] },
  };
}

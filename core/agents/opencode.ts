// An agent as an OpenCode agent file and back: markdown with YAML front matter (`description`,
// `mode`, `model` as `provider/model-id`, `temperature`, `maxSteps` or `steps`, `tools` as
// name → true/false, `permission` as tool → ask/allow/deny) and the system prompt as the body
// (opencode.ai/docs/agents). What either side cannot hold is named as a warning, both ways.
import { parse, stringify } from "yaml";
import { z } from "zod";
import { printScript, type ActorScript } from "../dsl";
import { jsonPath } from "../errors";
import { lazySchema } from "../lazy-schema";
import type { ModelSettings } from "../run/limits";
import type { ToolIssue, ToolSpec } from "../tools";
import { unheldFields, type AgentDefinition } from "./definition";
import { partWarning, unheldParts, type FormatWarning } from "./lost-parts";

/**
 * The agent as an OpenCode agent file. `mode` is `subagent` for an agent other agents ask (or that
 * one spawned), else `primary`; a tool that waits for a person's approval is `permission: ask`.
 * @example
 * toOpenCodeAgentFile(profile, specs, false).text // "---\ndescription: …\nmode: primary\nmodel: openai/gpt-4o-mini\n…\n---\nYou are …\n"
 */
export function toOpenCodeAgentFile(
  profile: AgentDefinition,
  specs: readonly ToolSpec[],
  askedByOthers: boolean,
): { text: string; warnings: FormatWarning[] } {
  const names = new Set(specs.map((s) => s.name));
  const asks = [
    ...new Set([
      ...profile.runtime.approvalRequired,
      ...profile.runtime.httpTools.filter((t) => t.requiresApproval).map((t) => t.name),
    ]),
  ].filter((n) => names.has(n));
  const front = {
    description: profile.description || profile.systemPrompt.split(/(?<=[.!?])\s/)[0]!.slice(0, 200),
    mode: askedByOthers || profile.parent ? "subagent" : "primary",
    model: `${profile.model.provider}/${profile.model.name}`,
    ...(profile.model.temperature !== undefined ? { temperature: profile.model.temperature } : {}),
    ...(profile.runtime.limits.maxSteps !== undefined ? { maxSteps: profile.runtime.limits.maxSteps } : {}),
    tools: Object.fromEntries(specs.map((s) => [s.name, true])),
    ...(asks.length ? { permission: Object.fromEntries(asks.map((n) => [n, "ask"])) } : {}),
  };
  const warnings: FormatWarning[] = unheldParts(profile, specs, "opencode");
  const described = specs.filter((s) => s.runtime !== "http").map((s) => s.name);
  if (described.length)
    warnings.push({
      path: "$.tools",
      message:
        "OpenCode enables tools by name only: their descriptions and schemas stay in Pantheon (and OpenCode runs only the tools it has itself or from its MCP servers)",
    });
  warnings.push(...unheldFields(profile, "opencode"));
  return { text: `---\n${stringify(front, { lineWidth: 0 }).trimEnd()}\n---\n${profile.systemPrompt}\n`, warnings };
}

const permissionValue = lazySchema(() => z.enum(["ask", "allow", "deny"], { error: "ask, allow or deny" }));
const frontSchema = lazySchema(() =>
  z.looseObject({
    description: z
      .string({ error: "OpenCode requires a description: what the agent does" })
      .trim()
      .min(1, "OpenCode requires a description: what the agent does")
      .max(2000, "at most 2,000 characters"),
    mode: z.enum(["primary", "subagent", "all"], { error: "primary, subagent or all" }).optional(),
    model: z
      .string()
      .regex(/^[^/\s]+\/\S+$/, "provider/model-id, e.g. anthropic/claude-sonnet-4-5")
      .max(200)
      .optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxSteps: z.number().int().min(1).max(100, "at most 100 (Pantheon's ceiling for steps)").optional(),
    steps: z.number().int().min(1).max(100, "at most 100 (Pantheon's ceiling for steps)").optional(),
    prompt: z.string().max(32_000).optional(),
    tools: z.record(z.string().min(1).max(128), z.boolean({ error: "true or false" })).default({}),
    permission: z
      .record(z.string().min(1).max(128), z.union([permissionValue, z.record(z.string(), permissionValue)]))
      .default({}),
  }),
);

/** What an OpenCode file gives: the script to set, the system prompt, the tools that wait for approval, and what was left out. */
export interface OpenCodeImport {
  source: string;
  systemPrompt: string;
  approvalRequired: string[];
  warnings: FormatWarning[];
}

/**
 * Reads an OpenCode agent file into a Pantheon script for agent `name`. Tools Pantheon has
 * (`known`) are kept, and `permission: ask` makes them wait for a person's approval; OpenCode's own
 * tools (bash, edit, read, …), `mode` and the fields Pantheon has no place for are named as warnings.
 * A file without a `model` gets `defaultModel` (OpenCode's agents inherit one; here the deployment's).
 * @example
 * fromOpenCodeAgentFile("reviewer", "---\ndescription: Reviews code\ntools:\n  clock.now: true\n  bash: true\n---\nBe terse.\n", new Set(["clock.now"]), { provider: "offline", name: "offline" })
 * // { ok: true, value: { source: '(actor "reviewer" …)', systemPrompt: "Be terse.", approvalRequired: [], warnings: [{ part: "tools", names: ["bash"], … }] } }
 */
export function fromOpenCodeAgentFile(
  name: string,
  text: string,
  known: ReadonlySet<string>,
  defaultModel: ModelSettings,
): { ok: true; value: OpenCodeImport } | { ok: false; issues: ToolIssue[] } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match)
    return {
      ok: false,
      issues: [
        {
          path: "$.file",
          message: "an OpenCode agent file starts with YAML front matter between two '---' lines, then the prompt",
        },
      ],
    };
  let data: unknown;
  try {
    data = parse(match[1]!) ?? {};
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: "$.file", message: `the front matter is not YAML: ${(error as Error).message.split("\n")[0]}` }],
    };
  }
  if (typeof data !== "object" || Array.isArray(data))
    return {
      ok: false,
      issues: [
        {
          path: "$.file",
          message: "the front matter is a YAML mapping of fields (description, mode, model, tools, …)",
        },
      ],
    };
  const parsed = frontSchema.safeParse(data);
  if (!parsed.success)
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({ path: jsonPath(i.path, "$.file"), message: i.message })),
    };
  const front = parsed.data;
  const warnings: FormatWarning[] = [];
  const kept = ["description", "mode", "model", "temperature", "maxSteps", "steps", "prompt", "tools", "permission"];
  warnings.push(
    ...partWarning(
      "fields",
      Object.keys(front).filter((k) => !kept.includes(k)),
      "$.file",
      "Pantheon has no place for them",
    ),
  );
  if (front.mode)
    warnings.push(
      ...partWarning(
        "mode",
        [front.mode],
        "$.file.mode",
        "Pantheon has no agent modes: who may ask an agent is set by the other agents' connections",
      ),
    );

  const body = match[2]!.replace(/\r?\n$/, "");
  let systemPrompt = body;
  if (!body.trim() && front.prompt !== undefined) {
    if (/^\{file:/.test(front.prompt))
      warnings.push(
        ...partWarning(
          "fields",
          ["prompt"],
          "$.file.prompt",
          "the prompt is a file on the machine that ran OpenCode, which the server cannot read: give it as the body",
        ),
      );
    else systemPrompt = front.prompt;
  } else if (front.prompt !== undefined)
    warnings.push(
      ...partWarning(
        "fields",
        ["prompt"],
        "$.file.prompt",
        "the body is the prompt; the prompt field beside it is not kept",
      ),
    );

  // A tool is enabled by `tools: { name: true }` and not denied by `permission: { name: deny }`.
  const rules = Object.entries(front.permission);
  const denied = new Set(rules.filter(([, rule]) => rule === "deny").map(([tool]) => tool));
  const enabled = Object.entries(front.tools)
    .filter(([tool, on]) => on && !denied.has(tool))
    .map(([tool]) => tool);
  const tools = enabled.filter((tool) => known.has(tool));
  warnings.push(
    ...partWarning(
      "tools",
      enabled.filter((tool) => !known.has(tool)),
      "$.file.tools",
      "Pantheon has no tool of that name (OpenCode's own tools and its MCP servers' stay in OpenCode): declare an HTTP tool or connect an MCP server that has it",
    ),
  );
  const approvalRequired = rules.filter(([tool, rule]) => rule === "ask" && tools.includes(tool)).map(([tool]) => tool);
  const patterns = rules.filter(([, rule]) => typeof rule !== "string").map(([tool]) => tool);
  warnings.push(
    ...partWarning(
      "permission",
      patterns,
      "$.file.permission",
      "Pantheon decides approval per tool, not per command pattern: add a gate for the patterns",
    ),
  );

  const maxSteps = front.maxSteps ?? front.steps;
  const [provider, ...rest] = (front.model ?? `${defaultModel.provider}/${defaultModel.name}`).split("/");
  const model: ModelSettings = {
    ...(front.model ? {} : defaultModel),
    provider: provider!,
    name: rest.join("/"),
    ...(front.temperature !== undefined ? { temperature: front.temperature } : {}),
  };
  const script: ActorScript = {
    name,
    description: front.description,
    model,
    contextSources: [],
    tools,
    connections: [],
    limits: maxSteps !== undefined ? { maxSteps } : {},
    gates: [],
    talents: [],
  };
  return { ok: true, value: { source: printScript(script), systemPrompt, approvalRequired, warnings } };
}

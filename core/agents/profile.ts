import { z } from "zod";
import type { RunPrincipal } from "../auth/principal";
import { lazySchema } from "../lazy-schema";
import type { ModelProvider } from "../models/providers";
import type { StoredScriptTool } from "../sandbox/script-tool";
import type { SkillEntry } from "../skills/library";
import type { ProjectQuota } from "../quotas/limits";
import { customGateSpecSchema } from "../gates/gate-spec";
import { denyPatternProblems } from "../gates/pattern";
import { modelChoiceSchema, type modelSettingsSchema, runLimitOverridesSchema } from "../run/limits";
import { toolNamePattern } from "../tools/tool-spec";
import { denyToolsSchema, memoryPolicySchema } from "../run/knobs";
export { denyToolsSchema, memoryPolicies, memoryPolicySchema, toolDenied, type MemoryPolicy } from "../run/knobs";
import { isReservedName, reservedNameMessage } from "../reserved-names";

/** Agent names are lower-case slugs: they appear in URLs, Durable Object names and tool names. */
export const agentNamePattern = /^[a-z][a-z0-9-]{0,62}$/;

export const agentNameSchema = lazySchema(() =>
  z
    .string()
    .regex(agentNamePattern, "must be a lower-case slug: a letter, then letters, digits or '-', at most 63 characters")
    .refine((name) => !isReservedName(name), reservedNameMessage),
);

export const projectNameSchema = agentNameSchema;

const toolName = lazySchema(() =>
  z
    .string()
    .regex(toolNamePattern, "a tool name: lowercase words joined by '.', '_' or '-'")
    .refine((name) => !isReservedName(name), reservedNameMessage),
);

/** An operator-registered HTTP tool: the arguments are POSTed as JSON to `endpoint`. */
export const httpToolSchema = lazySchema(() =>
  z.strictObject({
    name: toolName,
    description: z.string().min(1).max(2000),
    parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
    endpoint: z.url({ protocol: /^https?$/, error: "an http(s) URL" }),
    /**
     * Literal header values, or `{ secret: "NAME" }` read from the worker's secrets at call time —
     * only names the deployment declared for tools (`PANTHEON_TOOL_SECRETS`; see outbound-check.ts).
     */
    headers: z
      .record(
        z.string(),
        z.union([
          z.string(),
          z.strictObject({ secret: z.string().regex(/^[A-Z][A-Z0-9_]*$/, "an UPPER_SNAKE secret name") }),
        ]),
      )
      .default({}),
    requiresApproval: z.boolean().default(false),
    timeoutMs: z.number().int().min(100).max(300_000).optional(),
    /**
     * The endpoint applies a call once per `Idempotency-Key` (or the call is read-only): a call cut
     * off by a restart is then sent again; otherwise the model is told its outcome is unknown.
     */
    idempotent: z.boolean().default(false),
  }),
);
export type HttpToolConfig = z.infer<typeof httpToolSchema>;

/**
 * A remote agent that speaks A2A, declared by an operator: the agent sees it as the tool
 * `ask_<name>`. `url` is the agent's base (its card at `<url>/.well-known/agent-card.json`) or the
 * card's own URL (ending `.json`); every request to it, and to the endpoint its card names, passes
 * the outbound guard with the agent's `allowHosts`.
 */
export const a2aAgentSchema = lazySchema(() =>
  z.strictObject({
    name: z
      .string()
      .regex(
        /^[a-z][a-z0-9_-]{0,31}$/,
        "lowercase letters, digits, '-' or '_', starting with a letter, at most 32 (the tool is ask_<name>)",
      ),
    url: z.url({ protocol: /^https?$/, error: "an http(s) URL of an A2A agent (its base, or its agent card)" }),
    description: z.string().min(1).max(2000).optional(),
    /** As for HTTP tools: literal values, or `{ secret: "NAME" }` of the secrets declared for tools. */
    headers: httpToolSchema.shape.headers,
    timeoutMs: z.number().int().min(100).max(300_000).optional(),
  }),
);
export type A2aAgentConfig = z.infer<typeof a2aAgentSchema>;

/** How an agent runs: its tools, limits (ceilings for requests), gates and rate limits. */
export const agentRuntimeSchema = lazySchema(() =>
  z.strictObject({
    /** Built-in tools the agent may use (allowlist), e.g. `clock.now`, `http.fetch`. */
    tools: z.array(toolName).max(100).default(["clock.now"]),
    /** Tools that pause for a person's approval before each call. */
    approvalRequired: z.array(toolName).max(100).default([]),
    /** Hosts the agent's outbound requests may reach (exact or `*.example.com`): http.fetch, HTTP tool endpoints, MCP servers, A2A agents. */
    allowHosts: z.array(z.string().min(1).max(253)).max(100).default([]),
    limits: runLimitOverridesSchema.default({}),
    gates: z.array(customGateSpecSchema).max(50).default([]),
    /** Token buckets by tool name (`*` for every tool). */
    rateLimits: z
      .record(
        z.string(),
        z.strictObject({ capacity: z.number().int().min(1).max(10_000), refillPerSec: z.number().min(0).max(1000) }),
      )
      .default({}),
    httpTools: z.array(httpToolSchema).max(50).default([]),
    /** Remote A2A agents the agent may ask (`ask_<name>`), declared by an operator. */
    a2aAgents: z.array(a2aAgentSchema).max(20).default([]),
    /**
     * A tool call beyond the scope of whoever started the run (a chat token asking for `memory.forget`):
     * `wait` for the approval of a holder of the tool's scope (absent = `wait`), or `refuse` it and
     * tell the model why (core/gates scope.ts).
     */
    beyondScope: z.enum(["wait", "refuse"], { error: "one of 'wait' or 'refuse'" }).optional(),
    /** Tools the agent never gets, whatever declares them (its list, an MCP server, a feature): names, or `prefix.*`. */
    denyTools: denyToolsSchema.optional(),
    /** How the conversation is kept in context, and how long memories live (core/agents memoryPolicySchema). */
    memory: memoryPolicySchema.optional(),
    /**
     * Skills of the project's library it may use (core/skills): only their names and descriptions sit
     * in its context, in the `use_skill` tool, until it loads one.
     */
    skills: z
      .array(
        z
          .string()
          .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "a skill name: lowercase letters, digits and '-'")
          .max(64),
      )
      .max(50)
      .optional(),
  }),
);
export type AgentRuntime = z.infer<typeof agentRuntimeSchema>;
/** `agentRuntimeSchema.parse({})`, written out so it needs no schema at startup (a test holds them equal). */
export const defaultAgentRuntime: AgentRuntime = {
  tools: ["clock.now"],
  approvalRequired: [],
  allowHosts: [],
  limits: {},
  gates: [],
  rateLimits: {},
  httpTools: [],
  a2aAgents: [],
};

/**
 * The runtime as an operator sends it: the stored shape, and deny patterns the gate engine can
 * run. (Stored profiles are read with the plain schema, so one stored before a rule tightened
 * still loads, and its run reports the gate instead.)
 */
const agentRuntimeInputSchema = lazySchema(() =>
  agentRuntimeSchema.superRefine((runtime, ctx) => {
    for (const { index, message } of denyPatternProblems(runtime.gates))
      ctx.addIssue({ code: "custom", path: ["gates", index, "pattern"], message });
  }),
);

/** An agent's role (`a code reviewer`): its system prompt names it. */
export const roleSchema = () => z.string().min(1).max(200);
/** Standing goals: in every run's context, and what a tick works toward. */
export const goalsSchema = lazySchema(() =>
  z.array(z.string().trim().min(1, 'a goal is some words, e.g. "Review PR #123"').max(2000)).max(32),
);

/**
 * Standing goals as stored, read so a bad row never breaks a run: a list of goals as it is; the JSON
 * string of a list (`"[]"`, what imports and restores stored before migration 0008 of the registry) as
 * that list; anything else as no goals. Non-text entries are dropped.
 * @example
 * goalsOf('["Ship it"]') // ["Ship it"]
 */
export function goalsOf(stored: unknown): string[] {
  let value = stored;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return [];
    }
  }
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === "string" && g.trim() !== "") : [];
}

/** What an operator sends to create an agent. */
export const agentInputSchema = lazySchema(() =>
  z.strictObject({
    name: agentNameSchema,
    description: z.string().max(2000).default(""),
    role: roleSchema().optional(),
    goals: goalsSchema.optional(),
    systemPrompt: z.string().max(32_000).default("You are a helpful agent."),
    model: modelChoiceSchema.default({ provider: "offline", name: "offline" }),
    runtime: agentRuntimeInputSchema.default(defaultAgentRuntime),
  }),
);
export type AgentInput = z.infer<typeof agentInputSchema>;

export const agentPatchSchema = lazySchema(() =>
  z.strictObject({
    description: z.string().max(2000).optional(),
    role: roleSchema().optional(),
    goals: goalsSchema.optional(),
    systemPrompt: z.string().max(32_000).optional(),
    model: modelChoiceSchema.optional(),
    runtime: agentRuntimeInputSchema.optional(),
  }),
);
export type AgentPatch = z.infer<typeof agentPatchSchema>;

/** Any JSON value: what crosses Durable Object RPC and storage as plain data. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** An agent as the registry stores it and the API returns it. */
export interface AgentProfile {
  name: string;
  description: string;
  systemPrompt: string;
  /** Its role, when one was given (`--role`, a script's `(role …)`). */
  role?: string | null;
  /** Its standing goals (none: an empty list). */
  goals?: string[];
  /** When its supervisor archived it (a spawned child whose goal was done): out of the graph, its history kept. */
  archivedAt?: number | null;
  model: z.infer<typeof modelSettingsSchema>;
  runtime: AgentRuntime;
  connections: string[];
  /**
   * What each connected agent says it does (its description), by name: the model sees it as the
   * description of the `ask_<agent>` tool. Filled by the registry when it hands out the profile.
   */
  connectionDescriptions?: Record<string, string>;
  /**
   * The agents whose connections hold this one (who may ask it), filled by the registry when it hands
   * out the profile: the receiving agent admits their requests from this, without asking the registry.
   */
  askedBy?: string[];
  /**
   * Which creation of this name it is: a random id the registry draws when the agent is created (a
   * new one each time a deleted name is made again). The agent keeps the one it was configured with;
   * its sockets are bound to it, so nothing of a deleted agent or project reaches a later one of the
   * same names (durable-objects/agent/live/incarnation.ts).
   */
  incarnation?: string;
  /**
   * The project's named providers its model names (core/models providers), filled by the registry
   * when it hands out the profile: the agent builds its cascade from them without a round trip.
   */
  providers?: Record<string, ModelProvider>;
  /**
   * The project's script tools its tools list (core/sandbox), filled by the registry when it hands out
   * the profile: the agent runs them in the sandbox without a round trip.
   */
  scriptTools?: Record<string, StoredScriptTool>;
  /**
   * The project's skills its `runtime.skills` name, with the ones they require (core/skills), filled
   * by the registry when it hands out the profile: `use_skill` loads them without a round trip.
   */
  skillLibrary?: Record<string, SkillEntry>;
  /** The project's daily caps and test clock (core/quotas), filled by the registry when the project has any. */
  projectQuota?: ProjectQuota;
  /** The compiled script (ActorScript JSON) when one is set. */
  script: JsonValue | null;
  /**
   * Who last configured the script: its behaviors' runs act with these rights. Absent on scripts
   * set before configurers were recorded: those runs act with the least scope (core/auth unknownPrincipal).
   */
  configuredBy?: RunPrincipal | null;
  parent: string | null;
  createdAt: number;
  updatedAt: number;
}

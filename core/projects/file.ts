import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { jsonPath } from "../errors";
import { agentNameSchema, agentRuntimeSchema, goalsSchema, roleSchema } from "../agents/profile";
import { denyPatternProblems } from "../gates/pattern";
import { modelChoiceSchema } from "../run/limits";
import { runtimeOutboundIssues } from "../agents/outbound-check";
import type { OutboundSettings } from "../tools/outbound";
import { toolNamePattern } from "../tools/tool-spec";
import { isReservedName, reservedNameMessage } from "../reserved-names";
import { maxScriptSourceBytes } from "../sandbox/script-tool";

/** One problem of a project file (or one warning about it), at its JSON path, e.g. `$.agents.main.connections[1]`. */
export interface FileIssue {
  path: string;
  message: string;
}

const toolName = lazySchema(() =>
  z
    .string()
    .max(100, "at most 100 characters")
    .regex(toolNamePattern, "a tool name: lower-case words joined by '.', '_' or '-' (e.g. 'clock.now', 'airtable.py')")
    .refine((name) => !isReservedName(name), reservedNameMessage),
);

/**
 * Pantheon's own fields of an agent, under `pantheon` so other tools reading the file skip them:
 * its instructions (system prompt), role, standing goals, model, runtime (without `tools`, which are
 * the file's own `tools`) and script source (the DSL or the ActorScript JSON).
 */
export const pantheonAgentFieldsSchema = lazySchema(() =>
  z.strictObject({
    instructions: z.string().max(32_000, "at most 32,000 characters").optional(),
    role: roleSchema().optional(),
    goals: goalsSchema.optional(),
    model: modelChoiceSchema.optional(),
    runtime: agentRuntimeSchema.omit({ tools: true }).optional(),
    script: z.string().max(48_000, "at most 48,000 characters").optional(),
  }),
);
export type PantheonAgentFields = z.infer<typeof pantheonAgentFieldsSchema>;

const knownAgentKeys = ["name", "description", "tools", "connections", "pantheon"] as const;

/** One agent of a project file: the shape file-based multi-agent setups use, plus `pantheon`. */
export const projectFileAgentSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().trim().min(1, "at least one character").max(200, "at most 200 characters").optional(),
    description: z.string().max(2000, "at most 2,000 characters").default(""),
    tools: z.array(toolName).max(100, "at most 100 tools").default([]),
    connections: z.array(agentNameSchema).max(64, "at most 64 connections").default([]),
    pantheon: pantheonAgentFieldsSchema.optional(),
  }),
);

/**
 * Script tools as a project file and an agent's snapshot carry them: each one's TypeScript source
 * (core/sandbox), keyed by its name; the receiving side compiles and saves them.
 */
export const scriptToolSourcesSchema = lazySchema(() =>
  z
    .record(
      toolName,
      z.strictObject({
        source: z.string().min(1).max(maxScriptSourceBytes, `at most ${maxScriptSourceBytes} characters`),
      }),
    )
    .refine((tools) => Object.keys(tools).length <= 100, "at most 100 script tools"),
);

/**
 * A project file: `agents` keyed by the agent's name in Pantheon; `connections` name other keys.
 * `scriptTools` holds the source of each project script tool the agents list (core/sandbox), keyed by its name.
 */
export const projectFileSchema = lazySchema(() =>
  z.looseObject({
    agents: z
      .record(agentNameSchema, projectFileAgentSchema)
      .refine((agents) => Object.keys(agents).length <= 100, "at most 100 agents"),
    scriptTools: scriptToolSourcesSchema.optional(),
  }),
);

export interface ProjectFileAgent {
  name?: string;
  description: string;
  tools: string[];
  connections: string[];
  pantheon?: PantheonAgentFields;
}
export interface ProjectFile {
  agents: Record<string, ProjectFileAgent>;
  /** The project's script tools the agents list: each one's TypeScript source, by its name. */
  scriptTools?: Record<string, { source: string }>;
}

/**
 * Reads a project file: the file (without unknown keys, each named in a warning) or every problem
 * at its JSON path. Connections are checked too: each must name another agent of the file or of
 * the project (`existing`); with `outbound`, HTTP tools' endpoints and secrets as `POST /api/agents` checks them.
 * @example
 * parseProjectFile({ agents: { main: { tools: ["Bad Name"] } } }, new Set())
 * // { ok: false, issues: [{ path: "$.agents.main.tools[0]", message: "a tool name: …" }] }
 */
export function parseProjectFile(
  value: unknown,
  existing: ReadonlySet<string>,
  outbound?: OutboundSettings,
): { ok: true; file: ProjectFile; warnings: FileIssue[] } | { ok: false; issues: FileIssue[] } {
  const parsed = projectFileSchema.safeParse(value);
  if (!parsed.success) {
    const keyMessage = (key: PropertyKey | undefined) =>
      typeof key === "string" && isReservedName(key)
        ? `'${key}' is not an agent name: ${reservedNameMessage}`
        : "an agent name: a lower-case slug (a letter, then letters, digits or '-', at most 63 characters)";
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        path: jsonPath(issue.path),
        message: issue.code === "invalid_key" ? keyMessage(issue.path.at(-1)) : issue.message,
      })),
    };
  }
  const warnings: FileIssue[] = [];
  const issues: FileIssue[] = [];
  for (const key of Object.keys(parsed.data))
    if (key !== "agents" && key !== "scriptTools")
      warnings.push({ path: jsonPath([key]), message: `'${key}' is not part of a project file and is ignored` });
  const agents: Record<string, ProjectFileAgent> = {};
  const names = new Set([...Object.keys(parsed.data.agents), ...existing]);
  for (const [key, agent] of Object.entries(parsed.data.agents)) {
    for (const extra of Object.keys(agent)) {
      if (!(knownAgentKeys as readonly string[]).includes(extra))
        warnings.push({
          path: jsonPath(["agents", key, extra]),
          message: `'${extra}' is not part of a project file and is ignored (Pantheon's own fields go under 'pantheon')`,
        });
    }
    agent.connections.forEach((to, i) => {
      const path = jsonPath(["agents", key, "connections", i]);
      if (to === key) issues.push({ path, message: `agent '${key}' cannot be connected to itself` });
      else if (!names.has(to))
        issues.push({ path, message: `no agent '${to}' in this file or the project: connections name other agents` });
    });
    for (const { index, message } of denyPatternProblems(agent.pantheon?.runtime?.gates ?? []))
      issues.push({ path: jsonPath(["agents", key, "pantheon", "runtime", "gates", index, "pattern"]), message });
    const runtime = agent.pantheon?.runtime;
    if (outbound && runtime)
      for (const issue of runtimeOutboundIssues(runtime, outbound))
        issues.push({ path: jsonPath(["agents", key, "pantheon", "runtime", ...issue.path]), message: issue.message });
    const { name, description, tools, connections, pantheon } = agent;
    agents[key] = {
      ...(name === undefined ? {} : { name }),
      description,
      tools: [...new Set(tools)],
      connections: [...new Set(connections)],
      ...(pantheon ? { pantheon } : {}),
    };
  }
  const { scriptTools } = parsed.data;
  return issues.length
    ? { ok: false, issues }
    : { ok: true, file: { agents, ...(scriptTools ? { scriptTools } : {}) }, warnings };
}

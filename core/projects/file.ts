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
import { builtinToolNames } from "../tools/builtins/catalog";

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

/** A header a project's MCP server is sent: a literal value, or a project secret by name (never its value). */
const mcpHeaderValue = lazySchema(() =>
  z.union([
    z.string().max(4096, "at most 4096 characters"),
    z.strictObject({
      secret: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, "a secret's name: upper-case letters, digits and '_'"),
      prefix: z.string().max(64, "at most 64 characters").optional(),
    }),
  ]),
);

/**
 * The MCP servers the project declares for all its agents, keyed by the server's name (it prefixes
 * their tools): the declaration only (URL, transport, headers naming secrets, whether the project
 * authorises it by OAuth), never a token; the receiving project's agents connect them.
 */
export const projectMcpServersSchema = lazySchema(() =>
  z
    .record(
      z
        .string()
        .regex(/^[a-z][a-z0-9_-]{0,31}$/, "lowercase letters, digits, '-' or '_', starting with a letter, at most 32")
        .refine(
          (name) => !["agent", "mcp", ...builtinToolNames().map((tool) => tool.split(".")[0])].includes(name),
          "a built-in tool namespace; an MCP server may not take it",
        ),
      z.strictObject({
        url: z
          .url({ protocol: /^https?$/, error: "an http:// or https:// URL of an MCP server" })
          .max(2048, "at most 2048 characters"),
        transport: z.enum(["auto", "streamable-http", "sse"]).optional(),
        headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "a header name"), mcpHeaderValue).default({}),
        oauth: z.literal(true).optional(),
      }),
    )
    .refine((servers) => Object.keys(servers).length <= 16, "at most 16 MCP servers"),
);
export type ProjectFileMcpServers = z.infer<typeof projectMcpServersSchema>;

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
    mcpServers: projectMcpServersSchema.optional(),
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
  /** The project's MCP servers for all its agents (declarations, no token), by name. */
  mcpServers?: ProjectFileMcpServers;
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
        message:
          issue.code !== "invalid_key"
            ? issue.message
            : issue.path[0] === "agents"
              ? keyMessage(issue.path.at(-1))
              : // Another record's key (an MCP server's name): its own rule's words.
                (issue.issues[0]?.message ?? issue.message),
      })),
    };
  }
  const warnings: FileIssue[] = [];
  const issues: FileIssue[] = [];
  for (const key of Object.keys(parsed.data))
    if (key !== "agents" && key !== "scriptTools" && key !== "mcpServers")
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
  const { scriptTools, mcpServers } = parsed.data;
  for (const [name, server] of Object.entries(mcpServers ?? {}))
    if (server.oauth && Object.keys(server.headers).some((header) => header.toLowerCase() === "authorization"))
      issues.push({
        path: jsonPath(["mcpServers", name, "headers", "Authorization"]),
        message: "a server authorised by OAuth is sent the project's token; give no Authorization header with oauth",
      });
  return issues.length
    ? { ok: false, issues }
    : {
        ok: true,
        file: { agents, ...(scriptTools ? { scriptTools } : {}), ...(mcpServers ? { mcpServers } : {}) },
        warnings,
      };
}

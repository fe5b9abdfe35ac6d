import { agentRuntimeSchema, profileFromScript, type AgentProfile, type AgentRuntime, type JsonValue } from "../agents";
import { compileScript, compileScriptJson, isScriptError, type ActorScript } from "../dsl";
import { modelSettingsSchema, type ModelSettings } from "../run/limits";
import { jsonPath } from "../errors";
import type { FileIssue, ProjectFile, ProjectFileAgent } from "./file";
import { ownValue } from "../reserved-names";

/** An agent as the project holds it now. */
export interface CurrentAgent {
  profile: AgentProfile;
  /** The project file's `name` (a display name), when one was imported. */
  displayName: string | null;
  scriptSource: string | null;
}

/** What an import writes for one agent. */
export interface DesiredAgent {
  name: string;
  displayName: string | null;
  description: string;
  systemPrompt: string;
  role: string | null;
  goals: string[];
  model: ModelSettings;
  runtime: AgentRuntime;
  script: JsonValue | null;
  scriptSource: string | null;
}

export interface ImportPlan {
  create: DesiredAgent[];
  update: DesiredAgent[];
  unchanged: string[];
  /** Agents whose connections change, with their new connections. */
  connect: { name: string; connections: string[] }[];
  added: string[];
  removed: string[];
  warnings: FileIssue[];
  changed: boolean;
}

export interface PlanOptions {
  /** The model of an agent created without `pantheon.model` (the deployment's default). */
  defaultModel: ModelSettings;
  /** Tools every agent has (built-ins such as `clock.now`, `http.fetch`, `memory.search`). */
  builtinTools: ReadonlySet<string>;
  /** Tools an existing agent has beyond those (its MCP servers' tools), by agent. */
  agentTools?: Readonly<Record<string, readonly string[]>>;
}

/** Key-sorted JSON, so two equal values compare equal whatever order their keys were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

const edge = (from: string, to: string) => `${from} -> ${to}`;

function compileFileScript(key: string, source: string, issues: FileIssue[]): ActorScript | null {
  const path = jsonPath(["agents", key, "pantheon", "script"]);
  try {
    const json = source.trimStart().startsWith("{");
    const script = (json ? compileScriptJson(JSON.parse(source) as unknown) : compileScript(source)).script;
    if (script.name !== key)
      issues.push({ path, message: `the script defines actor '${script.name}' but is the script of agent '${key}'` });
    return script;
  } catch (error) {
    if (isScriptError(error))
      issues.push(
        ...error.issues.map((i) => ({
          path,
          message: i.line ? `${i.line}:${i.column}: ${i.message}` : `${i.form}: ${i.message}`,
        })),
      );
    else if (error instanceof SyntaxError) issues.push({ path, message: `not valid JSON: ${error.message}` });
    else throw error;
    return null;
  }
}

/** The agent the file describes, from what exists (or the defaults): the script first, then the file's fields. */
function desiredOf(
  key: string,
  entry: ProjectFileAgent,
  current: CurrentAgent | undefined,
  options: PlanOptions,
  issues: FileIssue[],
): DesiredAgent | null {
  const fields = entry.pantheon ?? {};
  const base = current?.profile;
  let systemPrompt =
    base?.systemPrompt ?? `You are ${entry.name ?? key}.${entry.description ? ` ${entry.description}` : ""}`;
  let model: ModelSettings = base?.model ?? options.defaultModel;
  let runtime: AgentRuntime = base?.runtime ?? agentRuntimeSchema.parse({});
  let role = base?.role ?? null;
  let goals = base?.goals ?? [];
  let script: JsonValue | null = base?.script ?? null;
  let scriptSource = current?.scriptSource ?? null;
  if (fields.script !== undefined) {
    const compiled = compileFileScript(key, fields.script, issues);
    if (!compiled) return null;
    const derived = profileFromScript(compiled, runtime);
    ({ systemPrompt, model, runtime } = derived);
    // A script that names a role or goals sets them (as PUT …/script does); one that does not leaves them.
    role = derived.role ?? role;
    goals = derived.goals ?? goals;
    script = JSON.parse(JSON.stringify(compiled)) as JsonValue;
    scriptSource = fields.script;
  }
  if (fields.instructions !== undefined) systemPrompt = fields.instructions;
  if (fields.role !== undefined) role = fields.role;
  if (fields.goals !== undefined) goals = fields.goals;
  if (fields.model !== undefined) model = fields.model;
  if (fields.runtime !== undefined) runtime = agentRuntimeSchema.parse({ ...fields.runtime, tools: runtime.tools });
  runtime = agentRuntimeSchema.parse({ ...runtime, tools: entry.tools });
  const displayName =
    entry.name === undefined ? (current?.displayName ?? null) : entry.name === key ? null : entry.name;
  return {
    name: key,
    displayName,
    description: entry.description,
    systemPrompt,
    role,
    goals,
    model: modelSettingsSchema.parse(model),
    runtime,
    script,
    scriptSource,
  };
}

function sameAgent(desired: DesiredAgent, current: CurrentAgent): boolean {
  const p = current.profile;
  const now = {
    displayName: current.displayName,
    description: p.description,
    systemPrompt: p.systemPrompt,
    role: p.role ?? null,
    goals: p.goals ?? [],
    model: modelSettingsSchema.parse(p.model),
    runtime: agentRuntimeSchema.parse(p.runtime),
    script: p.script,
    scriptSource: current.scriptSource,
  };
  const { name: _, ...wanted } = desired;
  return canonical(now) === canonical(wanted);
}

/**
 * What importing `file` into a project holding `current` changes: agents to create and update,
 * connections to set (after every agent exists), and warnings (tools Pantheon does not provide are
 * kept as declared names). A second import of the same file plans nothing (`changed: false`).
 * Agents of the project that the file does not name are left as they are.
 * @example
 * const planned = planImport(file, current, { defaultModel, builtinTools: new Set(["clock.now"]) });
 * if (planned.ok && !planned.plan.changed) console.log("nothing to do");
 */
export function planImport(
  file: ProjectFile,
  current: readonly CurrentAgent[],
  options: PlanOptions,
): { ok: true; plan: ImportPlan } | { ok: false; issues: FileIssue[] } {
  const byName = new Map(current.map((c) => [c.profile.name, c]));
  const issues: FileIssue[] = [];
  const warnings: FileIssue[] = [];
  const plan: ImportPlan = {
    create: [],
    update: [],
    unchanged: [],
    connect: [],
    added: [],
    removed: [],
    warnings,
    changed: false,
  };
  for (const [key, entry] of Object.entries(file.agents)) {
    const existing = byName.get(key);
    const desired = desiredOf(key, entry, existing, options, issues);
    if (!desired) continue;
    const provided = new Set([
      ...options.builtinTools,
      ...desired.runtime.httpTools.map((t) => t.name),
      ...(ownValue(options.agentTools, key) ?? []),
    ]);
    entry.tools.forEach((tool, i) => {
      if (!provided.has(tool))
        warnings.push({
          path: jsonPath(["agents", key, "tools", i]),
          message: `'${tool}' is not a tool Pantheon provides; kept as a declared name (the agent can call it once a tool of that name exists: an HTTP tool or an MCP server's)`,
        });
    });
    if (!existing) plan.create.push(desired);
    else if (sameAgent(desired, existing)) plan.unchanged.push(key);
    else plan.update.push(desired);

    const before = existing?.profile.connections ?? [];
    const after = entry.connections;
    if (canonical([...before].sort()) !== canonical([...after].sort())) {
      plan.connect.push({ name: key, connections: after });
      plan.added.push(...after.filter((c) => !before.includes(c)).map((c) => edge(key, c)));
      plan.removed.push(...before.filter((c) => !after.includes(c)).map((c) => edge(key, c)));
    }
  }
  if (issues.length) return { ok: false, issues };
  plan.changed = plan.create.length + plan.update.length + plan.connect.length > 0;
  return { ok: true, plan };
}

/**
 * The project as a project file: every agent with its display name, description, tools and
 * connections, and Pantheon's own fields under `pantheon` (core/agents/definition.ts: every field
 * of the agent's definition). Importing it into an empty project
 * makes the same agents.
 */
export function exportProjectFile(current: readonly CurrentAgent[]): ProjectFile {
  const agents: ProjectFile["agents"] = {};
  for (const { profile, displayName, scriptSource } of [...current].sort((a, b) =>
    a.profile.name.localeCompare(b.profile.name),
  )) {
    const { tools, ...runtime } = profile.runtime;
    agents[profile.name] = {
      name: displayName ?? profile.name,
      description: profile.description,
      tools,
      connections: profile.connections,
      pantheon: {
        instructions: profile.systemPrompt,
        ...(profile.role ? { role: profile.role } : {}),
        ...(profile.goals?.length ? { goals: profile.goals } : {}),
        model: profile.model,
        runtime,
        ...(scriptSource !== null ? { script: scriptSource } : {}),
      },
    };
  }
  return { agents };
}

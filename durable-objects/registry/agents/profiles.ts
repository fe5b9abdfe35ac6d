import { asc, eq, inArray, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { RunPrincipal } from "../../../core/auth";
import { agentRuntimeSchema, goalsOf, type AgentInput, type AgentPatch, type AgentProfile } from "../../../core/agents";
import { PantheonError, unknownAgent, type Result } from "../../../core/errors";
import type { ProviderStore } from "../provider-store";
import type { ScriptToolStore } from "../script-tool-store";
import type { SkillStore } from "../skill-store";
import type { ProjectQuotas } from "../quotas";
import * as schema from "../schema";

export type AgentRow = typeof schema.agents.$inferSelect;

/** An agent's stored row as its profile (without what is read from other rows: askedBy, connection descriptions). */
export function toProfile(row: AgentRow): AgentProfile {
  return {
    name: row.name,
    description: row.description,
    systemPrompt: row.systemPrompt,
    model: row.model as AgentProfile["model"],
    // A runtime stored as the JSON text of an object (an old column default) is read as that object.
    runtime: agentRuntimeSchema.parse(typeof row.runtime === "string" ? JSON.parse(row.runtime) : (row.runtime ?? {})),
    connections: (row.connections as string[]) ?? [],
    role: row.role ?? null,
    goals: goalsOf(row.goals),
    archivedAt: row.archivedAt ?? null,
    script: (row.script ?? null) as AgentProfile["script"],
    ...(row.configuredBy ? { configuredBy: row.configuredBy as RunPrincipal } : {}),
    parent: row.parent,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const fail = (error: PantheonError) => error.toFailure();

/**
 * The project's agents (`agents` rows, their incarnations in the object's KV): created, read as
 * profiles, changed, connected, deleted. Answers `Result`s, as RegistryDO's RPC methods do.
 */
export function makeAgentProfiles(deps: {
  db: DrizzleSqliteDODatabase<typeof schema>;
  kv: DurableObjectState["storage"]["kv"];
  providers: ProviderStore;
  /** The project's script tools: a profile carries the ones its tools list (core/sandbox). */
  scriptTools: Pick<ScriptToolStore, "of">;
  /** The project's skills: a profile carries the ones its runtime names, with what they require (core/skills). */
  skills: Pick<SkillStore, "of">;
  quotas: ProjectQuotas;
  project: () => string;
}) {
  // profileOf names the profile's own `providers`: there the store is `deps.providers`.
  const { db, kv, providers, quotas } = deps;

  /** An agent this project does not have, in the words every door uses (core/errors.ts). */
  function missing(name: string) {
    return fail(unknownAgent(name, deps.project()));
  }

  /**
   * The agent's incarnation: drawn when it is created, gone when it is deleted. An agent stored before
   * incarnations existed gets one the first time it is read.
   */
  function incarnationOf(name: string): string {
    const key = `incarnation/${name}`;
    let id = kv.get<string>(key);
    if (!id) kv.put(key, (id = crypto.randomUUID()));
    return id;
  }

  /** The stored profile with its connections' descriptions, read now so they are never stale. */
  function profileOf(row: AgentRow): AgentProfile {
    const askedBy = db
      .select({ name: schema.agents.name })
      .from(schema.agents)
      .where(sql`exists (select 1 from json_each(${schema.agents.connections}) where json_each.value = ${row.name})`)
      .orderBy(asc(schema.agents.name))
      .all()
      .map((r) => r.name);
    const providers = deps.providers.of(row.model as AgentProfile["model"]);
    const projectQuota = quotas.forProfile();
    const own = toProfile(row);
    const scriptTools = deps.scriptTools.of(own.runtime);
    const skillLibrary = deps.skills.of(own.runtime);
    const profile = {
      ...own,
      askedBy,
      incarnation: incarnationOf(row.name),
      ...(providers ? { providers } : {}),
      ...(scriptTools ? { scriptTools } : {}),
      ...(skillLibrary ? { skillLibrary } : {}),
      ...(projectQuota ? { projectQuota } : {}),
    };
    if (profile.connections.length === 0) return profile;
    const targets = db
      .select({ name: schema.agents.name, description: schema.agents.description })
      .from(schema.agents)
      .where(inArray(schema.agents.name, profile.connections))
      .all();
    return {
      ...profile,
      connectionDescriptions: Object.fromEntries(
        targets.filter((t) => t.description).map((t) => [t.name, t.description]),
      ),
    };
  }

  function listAgents(): AgentProfile[] {
    return db
      .select()
      .from(schema.agents)
      .orderBy(asc(schema.agents.name))
      .all()
      .map((row) => profileOf(row));
  }

  function getAgent(name: string): Result<AgentProfile> {
    const row = db.select().from(schema.agents).where(eq(schema.agents.name, name)).get();
    return row ? { ok: true, value: profileOf(row) } : missing(name);
  }

  function createAgent(input: AgentInput & { parent?: string; connections?: string[] }): Result<AgentProfile> {
    if (db.select({ name: schema.agents.name }).from(schema.agents).where(eq(schema.agents.name, input.name)).get()) {
      return fail(
        new PantheonError("conflict", `an agent named '${input.name}' already exists`, {
          details: { agent: input.name },
        }),
      );
    }
    const unknownProvider = providers.refusal(input.model);
    if (unknownProvider) return unknownProvider;
    const now = Date.now();
    const row = db
      .insert(schema.agents)
      .values({
        name: input.name,
        description: input.description,
        systemPrompt: input.systemPrompt,
        model: input.model,
        runtime: input.runtime,
        role: input.role ?? null,
        goals: input.goals ?? [],
        connections: input.connections ?? [],
        parent: input.parent ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    kv.put(`incarnation/${input.name}`, crypto.randomUUID());
    return { ok: true, value: profileOf(row) };
  }

  /** `configuredBy`: who set the script (its behaviors act for them); recorded with every script change. */
  function updateAgent(
    name: string,
    patch: AgentPatch & {
      connections?: string[];
      script?: AgentProfile["script"];
      scriptSource?: string;
      configuredBy?: RunPrincipal;
    },
  ): Result<AgentProfile> {
    const unknownProvider = patch.model ? providers.refusal(patch.model) : undefined;
    if (unknownProvider) return unknownProvider;
    const values: Partial<AgentRow> = { updatedAt: Date.now() };
    if (patch.description !== undefined) values.description = patch.description;
    if (patch.systemPrompt !== undefined) values.systemPrompt = patch.systemPrompt;
    if (patch.model !== undefined) values.model = patch.model;
    if (patch.runtime !== undefined) values.runtime = patch.runtime;
    if (patch.connections !== undefined) values.connections = patch.connections;
    if (patch.role !== undefined) values.role = patch.role;
    if (patch.goals !== undefined) values.goals = patch.goals;
    if (patch.script !== undefined) values.script = patch.script;
    if (patch.scriptSource !== undefined) values.scriptSource = patch.scriptSource;
    if (patch.configuredBy !== undefined) values.configuredBy = patch.configuredBy;
    // A script set by someone not named acts for nobody known: the least scope, not the last configurer's.
    else if (patch.script !== undefined) values.configuredBy = null;
    const row = db.update(schema.agents).set(values).where(eq(schema.agents.name, name)).returning().get();
    return row ? { ok: true, value: profileOf(row) } : missing(name);
  }

  function getScriptSource(name: string): Result<string | null> {
    const row = db
      .select({ source: schema.agents.scriptSource })
      .from(schema.agents)
      .where(eq(schema.agents.name, name))
      .get();
    return row ? { ok: true, value: row.source } : missing(name);
  }

  function deleteAgent(name: string): Result<true> {
    const row = db.delete(schema.agents).where(eq(schema.agents.name, name)).returning().get();
    if (!row) return missing(name);
    kv.delete(`display-name/${name}`);
    kv.delete(`incarnation/${name}`);
    // Connections to a deleted agent are dropped so no request can be routed to it.
    for (const other of listAgents()) {
      if (other.connections.includes(name)) {
        updateAgent(other.name, { connections: other.connections.filter((c) => c !== name) });
      }
    }
    return { ok: true, value: true };
  }

  /** Agents connected to `name`: their `ask_<name>` tool describes it, so they are re-configured when it changes. */
  function dependentsOf(name: string): AgentProfile[] {
    return listAgents().filter((agent) => agent.connections.includes(name));
  }

  /** Replaces an agent's connections; each must name another existing agent. */
  function setConnections(name: string, connections: string[]): Result<AgentProfile> {
    const known = new Set(listAgents().map((a) => a.name));
    const problem = (c: string) =>
      c === name ? `agent '${c}' cannot be connected to itself` : known.has(c) ? null : `agent '${c}' does not exist`;
    const issues = connections.flatMap((c, i) => {
      const message = problem(c);
      return message ? [{ path: ["connections", i], message }] : [];
    });
    if (issues.length) {
      const unknown = connections.filter((c) => c !== name && !known.has(c));
      const message = unknown.length
        ? `no agent named ${unknown.map((u) => `'${u}'`).join(", ")}: connect only existing agents`
        : `agent '${name}' cannot be connected to itself`;
      return fail(new PantheonError("validation_failed", message, { details: { issues } }));
    }
    return updateAgent(name, { connections: [...new Set(connections)] });
  }

  function agentCount(): number {
    return db.select({ name: schema.agents.name }).from(schema.agents).all().length;
  }

  return {
    listAgents,
    getAgent,
    createAgent,
    updateAgent,
    getScriptSource,
    deleteAgent,
    dependentsOf,
    setConnections,
    agentCount,
  };
}

export type AgentProfiles = ReturnType<typeof makeAgentProfiles>;

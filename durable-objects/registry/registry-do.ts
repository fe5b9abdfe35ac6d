import { unknownPrincipal, type RunPrincipal } from "../../core/auth";
import { DurableObject } from "cloudflare:workers";
import { asc, eq, inArray, sql } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { agentRuntimeSchema, checkSpawn, defaultAgentRuntime, profileFromScript, spawnGrantOf, type AgentInput, type AgentPatch, type AgentProfile, type JsonValue } from "../../core/agents";
import { compileScript, isScriptError, type ActorScript } from "../../core/dsl";
import type { Scope } from "../../core/auth";
import { makeAccess, type Access, type InviteInfo, type TokenIdentity, type TokenInfo } from "./access";
import { PantheonError, resultOf, unknownAgent, type Result } from "../../core/errors";
import { capsOf, tightest, type LeaseRequest, type QuotaPatch } from "../../core/quotas";
import { makeProjectQuotas, type ProjectQuotas } from "./quotas";
import migrations from "../../migrations/registry/migrations.js";
import * as schema from "./schema";
import { makeProviderStore, type ProviderStore } from "./provider-store";
import type { ModelProvider } from "../../core/models";
import { makeBusLog, type BusLog, type BusLogEntry } from "./bus-log";
import { makeSecretStore, type SecretStore } from "./secret-store";
import type { SealedSecret } from "../../core/secrets";
import type { BusMessage } from "../../core/bus";
import type { OutboundSettings } from "../../core/tools";
import { exportProjectFile, parseProjectFile, planImport, projectStatus, type CurrentAgent, type FileIssue, type PlanOptions, type ProjectFile, type ProjectRecord } from "../../core/projects";

/** What `POST /api/projects/:slug/import` answers (the contract of issue 15). */
export interface ImportReport {
  changed: boolean;
  agents: { created: string[]; updated: string[]; unchanged: string[] };
  connections: { added: string[]; removed: string[] };
  warnings: FileIssue[];
}

export type { InviteInfo, TokenIdentity, TokenInfo } from "./access";

type AgentRow = typeof schema.agents.$inferSelect;

function toProfile(row: AgentRow): AgentProfile {
  return {
    name: row.name,
    description: row.description,
    systemPrompt: row.systemPrompt,
    model: row.model as AgentProfile["model"],
    runtime: agentRuntimeSchema.parse(row.runtime ?? {}),
    connections: (row.connections as string[]) ?? [],
    role: row.role ?? null,
    goals: (row.goals as string[] | null) ?? [],
    archivedAt: row.archivedAt ?? null,
    script: (row.script ?? null) as AgentProfile["script"],
    ...(row.configuredBy ? { configuredBy: row.configuredBy as RunPrincipal } : {}),
    parent: row.parent,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const fail = (error: PantheonError) => error.toFailure();
const invalidFile = (issues: FileIssue[]) =>
  new PantheonError("invalid_project_file", `the project file is not valid: ${issues[0]?.path}: ${issues[0]?.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`, { details: { issues } });

/**
 * One per project: the agents of the project, their connections, and API tokens.
 * Methods return `Result`s rather than throwing, because only plain Errors survive RPC.
 */
export class RegistryDO extends DurableObject<Env> {
  private readonly db: DrizzleSqliteDODatabase<typeof schema>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
    this.bus = makeBusLog(this.db, () => Date.now());
    this.access = makeAccess(this.db, (fn) => ctx.storage.transactionSync(fn), () => Date.now());
    this.secrets = makeSecretStore(this.db, () => Date.now());
    this.providers = makeProviderStore(ctx.storage.kv, () => this.project);
    this.quotas = makeProjectQuotas({ kv: ctx.storage.kv, now: () => Date.now(), testClock: env.PANTHEON_TEST_CLOCK === "1", project: () => this.project });
  }

  // ---- daily caps (./quotas.ts): the project's own, the deployment's ceiling, the agents' leases ---
  private readonly quotas: ProjectQuotas;
  quotaView() { return this.quotas.view(); }
  quotaSetOwn(patch: QuotaPatch) { return this.quotas.setOwn(patch); }
  quotaSetCeiling(patch: QuotaPatch) { return this.quotas.setCeiling(patch); }
  quotaLease(request: Omit<LeaseRequest, "now">) { return this.quotas.lease(request); }
  quotaSetClock(offsetMs: number) { return resultOf(() => this.quotas.setClockOffset(offsetMs)); }

  /** This registry's project: the name it was reached by (`registryStub(env, project)`). */
  private get project(): string {
    return this.ctx.id.name ?? "this project";
  }

  /** An agent this project does not have, in the words every door uses (core/errors.ts). */
  private missing(name: string) {
    return fail(unknownAgent(name, this.project));
  }

  // ---- project secrets (./secret-store.ts): sealed by the worker, opened only by the agent -------
  private readonly secrets: SecretStore;
  secretPut(sealed: SealedSecret) { return this.secrets.put(sealed); }
  secretList() { return this.secrets.list(); }
  secretDelete(name: string): Result<true> {
    return this.secrets.remove(name) ? { ok: true, value: true } : fail(new PantheonError("not_found", `no secret '${name}' in this project`, { details: { secret: name } }));
  }
  secretNames() { return { ...this.secrets.names(), modelKeys: this.providers.keySecrets() }; }

  // ---- named model providers (./provider-store.ts): plain storage, one record each ------------
  private readonly providers: ProviderStore;
  providerList() { return this.providers.list(); }
  providerPut(provider: ModelProvider) { return this.providers.put(provider, this.secrets.names().own, this.listAgents()); }
  providerDelete(name: string) { return this.providers.remove(name, this.listAgents()); }
  secretsSealed(names: string[]) { return this.secrets.sealed(names); }
  secretFingerprint(name: string) { return this.secrets.fingerprint(name); }
  secretGrant(name: string) { return this.secrets.grant(name); }
  secretRevoke(name: string): Result<true> {
    return this.secrets.revoke(name) ? { ok: true, value: true } : fail(new PantheonError("not_found", `no deployment secret '${name}' is granted to this project`, { details: { secret: name } }));
  }

  // ---- bus (core/bus; the log lives in ./bus-log.ts) ------------------------------------------
  private readonly bus: BusLog;
  busRecord(entries: BusLogEntry[]): void {
    this.bus.record(entries);
  }
  busAdmit(message: BusMessage) {
    return this.bus.admit(message, (name) => this.db.select({ c: schema.agents.connections }).from(schema.agents).where(eq(schema.agents.name, name)).get()?.c as string[] | undefined);
  }
  busConversation(conversationId: string) {
    return this.bus.conversation(conversationId);
  }
  busCounts() { return this.bus.counts(); }

  /** Replaces an agent's connections; each must name another existing agent. */
  setConnections(name: string, connections: string[]): Result<AgentProfile> {
    const known = new Set(this.listAgents().map((a) => a.name));
    const problem = (c: string) => (c === name ? `agent '${c}' cannot be connected to itself` : known.has(c) ? null : `agent '${c}' does not exist`);
    const issues = connections.flatMap((c, i) => {
      const message = problem(c);
      return message ? [{ path: ["connections", i], message }] : [];
    });
    if (issues.length) {
      const unknown = connections.filter((c) => c !== name && !known.has(c));
      const message = unknown.length ? `no agent named ${unknown.map((u) => `'${u}'`).join(", ")}: connect only existing agents` : `agent '${name}' cannot be connected to itself`;
      return fail(new PantheonError("validation_failed", message, { details: { issues } }));
    }
    return this.updateAgent(name, { connections: [...new Set(connections)] });
  }

  /**
   * A child agent created by `parent` from a script (spawn). The registry, not the asking agent,
   * compiles the script and enforces the graph rules (core/agents/spawn.ts): the child connects only
   * to its parent and the parent's connections, every ancestor's quota bounds the agents spawned
   * below it, and the child's own quota is at most what is left. The child's runtime is derived from
   * its script alone (no hosts, HTTP tools or secrets of the operator's). The parent gets the child
   * as a connection.
   */
  spawnChild(parent: string, scriptSource: string, configuredBy?: RunPrincipal): Result<{ child: AgentProfile; parent: AgentProfile }> {
    if (typeof scriptSource !== "string") return fail(new PantheonError("validation_failed", "the child's script must be DSL source text"));
    let script: ActorScript;
    try {
      script = compileScript(scriptSource).script;
    } catch (error) {
      if (!isScriptError(error)) throw error;
      return fail(new PantheonError("validation_failed", `the script does not compile: ${error.message}`, { details: { issues: error.issues } }));
    }
    const agents = this.listAgents();
    const refused = checkSpawn(agents.map((a) => ({ name: a.name, parent: a.parent, connections: a.connections, spawn: spawnGrantOf(a.script) })), parent, script);
    if (refused) return fail(refused);
    const owner = agents.find((a) => a.name === parent)!;
    const derived = profileFromScript(script, defaultAgentRuntime);
    // Its daily caps are at most its parent's (core/quotas): spawning is no way around them.
    const created = this.createAgent({ name: script.name, ...derived, runtime: { ...derived.runtime, limits: { ...derived.runtime.limits, ...tightest(capsOf(owner.runtime.limits), capsOf(derived.runtime.limits)) } }, parent });
    if (!created.ok) return created;
    this.updateAgent(script.name, { script: JSON.parse(JSON.stringify(script)) as JsonValue, scriptSource, configuredBy: configuredBy ?? unknownPrincipal });
    const updated = this.updateAgent(parent, { connections: [...new Set([...owner.connections, script.name])] });
    if (!updated.ok) return updated;
    const child = this.getAgent(script.name);
    return child.ok ? { ok: true, value: { child: child.value, parent: updated.value } } : child;
  }

  /**
   * Archives a child its parent spawned (its supervisor's `onDone: archive`, or its time to live
   * ended): it leaves the graph — no agent connects to it, it connects to none — and stays readable
   * (its profile, history and runs). Only the parent that spawned it may.
   */
  archiveChild(parent: string, child: string): Result<{ child: AgentProfile; parent: AgentProfile }> {
    const found = this.getAgent(child);
    if (!found.ok) return found;
    if (found.value.parent !== parent) return fail(new PantheonError("forbidden", `agent '${child}' was not spawned by '${parent}': only its parent archives it`, { details: { agent: child } }));
    for (const other of this.dependentsOf(child)) this.updateAgent(other.name, { connections: other.connections.filter((c) => c !== child) });
    this.db.update(schema.agents).set({ connections: [], archivedAt: Date.now(), updatedAt: Date.now() }).where(eq(schema.agents.name, child)).run();
    const [archived, owner] = [this.getAgent(child), this.getAgent(parent)];
    if (!archived.ok) return archived;
    return owner.ok ? { ok: true, value: { child: archived.value, parent: owner.value } } : owner;
  }

  /** The stored profile with its connections' descriptions, read now so they are never stale. */
  private profileOf(row: AgentRow): AgentProfile {
    const askedBy = this.db
      .select({ name: schema.agents.name })
      .from(schema.agents)
      .where(sql`exists (select 1 from json_each(${schema.agents.connections}) where json_each.value = ${row.name})`)
      .orderBy(asc(schema.agents.name))
      .all()
      .map((r) => r.name);
    const providers = this.providers.of(row.model as AgentProfile["model"]);
    const projectQuota = this.quotas.forProfile();
    const profile = { ...toProfile(row), askedBy, incarnation: this.incarnationOf(row.name), ...(providers ? { providers } : {}), ...(projectQuota ? { projectQuota } : {}) };
    if (profile.connections.length === 0) return profile;
    const targets = this.db
      .select({ name: schema.agents.name, description: schema.agents.description })
      .from(schema.agents)
      .where(inArray(schema.agents.name, profile.connections))
      .all();
    return { ...profile, connectionDescriptions: Object.fromEntries(targets.filter((t) => t.description).map((t) => [t.name, t.description])) };
  }

  /**
   * The agent's incarnation: drawn when it is created, gone when it is deleted. An agent stored before
   * incarnations existed gets one the first time it is read.
   */
  private incarnationOf(name: string): string {
    const key = `incarnation/${name}`;
    let id = this.ctx.storage.kv.get<string>(key);
    if (!id) this.ctx.storage.kv.put(key, (id = crypto.randomUUID()));
    return id;
  }

  /** Agents connected to `name`: their `ask_<name>` tool describes it, so they are re-configured when it changes. */
  dependentsOf(name: string): AgentProfile[] { return this.listAgents().filter((agent) => agent.connections.includes(name)); }

  /** A bare round trip for the benchmarks (`GET /api/health/echo`): no storage, no work. */
  echo(x: string): string { return x; }

  listAgents(): AgentProfile[] { return this.db.select().from(schema.agents).orderBy(asc(schema.agents.name)).all().map((row) => this.profileOf(row)); }

  getAgent(name: string): Result<AgentProfile> {
    const row = this.db.select().from(schema.agents).where(eq(schema.agents.name, name)).get();
    return row ? { ok: true, value: this.profileOf(row) } : this.missing(name);
  }

  createAgent(input: AgentInput & { parent?: string; connections?: string[] }): Result<AgentProfile> {
    if (this.db.select({ name: schema.agents.name }).from(schema.agents).where(eq(schema.agents.name, input.name)).get()) {
      return fail(new PantheonError("conflict", `an agent named '${input.name}' already exists`, { details: { agent: input.name } }));
    }
    const unknownProvider = this.providers.refusal(input.model);
    if (unknownProvider) return unknownProvider;
    const now = Date.now();
    const row = this.db
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
    this.ctx.storage.kv.put(`incarnation/${input.name}`, crypto.randomUUID());
    return { ok: true, value: this.profileOf(row) };
  }

  /** `configuredBy`: who set the script (its behaviors act for them); recorded with every script change. */
  updateAgent(name: string, patch: AgentPatch & { connections?: string[]; script?: AgentProfile["script"]; scriptSource?: string; configuredBy?: RunPrincipal }): Result<AgentProfile> {
    const unknownProvider = patch.model ? this.providers.refusal(patch.model) : undefined;
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
    const row = this.db.update(schema.agents).set(values).where(eq(schema.agents.name, name)).returning().get();
    return row ? { ok: true, value: this.profileOf(row) } : this.missing(name);
  }

  getScriptSource(name: string): Result<string | null> {
    const row = this.db.select({ source: schema.agents.scriptSource }).from(schema.agents).where(eq(schema.agents.name, name)).get();
    return row ? { ok: true, value: row.source } : this.missing(name);
  }

  deleteAgent(name: string): Result<true> {
    const row = this.db.delete(schema.agents).where(eq(schema.agents.name, name)).returning().get();
    if (!row) return this.missing(name);
    this.ctx.storage.kv.delete(`display-name/${name}`);
    this.ctx.storage.kv.delete(`incarnation/${name}`);
    // Connections to a deleted agent are dropped so no request can be routed to it.
    for (const other of this.listAgents()) {
      if (other.connections.includes(name)) {
        this.updateAgent(other.name, { connections: other.connections.filter((c) => c !== name) });
      }
    }
    return { ok: true, value: true };
  }

  // ---- the project itself (core/projects). Plain storage: one record, no schema needed. -----

  /**
   * This project's record, or null when it was never created. A registry with agents or tokens but
   * no record (made before creation was explicit) is adopted: the record is written now, and
   * `adopted` tells the caller to add it to the project index. `default` always exists.
   */
  async projectInfo(slug: string): Promise<{ record: ProjectRecord; adopted: boolean } | null> {
    const stored = (await this.ctx.storage.get<ProjectRecord>("project")) ?? null;
    const hasData = !stored && (this.db.select({ n: schema.agents.name }).from(schema.agents).limit(1).get() !== undefined || this.db.select({ id: schema.tokens.id }).from(schema.tokens).limit(1).get() !== undefined);
    const status = projectStatus({ stored, hasData, slug, now: Date.now() });
    if (status?.adopted) await this.ctx.storage.put("project", status.record);
    return status;
  }

  /** Creates this project's record; a conflict when it exists (or holds agents or tokens already). */
  async projectCreate(record: ProjectRecord): Promise<Result<ProjectRecord>> {
    if (await this.projectInfo(record.slug)) return fail(new PantheonError("conflict", `a project named '${record.slug}' already exists`, { details: { project: record.slug } }));
    await this.ctx.storage.put("project", record);
    return { ok: true, value: record };
  }

  agentCount(): number { return this.db.select({ name: schema.agents.name }).from(schema.agents).all().length; }

  /**
   * Empties this project: agents, tokens, invites, bus log and the record. Rows rather than `deleteAll()`,
   * so the schema stays and a project made again with the same slug works in this same instance.
   */
  async projectWipe(): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      for (const table of [schema.agents, schema.tokens, schema.invites, schema.busLog, schema.secrets, schema.secretGrants]) this.db.delete(table).run();
      for (const prefix of ["display-name/", "incarnation/", "quota/"]) for (const [key] of this.ctx.storage.kv.list({ prefix })) this.ctx.storage.kv.delete(key);
    });
    await this.ctx.storage.delete("project");
  }

  // ---- project files (core/projects: parsing and the diff; the writes here, in one transaction) --

  private currentAgents(): CurrentAgent[] {
    return this.db.select().from(schema.agents).orderBy(asc(schema.agents.name)).all().map((row) => ({
      profile: toProfile(row),
      displayName: this.ctx.storage.kv.get<string>(`display-name/${row.name}`) ?? null,
      scriptSource: row.scriptSource,
    }));
  }

  /**
   * Imports a project file: every agent created or updated, then every connection, in one
   * transaction, so a refused file changes nothing and a second import of the same file changes
   * nothing (`changed: false`). Answers the report and the names of the agents whose profile
   * changed (the worker pushes those, and the agents connected to them, to their Durable Objects).
   */
  importProjectFile(value: unknown, options: PlanOptions & { outbound: OutboundSettings; configuredBy?: RunPrincipal }): Result<{ report: ImportReport; touched: string[] }> {
    const current = this.currentAgents();
    const parsed = parseProjectFile(value, new Set(current.map((c) => c.profile.name)), options.outbound);
    if (!parsed.ok) return fail(invalidFile(parsed.issues));
    const planned = planImport(parsed.file, current, options);
    if (!planned.ok) return fail(invalidFile(planned.issues));
    const { plan } = planned;
    const unknownProviders = this.providers.fileIssues([...plan.create, ...plan.update]);
    if (unknownProviders.length) return fail(invalidFile(unknownProviders));
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      for (const agent of [...plan.create, ...plan.update]) {
        const values = { description: agent.description, systemPrompt: agent.systemPrompt, model: agent.model, runtime: agent.runtime, script: agent.script, scriptSource: agent.scriptSource, configuredBy: agent.script ? options.configuredBy ?? null : null, updatedAt: now };
        if (plan.create.includes(agent)) {
          this.db.insert(schema.agents).values({ name: agent.name, ...values, connections: [], parent: null, createdAt: now }).run();
          this.ctx.storage.kv.put(`incarnation/${agent.name}`, crypto.randomUUID());
        }
        else this.db.update(schema.agents).set(values).where(eq(schema.agents.name, agent.name)).run();
        if (agent.displayName === null) this.ctx.storage.kv.delete(`display-name/${agent.name}`);
        else this.ctx.storage.kv.put(`display-name/${agent.name}`, agent.displayName);
      }
      for (const { name, connections } of plan.connect) this.db.update(schema.agents).set({ connections, updatedAt: now }).where(eq(schema.agents.name, name)).run();
    });
    const touched = [...new Set([...plan.create, ...plan.update].map((a) => a.name).concat(plan.connect.map((c) => c.name)))];
    return {
      ok: true,
      value: {
        report: {
          changed: plan.changed,
          agents: { created: plan.create.map((a) => a.name), updated: plan.update.map((a) => a.name), unchanged: plan.unchanged },
          connections: { added: plan.added, removed: plan.removed },
          warnings: [...parsed.warnings, ...plan.warnings],
        },
        touched,
      },
    };
  }

  /** The project as a project file (`GET /api/projects/:slug/export`). */
  exportProjectFile(): ProjectFile { return exportProjectFile(this.currentAgents()); }

  // ---- project index (used only in the instance named `projectIndexName`, core/projects) -------
  async projectIndexPut(slug: string, record: ProjectRecord | null): Promise<void> {
    if (record) await this.ctx.storage.put(`projects/${slug}`, record);
    else await this.ctx.storage.delete(`projects/${slug}`);
  }
  async projectIndexList(): Promise<ProjectRecord[]> { return [...(await this.ctx.storage.list<ProjectRecord>({ prefix: "projects/" })).values()]; }

  // ---- cron index (used only in the one registry instance named by workers/api/schedules.ts) ----
  // Plain Durable Object storage rather than a drizzle table: the index is derived from the scripts
  // and rewritten whole on every script change, so it needs no schema or migration.

  /** Records which cron behaviors an agent has (an empty list removes the agent from the index). */
  async indexCronBehaviors(project: string, agent: string, crons: { behavior: string; cron: string }[]): Promise<void> {
    const key = `cron/${project}/${agent}`;
    if (crons.length > 0) await this.ctx.storage.put(key, crons);
    else await this.ctx.storage.delete(key);
  }

  /** Every agent of every project with cron behaviors. */
  async cronBehaviors(): Promise<{ project: string; agent: string; crons: { behavior: string; cron: string }[] }[]> {
    const rows = await this.ctx.storage.list<{ behavior: string; cron: string }[]>({ prefix: "cron/" });
    return [...rows].map(([key, crons]) => {
      const [, project = "", agent = ""] = key.split("/");
      return { project, agent, crons };
    });
  }

  // ---- feature index: which features the project has (each feature's data is in its own FeatureDO).
  // Plain storage like the cron index: a row per feature, written when one is created or deleted.

  async featureIndexPut(name: string, entry: { title: string; orchestrator: string; createdAt: number } | null): Promise<void> {
    if (entry) await this.ctx.storage.put(`feature/${name}`, entry);
    else await this.ctx.storage.delete(`feature/${name}`);
  }
  async featureIndex(): Promise<{ name: string; title: string; orchestrator: string; createdAt: number }[]> {
    const rows = await this.ctx.storage.list<{ title: string; orchestrator: string; createdAt: number }>({ prefix: "feature/" });
    return [...rows].map(([key, entry]) => ({ name: key.slice("feature/".length), ...entry })).sort((a, b) => a.createdAt - b.createdAt);
  }

  // ---- gateway index and cron heartbeat (used only in the instances named by workers/doors/gateways/index-store.ts
  // and workers/api/schedules.ts). Plain storage like the cron index: derived data, no schema.

  /** Records (or, with null, removes) what the public gateway routes check before reaching an agent. */
  async gatewayIndexPut(key: string, value: Record<string, unknown> | null): Promise<void> {
    if (value) await this.ctx.storage.put(`gateway/${key}`, value);
    else await this.ctx.storage.delete(`gateway/${key}`);
  }
  async gatewayIndexGet(key: string): Promise<Record<string, unknown> | null> { return (await this.ctx.storage.get<Record<string, unknown>>(`gateway/${key}`)) ?? null; }
  /** Every entry under `prefix` (e.g. `telegram/`), keyed as put. */
  async gatewayIndexList(prefix: string): Promise<[string, Record<string, unknown>][]> {
    const rows = await this.ctx.storage.list<Record<string, unknown>>({ prefix: `gateway/${prefix}` });
    return [...rows].map(([key, value]) => [key.slice("gateway/".length), value]);
  }
  /** The Cron Trigger fired at `at` (the doctor reports the last time). */
  async noteCronTick(at: number): Promise<void> {
    await this.ctx.storage.put("cron-tick", at);
  }
  async lastCronTick(): Promise<number | null> { return (await this.ctx.storage.get<number>("cron-tick")) ?? null; }
  /** Drizzle migrations applied to this registry's database (`created_at` of each), for the doctor. */
  migrationStatus(): number[] {
    return this.ctx.storage.sql.exec<{ created_at: number }>("SELECT created_at FROM __drizzle_migrations ORDER BY created_at").toArray().map((r: { created_at: number }) => Number(r.created_at));
  }

  // ---- who may sign in: tokens and invites (./access.ts) -------------------------------------
  private readonly access: Access;
  createToken(name: string, scope: Scope) { return this.access.createToken(name, scope); }
  listTokens(): TokenInfo[] { return this.access.listTokens(); }
  deleteToken(id: string): Result<true> { return this.access.deleteToken(id); }
  /** The token with this SHA-256 hash (its name, scope and person, never the token), or null; records when it was last used. */
  verifyTokenHash(hash: string): TokenIdentity | null { return this.access.verifyTokenHash(hash); }
  /** Whether a token still exists: sockets opened with it are closed once it is revoked. */
  tokenExists(id: string): boolean { return this.access.tokenExists(id); }
  createInvite(input: { name: string; scope: Scope; hash: string; seconds: number }): InviteInfo { return this.access.createInvite(input); }
  listInvites(): InviteInfo[] { return this.access.listInvites(); }
  deleteInvite(id: string): Result<true> { return this.access.deleteInvite(id); }
  redeemInvite(codeHash: string, tokenHash: string, device: string | null): Result<TokenInfo> { return this.access.redeemInvite(codeHash, tokenHash, device); }
}

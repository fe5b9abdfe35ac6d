import type { RunPrincipal } from "../../core/auth";
import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import type { AgentInput, AgentPatch, AgentProfile } from "../../core/agents";
import type { Scope } from "../../core/auth";
import { makeAccess, type Access, type InviteInfo, type TokenIdentity, type TokenInfo } from "./access";
import { PantheonError, resultOf, type Result } from "../../core/errors";
import type { LeaseRequest, QuotaPatch } from "../../core/quotas";
import { makeProjectQuotas, type ProjectQuotas } from "./quotas";
import migrations from "../../migrations/registry/migrations.js";
import * as schema from "./schema";
import { makeProviderStore, type ProviderStore } from "./provider-store";
import { makeScriptToolStore, type ScriptToolStore } from "./script-tool-store";
import { makeSkillStore, type SkillStore } from "./skill-store";
import type { StoredSkill } from "../../core/skills";
import { makeMcpServerStore, type ProjectMcpServer } from "./mcp-server-store";
import { makeRegistryMcp, mcpOAuthPrefix } from "./mcp-oauth";
import type { CompiledScript } from "../../core/sandbox";
import type { ModelProvider } from "../../core/models";
import { makeBusLog, type BusLog, type BusLogEntry } from "./bus-log";
import { makeSecretStore, type SecretStore } from "./secret-store";
import { makePushStore, type PushStore } from "./push-store";
import type { PushAudience } from "../../core/push";
import type { SealedSecret } from "../../core/secrets";
import type { BusMessage } from "../../core/bus";
import type { ForgeSetting } from "../../core/work";
import { projectStatus, type ProjectFile, type ProjectRecord } from "../../core/projects";
import { makeAgentProfiles, type AgentProfiles } from "./agents/profiles";
import { makeSpawning } from "./agents/spawn";
import { makeProjectFiles } from "./projects/project-file";

export type { ImportReport } from "./projects/project-file";
export type { InviteInfo, TokenIdentity, TokenInfo } from "./access";

const fail = (error: PantheonError) => error.toFailure();
/** Grows with each change to who has a subscribed device (core/push PushAudience). */
const audienceVersionKey = "push:audience-version";

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
    this.access = makeAccess(
      this.db,
      (fn) => ctx.storage.transactionSync(fn),
      () => Date.now(),
    );
    this.secrets = makeSecretStore(this.db, () => Date.now());
    this.push = makePushStore(this.db, () => Date.now(), ctx.storage.kv);
    this.providers = makeProviderStore(ctx.storage.kv, () => this.project);
    this.scriptTools = makeScriptToolStore(ctx.storage.kv, () => this.project);
    this.skills = makeSkillStore(ctx.storage.kv, () => this.project);
    this.mcpServers = makeMcpServerStore(ctx.storage.kv);
    this.mcp = makeRegistryMcp(this.mcpServers, { storage: ctx.storage, env, project: () => this.project });
    this.quotas = makeProjectQuotas({
      kv: ctx.storage.kv,
      now: () => Date.now(),
      testClock: env.PANTHEON_TEST_CLOCK === "1",
      project: () => this.project,
    });
    this.agents = makeAgentProfiles({
      db: this.db,
      kv: ctx.storage.kv,
      providers: this.providers,
      scriptTools: this.scriptTools,
      skills: this.skills,
      quotas: this.quotas,
      project: () => this.project,
    });
    this.spawning = makeSpawning({ db: this.db, profiles: this.agents });
    this.projectFiles = makeProjectFiles({
      db: this.db,
      storage: ctx.storage,
      providers: this.providers,
      scriptTools: this.scriptTools,
      mcpServers: this.mcpServers,
    });
  }

  // ---- daily caps (./quotas.ts): the project's own, the deployment's ceiling, the agents' leases ---
  private readonly quotas: ProjectQuotas;
  quotaView() {
    return this.quotas.view();
  }
  quotaSetOwn(patch: QuotaPatch) {
    return this.quotas.setOwn(patch);
  }
  quotaSetCeiling(patch: QuotaPatch) {
    return this.quotas.setCeiling(patch);
  }
  quotaLease(request: Omit<LeaseRequest, "now">) {
    return this.quotas.lease(request);
  }
  quotaSetClock(offsetMs: number) {
    return resultOf(() => this.quotas.setClockOffset(offsetMs));
  }

  /** This registry's project: the name it was reached by (`registryStub(env, project)`). */
  private get project(): string {
    return this.ctx.id.name ?? "this project";
  }

  // ---- project secrets (./secret-store.ts): sealed by the worker, opened only by the agent -------
  private readonly secrets: SecretStore;
  private readonly push: PushStore;
  secretPut(sealed: SealedSecret) {
    return this.secrets.put(sealed);
  }
  secretList() {
    return this.secrets.list();
  }
  secretDelete(name: string): Result<true> {
    return this.secrets.remove(name)
      ? { ok: true, value: true }
      : fail(new PantheonError("not_found", `no secret '${name}' in this project`, { details: { secret: name } }));
  }
  secretNames() {
    return { ...this.secrets.names(), modelKeys: this.providers.keySecrets() };
  }

  // ---- named model providers (./provider-store.ts): plain storage, one record each ------------
  private readonly providers: ProviderStore;
  providerList() {
    return this.providers.list();
  }
  providerPut(provider: ModelProvider) {
    return this.providers.put(provider, this.secrets.names().own, this.listAgents());
  }
  providerDelete(name: string) {
    return this.providers.remove(name, this.listAgents());
  }

  // ---- script tools (./script-tool-store.ts): plain storage, one record each, compiled when saved --
  private readonly scriptTools: ScriptToolStore;
  scriptToolList() {
    return this.scriptTools.list();
  }
  scriptToolGet(name: string) {
    return this.scriptTools.get(name) ?? null;
  }
  scriptToolPut(compiled: CompiledScript & { source: string }) {
    return this.scriptTools.put(compiled, this.listAgents(), Date.now());
  }
  scriptToolDelete(name: string) {
    return this.scriptTools.remove(name, this.listAgents());
  }

  // ---- skills (./skill-store.ts): the project's library in the Agent Skills format ---------------
  private readonly skills: SkillStore;
  skillList() {
    return this.skills.list();
  }
  skillGet(name: string) {
    return this.skills.get(name) ?? null;
  }
  skillPut(skills: Omit<StoredSkill, "updatedAt">[]) {
    return this.skills.put(skills, Date.now());
  }
  skillLoad(name: string) {
    return this.skills.load(name);
  }
  skillDelete(name: string) {
    return this.skills.remove(name);
  }

  // ---- MCP servers for all the project's agents (./mcp-server-store.ts): declarations, no tokens ----
  private readonly mcpServers: ReturnType<typeof makeMcpServerStore>;
  mcpServerList() {
    return this.mcpServers.list();
  }
  mcpServerPut(server: ProjectMcpServer) {
    return this.mcp.put(server);
  }
  mcpServerDelete(name: string) {
    return this.mcp.remove(name);
  }
  // Their OAuth (./mcp-oauth.ts): one sealed token set per server, authorised once, for all the project's agents.
  private readonly mcp: ReturnType<typeof makeRegistryMcp>;
  // Prototype methods, not arrow fields: RPC reaches only the former.
  mcpOAuthStart(name: string, origin: string) {
    return this.mcp.oauth.start(name, origin).catch((e: PantheonError) => e.toFailure());
  }
  mcpOAuthComplete(callbackUrl: string) {
    return this.mcp.oauth.complete(callbackUrl);
  }
  mcpOAuthToken(name: string, refused?: string) {
    return this.mcp.oauth.token(name, refused);
  }
  mcpOAuthStatus(name: string) {
    return this.mcp.oauth.status(name);
  }
  secretsSealed(names: string[]) {
    return this.secrets.sealed(names);
  }
  secretFingerprint(name: string) {
    return this.secrets.fingerprint(name);
  }
  secretGrant(name: string) {
    return this.secrets.grant(name);
  }
  secretRevoke(name: string): Result<true> {
    return this.secrets.revoke(name)
      ? { ok: true, value: true }
      : fail(
          new PantheonError("not_found", `no deployment secret '${name}' is granted to this project`, {
            details: { secret: name },
          }),
        );
  }

  // ---- bus (core/bus; the log lives in ./bus-log.ts) ------------------------------------------
  private readonly bus: BusLog;
  busRecord(entries: BusLogEntry[]): void {
    this.bus.record(entries);
  }
  busAdmit(message: BusMessage) {
    return this.bus.admit(
      message,
      (name) =>
        this.db.select({ c: schema.agents.connections }).from(schema.agents).where(eq(schema.agents.name, name)).get()
          ?.c as string[] | undefined,
    );
  }
  busConversation(conversationId: string) {
    return this.bus.conversation(conversationId);
  }
  busCounts() {
    return this.bus.counts();
  }

  // ---- the project's agents (./agents/profiles.ts) and the children they spawn (./agents/spawn.ts) -
  private readonly agents: AgentProfiles;
  private readonly spawning: ReturnType<typeof makeSpawning>;

  /** Replaces an agent's connections; each must name another existing agent. */
  setConnections(name: string, connections: string[]): Result<AgentProfile> {
    return this.agents.setConnections(name, connections);
  }

  /** A child agent created by `parent` from a script (spawn); the registry compiles it and keeps the graph rules (core/agents/spawn.ts). */
  spawnChild(
    parent: string,
    scriptSource: string,
    configuredBy?: RunPrincipal,
  ): Result<{ child: AgentProfile; parent: AgentProfile }> {
    return this.spawning.spawnChild(parent, scriptSource, configuredBy);
  }

  /** Archives a child its parent spawned: it leaves the graph and stays readable. Only the parent that spawned it may. */
  archiveChild(parent: string, child: string): Result<{ child: AgentProfile; parent: AgentProfile }> {
    return this.spawning.archiveChild(parent, child);
  }

  /** Agents connected to `name`: their `ask_<name>` tool describes it, so they are re-configured when it changes. */
  dependentsOf(name: string): AgentProfile[] {
    return this.agents.dependentsOf(name);
  }

  /** A bare round trip for the benchmarks (`GET /api/health/echo`): no storage, no work. */
  echo(x: string): string {
    return x;
  }

  listAgents(): AgentProfile[] {
    return this.agents.listAgents();
  }
  getAgent(name: string): Result<AgentProfile> {
    return this.agents.getAgent(name);
  }
  createAgent(input: AgentInput & { parent?: string; connections?: string[] }): Result<AgentProfile> {
    return this.agents.createAgent(input);
  }
  /** `configuredBy`: who set the script (its behaviors act for them); recorded with every script change. */
  updateAgent(
    name: string,
    patch: AgentPatch & {
      connections?: string[];
      script?: AgentProfile["script"];
      scriptSource?: string;
      configuredBy?: RunPrincipal;
    },
  ): Result<AgentProfile> {
    return this.agents.updateAgent(name, patch);
  }
  getScriptSource(name: string): Result<string | null> {
    return this.agents.getScriptSource(name);
  }
  deleteAgent(name: string): Result<true> {
    return this.agents.deleteAgent(name);
  }

  // ---- the project itself (core/projects). Plain storage: one record, no schema needed. -----

  /**
   * This project's record, or null when it was never created. A registry with agents or tokens but
   * no record (made before creation was explicit) is adopted: the record is written now, and
   * `adopted` tells the caller to add it to the project index. `default` always exists.
   */
  async projectInfo(slug: string): Promise<{ record: ProjectRecord; adopted: boolean } | null> {
    const stored = (await this.ctx.storage.get<ProjectRecord>("project")) ?? null;
    const hasData =
      !stored &&
      (this.db.select({ n: schema.agents.name }).from(schema.agents).limit(1).get() !== undefined ||
        this.db.select({ id: schema.tokens.id }).from(schema.tokens).limit(1).get() !== undefined);
    const status = projectStatus({ stored, hasData, slug, now: Date.now() });
    if (status?.adopted) await this.ctx.storage.put("project", status.record);
    return status;
  }

  /** Creates this project's record; a conflict when it exists (or holds agents or tokens already). */
  async projectCreate(record: ProjectRecord): Promise<Result<ProjectRecord>> {
    if (await this.projectInfo(record.slug))
      return fail(
        new PantheonError("conflict", `a project named '${record.slug}' already exists`, {
          details: { project: record.slug },
        }),
      );
    await this.ctx.storage.put("project", record);
    return { ok: true, value: record };
  }

  agentCount(): number {
    return this.agents.agentCount();
  }

  /**
   * Empties this project: agents, tokens, invites, bus log and the record. Rows rather than `deleteAll()`,
   * so the schema stays and a project made again with the same slug works in this same instance.
   */
  async projectWipe(): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      for (const table of [
        schema.agents,
        schema.tokens,
        schema.invites,
        schema.busLog,
        schema.secrets,
        schema.secretGrants,
      ])
        this.db.delete(table).run();
      this.push.wipe();
      for (const prefix of ["display-name/", "incarnation/", "quota/", "mcp-server/", mcpOAuthPrefix])
        for (const [key] of this.ctx.storage.kv.list({ prefix })) this.ctx.storage.kv.delete(key);
    });
    await this.ctx.storage.delete(["project", "forge"]);
  }

  /** The project's forge (core/work forge.ts): where its pull requests open; null, the deployment's GitHub. Plain storage: one small record. */
  async forgeGet(): Promise<ForgeSetting | null> {
    return (await this.ctx.storage.get<ForgeSetting>("forge")) ?? null;
  }
  async forgeSet(forge: ForgeSetting | null): Promise<void> {
    if (forge) await this.ctx.storage.put("forge", forge);
    else await this.ctx.storage.delete("forge");
  }

  // ---- project files (./projects/project-file.ts; core/projects parses them and plans the diff) ----
  private readonly projectFiles: ReturnType<typeof makeProjectFiles>;

  /** Imports a project file in one transaction (a refused file changes nothing); answers the report and the agents whose profile changed. */
  importProjectFile(value: unknown, options: Parameters<ReturnType<typeof makeProjectFiles>["importProjectFile"]>[1]) {
    return this.projectFiles.importProjectFile(value, options);
  }

  /** The project as a project file (`GET /api/projects/:slug/export`). */
  exportProjectFile(): ProjectFile {
    return this.projectFiles.exportProjectFile();
  }

  // ---- project index (used only in the instance named `projectIndexName`, core/projects) -------
  async projectIndexPut(slug: string, record: ProjectRecord | null): Promise<void> {
    if (record) await this.ctx.storage.put(`projects/${slug}`, record);
    else await this.ctx.storage.delete(`projects/${slug}`);
  }
  async projectIndexList(): Promise<ProjectRecord[]> {
    return [...(await this.ctx.storage.list<ProjectRecord>({ prefix: "projects/" })).values()];
  }

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

  async featureIndexPut(
    name: string,
    entry: { title: string; orchestrator: string; createdAt: number } | null,
  ): Promise<void> {
    if (entry) await this.ctx.storage.put(`feature/${name}`, entry);
    else await this.ctx.storage.delete(`feature/${name}`);
  }
  async featureIndex(): Promise<{ name: string; title: string; orchestrator: string; createdAt: number }[]> {
    const rows = await this.ctx.storage.list<{ title: string; orchestrator: string; createdAt: number }>({
      prefix: "feature/",
    });
    return [...rows]
      .map(([key, entry]) => ({ name: key.slice("feature/".length), ...entry }))
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  // ---- gateway index and cron heartbeat (used only in the instances named by workers/doors/gateways/index-store.ts
  // and workers/api/schedules.ts). Plain storage like the cron index: derived data, no schema.

  /** Records (or, with null, removes) what the public gateway routes check before reaching an agent. */
  async gatewayIndexPut(key: string, value: Record<string, unknown> | null): Promise<void> {
    if (value) await this.ctx.storage.put(`gateway/${key}`, value);
    else await this.ctx.storage.delete(`gateway/${key}`);
  }
  async gatewayIndexGet(key: string): Promise<Record<string, unknown> | null> {
    return (await this.ctx.storage.get<Record<string, unknown>>(`gateway/${key}`)) ?? null;
  }
  /** Every entry under `prefix` (e.g. `telegram/`), keyed as put. */
  async gatewayIndexList(prefix: string): Promise<[string, Record<string, unknown>][]> {
    const rows = await this.ctx.storage.list<Record<string, unknown>>({ prefix: `gateway/${prefix}` });
    return [...rows].map(([key, value]) => [key.slice("gateway/".length), value]);
  }
  /** The Cron Trigger fired at `at` (the doctor reports the last time). */
  async noteCronTick(at: number): Promise<void> {
    await this.ctx.storage.put("cron-tick", at);
  }
  async lastCronTick(): Promise<number | null> {
    return (await this.ctx.storage.get<number>("cron-tick")) ?? null;
  }
  /** Drizzle migrations applied to this registry's database (`created_at` of each), for the doctor. */
  migrationStatus(): number[] {
    return this.ctx.storage.sql
      .exec<{ created_at: number }>("SELECT created_at FROM __drizzle_migrations ORDER BY created_at")
      .toArray()
      .map((r: { created_at: number }) => Number(r.created_at));
  }

  // ---- who may sign in: tokens and invites (./access.ts) -------------------------------------
  private readonly access: Access;
  createToken(name: string, scope: Scope) {
    return this.access.createToken(name, scope);
  }
  listTokens(): TokenInfo[] {
    return this.access.listTokens();
  }
  deleteToken(id: string): Result<true> {
    this.push.forgetToken(id);
    this.pushAudienceMoved();
    return this.access.deleteToken(id);
  }
  // Web Push subscriptions and mutes (push-store.ts; the routes in workers/api/push.ts).
  pushSubscribe(tokenId: string, sub: { endpoint: string; keys: { p256dh: string; auth: string } }) {
    const info = this.push.subscribe(tokenId, sub);
    this.pushAudienceMoved();
    return info;
  }
  pushList(person?: string) {
    return this.push.list(person ? { person } : {});
  }
  pushRemove(id: string, person?: string): Result<true> {
    const removed = this.push.remove(id, person);
    if (removed.ok) this.pushAudienceMoved();
    return removed;
  }
  pushGone(endpoints: string[]): void {
    this.push.gone(endpoints);
    this.pushAudienceMoved();
  }
  /** Who has a subscribed device now, versioned (workers/push-audience.ts hands it to every agent). */
  pushAudience(): PushAudience {
    return { version: this.ctx.storage.kv.get<number>(audienceVersionKey) ?? 0, people: this.push.audience() };
  }
  private pushAudienceMoved(): void {
    this.ctx.storage.kv.put(audienceVersionKey, (this.ctx.storage.kv.get<number>(audienceVersionKey) ?? 0) + 1);
  }
  pushTargets(input: Parameters<PushStore["targets"]>[0]) {
    return this.push.targets(input);
  }
  pushMute(person: string, agent: string, muted: boolean): void {
    this.push.mute(person, agent, muted);
  }
  pushMutes(person: string): string[] {
    return this.push.mutes(person);
  }
  /** The token with this SHA-256 hash (its name, scope and person, never the token), or null; records when it was last used. */
  verifyTokenHash(hash: string): TokenIdentity | null {
    return this.access.verifyTokenHash(hash);
  }
  /** Whether a token still exists: sockets opened with it are closed once it is revoked. */
  tokenExists(id: string): boolean {
    return this.access.tokenExists(id);
  }
  createInvite(input: { name: string; scope: Scope; hash: string; seconds: number }): InviteInfo {
    return this.access.createInvite(input);
  }
  listInvites(): InviteInfo[] {
    return this.access.listInvites();
  }
  deleteInvite(id: string): Result<true> {
    return this.access.deleteInvite(id);
  }
  redeemInvite(codeHash: string, tokenHash: string, device: string | null): Result<TokenInfo> {
    return this.access.redeemInvite(codeHash, tokenHash, device);
  }
}

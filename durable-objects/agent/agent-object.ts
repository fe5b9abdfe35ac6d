import {
  Agent,
  type AgentMcpOAuthProvider,
  type Connection,
  type ConnectionContext,
  DurableObjectOAuthClientProvider,
} from "agents";
import { makeSecretCipher, readDeploymentSecret } from "../../core/secrets";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import type { AgentProfile } from "../../core/agents";
import type { PushAudience } from "../../core/push";
import { resultOf, type Result } from "../../core/errors";
import { systemClock } from "../../core/ports";
import { isTerminal } from "../../core/run";
import { outboundSettingsFrom, type OutboundPolicy } from "../../core/tools";
import migrations from "../../migrations/agent/migrations.js";
import type { BehaviorAlarm } from "./behaviors";
import type { ChildAlarm } from "./bus";
import { initialLiveState, liveStateSchema, type LiveState, type RunEvent } from "./chat";
import { makeAgentFeatures, type AgentFeatures } from "./features";
import type { AgentHost, AlarmCallback } from "./host";
import { registryStub } from "../stubs";
import {
  closeEach,
  endIncarnation,
  liveStatusPatchOf,
  makeLiveStatus,
  makeOpenStreams,
  makeSocketBinding,
  runEventFrame,
  socketIsFromWorker,
  socketTokenTag,
  tokenTag,
  type EndCause,
} from "./live";
import {
  makeMcpCredentials,
  makeMcpServers,
  mcpClientOf,
  mcpOAuthCallbackPath,
  sealedTokenStorage,
  tokenExpiresAt,
} from "./mcp";
import { makeRunEvents } from "./runs";
import * as schema from "./schema";

/**
 * Every alarm callback host.ts names, as a method of the object: the agents SDK calls it back by name,
 * so one renamed or removed here (or added there without its method) fails to compile.
 */
type AlarmMethods = { [K in AlarmCallback]: (payload: never, schedule?: never) => Promise<void> };

/**
 * What an agent's Durable Object is before its RPC methods (agent-do.ts adds those): the database and
 * the features built once, the lifecycle the agents SDK calls (start, alarms, sockets, email aside),
 * the registry's configure and forget, and the live status. Abstract: AgentDO is the one class bound
 * (wrangler.toml); the split keeps each file readable, and the SDK and RPC see the whole chain.
 */
/** Where an agent object keeps the incarnation it last forgot (its agent deleted): its own KV, outside the wiped tables. */
const forgottenIncarnationKey = "forgotten-incarnation";

export abstract class AgentObject extends Agent<Env, LiveState> implements AlarmMethods {
  override initialState: LiveState = initialLiveState;
  private readonly clock = systemClock;
  private readonly liveStatus = makeLiveStatus({
    read: () => this.state,
    write: (state) => this.setState(state),
    watched: () => !this.getConnections()[Symbol.iterator]().next().done,
    clock: this.clock,
  });
  /** What the features may use of this object (host.ts): built once, here and nowhere else. */
  protected readonly host: AgentHost;
  protected readonly features: AgentFeatures;
  private readonly outbound = outboundSettingsFrom(this.env);
  /** Open SSE streams: a deletion ends them before it wipes (live/incarnation.ts). */
  protected readonly streams = makeOpenStreams();
  private readonly sockets = makeSocketBinding({
    held: () => this.storedProfile()?.incarnation,
    adopt: (incarnation) => void this.features.profiles.set({ ...this.profile(), incarnation }),
    connections: (tag) => this.getConnections(tag),
  });
  /** What this agent's MCP requests may reach, read at each request: its allowlist now. */
  private readonly mcpPolicy = (): OutboundPolicy => ({
    allowHosts: this.storedProfile()?.runtime.allowHosts ?? [],
    allowLoopback: this.outbound.allowLoopback,
    // The private hosts the deployment admin named (PANTHEON_OUTBOUND_PRIVATE_HOSTS) open for MCP as for git.
    privateHosts: this.outbound.privateHosts,
  });
  /** Each MCP server's headers: secrets by name, read through the agent's secrets at each request (features are built below). */
  private readonly mcpCredentials = makeMcpCredentials({
    store: this.ctx.storage,
    secret: (name) => this.features.secrets.get(name, "tool"),
    refresh: (names) => this.features.secrets.refresh(names, "tool"),
    project: () => this.host.project(),
    // The project's OAuth servers are sent the project's token (mcp/project.ts, registry/mcp-oauth.ts).
    projectToken: (id) => this.mcpServers.projectToken(id),
  });
  protected readonly mcpServers = makeMcpServers(
    mcpClientOf(this, this.mcpPolicy, undefined, this.mcpCredentials, (key) => tokenExpiresAt(this.ctx.storage, key)),
    this.mcpPolicy,
    this.mcpCredentials,
    () => mcpOAuthCallbackPath(this.host.project(), this.host.agentName()),
    this.ctx.storage,
    // A server's question outlives a restart while its run still waits on the call that asked it.
    (call) => {
      const run = this.features.driver.latest(call.run);
      return Boolean(
        run &&
          !isTerminal(run) &&
          !run.finishedCallIds.includes(call.id) &&
          run.calls.some((c) => c.call.id === call.id && c.status === "running"),
      );
    },
    // The project's servers for all its agents: read from its registry once, then handed on each change.
    () => registryStub(this.env, this.host.project()).mcpServerList(),
    (name, refused) => registryStub(this.env, this.host.project()).mcpOAuthToken(name, refused),
  );

  /** The SDK's OAuth client provider for MCP servers (new and restored), with its token sets sealed (mcp/oauth.ts). */
  override createMcpOAuthProvider(callbackUrl: string): AgentMcpOAuthProvider {
    const storage = sealedTokenStorage(
      this.ctx.storage,
      async () => makeSecretCipher(await readDeploymentSecret(this.env as never, "PANTHEON_SECRETS_KEY")),
      () => this.host.project(),
    );
    return new DurableObjectOAuthClientProvider(storage, this.name, callbackUrl);
  }

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(db, migrations));
    this.host = this.hostOf(db);
    const events = makeRunEvents();
    // Live clients hear every run event first; the features add themselves after (features.ts).
    events.listen((event, runId) => this.onRunEvent(event, runId));
    this.features = makeAgentFeatures({
      host: this.host,
      outbound: this.outbound,
      mcpServers: this.mcpServers,
      events,
      liveTokens: () =>
        this.ctx
          .getWebSockets()
          .flatMap((ws: WebSocket) => this.ctx.getTags(ws))
          .filter((tag: string) => tag.startsWith(tokenTag("")))
          .map((tag: string) => tag.slice(tokenTag("").length)),
    });
    // Start (the SDK's `onStart`, restored connections) under a blockConcurrencyWhile taken here, so
    // not even the event that made the object comes first: callers need no `__unsafe_ensureInitialized`
    // round trip (durable-objects/stubs.ts). A start that fails is tried again on the next event.
    void ctx.blockConcurrencyWhile(() =>
      this.lifecycle.start().catch((error: unknown) => console.error("agent start failed", error)),
    );
  }

  /** The host the features are given (host.ts): this object's storage, alarms and name, and its own `configure`. */
  private hostOf(db: AgentHost["db"]): AgentHost {
    // Each alarm callback is a method of this class (`implements AlarmMethods` checks it); the SDK's
    // `keyof this` is polymorphic, so TypeScript cannot see that without the cast.
    const objectName = () => this.name;
    return {
      env: this.env,
      clock: this.clock,
      db,
      storage: this.ctx.storage,
      alarms: {
        armed: (callback, criteria) =>
          this.getSchedules(criteria).filter((s) => callback === undefined || s.callback === callback),
        armOnce: async (seconds, callback) => {
          if (!this.getSchedules().some((s) => s.callback === callback))
            await this.schedule(seconds, callback as keyof this);
        },
        list: () => this.listSchedules(),
        at: (when, callback, payload, options) => this.schedule(when, callback as keyof this, payload, options),
        every: (seconds, callback, payload, options) =>
          this.scheduleEvery(seconds, callback as keyof this, payload, options),
        cancel: (id) => this.cancelSchedule(id),
      },
      objectName,
      project: () => objectName().slice(0, objectName().indexOf(".")),
      agentName: () => objectName().slice(objectName().indexOf(".") + 1),
      background: (work) => this.ctx.waitUntil(work),
      configure: (profile) => this.configure(profile),
    };
  }

  /** Every start (after eviction, a crash, a deploy) carries on runs with work in flight or not started, and closes stale sockets. */
  override async onStart(): Promise<void> {
    this.liveStatus.repair();
    this.sockets.closeStale();
    const profile = this.storedProfile();
    if (profile) {
      await this.features.contexts
        .secretsReady(profile)
        .catch((error: unknown) => console.error("secrets on start", error));
      this.features.driver.recover();
      void this.features.bus
        .recover()
        .then(() => this.features.orchestration.recover())
        .catch((error: unknown) => console.error("bus recover", error));
    }
    await this.features.behaviors.reconcile();
  }

  /** The run watchdog alarm exists while runs have work in flight (runs/alarms.ts says why). */
  protected armRunWatchdog(): Promise<void> {
    return this.features.runAlarms.armWatchdog();
  }

  /** Alarm callback: carries on runs this instance is not driving, and stays armed while any has work. */
  async onRunWatchdog(): Promise<void> {
    this.features.runAlarms.watchdogFired();
    if (!this.storedProfile()) return;
    this.features.driver.recover();
    // The invocation lasts until the runs and answers settle: work left after it returns may not finish.
    await this.features.driver.recovered();
    await this.features.driver.expired();
    await this.features.bus.recover();
    await this.features.orchestration.recover();
    await this.features.bus.idle();
    if (this.features.driver.hasWorkInFlight() || this.features.orchestration.waiting() > 0)
      await this.armRunWatchdog();
  }

  // ---- live clients (WebSocket) ---------------------------------------------------------------
  // Clients only listen: the agent is the only writer of its state (live/sockets.ts).

  /** Every client is read-only: the SDK refuses its state frames (`cf_agent_state_error`). */
  override shouldConnectionBeReadonly(): boolean {
    return true;
  }

  /** Sockets are tagged with the token that opened them (revoking it closes them) and their incarnation. */
  override getConnectionTags(_connection: Connection, ctx: ConnectionContext): string[] {
    return [socketTokenTag(ctx.request), this.sockets.tag(ctx.request, this.storedProfile() !== null)];
  }
  /** A socket of another incarnation gets no frame at all (not even the state) before it is closed. */
  override shouldSendProtocolMessages(_connection: Connection, ctx: ConnectionContext): boolean {
    return this.sockets.isCurrent(ctx.request);
  }
  /** Every frame (run events, the SDK's state and protocol frames) goes only to sockets of the incarnation held now. */
  override broadcast(message: string | ArrayBuffer | ArrayBufferView, without?: string[]): void {
    this.sockets.broadcast(message, without);
  }

  override onConnect(connection: Connection, ctx: ConnectionContext): void {
    if (!socketIsFromWorker(ctx.request)) return connection.close(4401, "unauthorized");
    if (this.sockets.refused(connection, ctx.request)) return;
    // The SDK has sent the stored state; a change nobody watched follows, in the SDK's own frame.
    const unsent = this.liveStatus.unsent();
    if (unsent) connection.send(JSON.stringify({ type: "cf_agent_state", state: unsent }));
  }

  /** Only the agent itself changes its live state, and only to a well-formed one. */
  override validateStateChange(next: LiveState, source: Connection | "server"): void {
    if (source !== "server") throw new Error("clients cannot change an agent's state");
    liveStateSchema.parse(next);
  }

  /** Closes every socket opened with this token (it was revoked). */
  closeSocketsOf(tokenId: string): number {
    return closeEach(this.getConnections(tokenTag(tokenId)), 4401, "token revoked");
  }

  /** Every run event goes to live clients, and moves the agent's live status (the features listen after: features.ts). */
  private onRunEvent(event: RunEvent, runId: string): void {
    // Called for every streamed token: the name comes from the object's name, not a profile read.
    const agent = this.host.agentName();
    this.broadcast(runEventFrame(agent, runId, event));
    const patch = liveStatusPatchOf(event, runId);
    if (patch) this.liveStatus.patch(patch);
  }

  // ---- profile -------------------------------------------------------------------------------

  /**
   * The registry pushes the agent's profile here on create and on every update (behaviors re-armed).
   * Another incarnation's profile is a new agent whose predecessor's deletion never arrived: forgotten first.
   */
  async configure(profile: AgentProfile): Promise<void> {
    const held = this.storedProfile()?.incarnation;
    if (held && profile.incarnation && held !== profile.incarnation)
      await this.forget({ by: `the deletion of agent '${profile.name}'`, closeReason: "this agent was deleted" });
    await this.features.profiles.set(profile);
    // The secrets it names may have changed while it did not name them: read them afresh.
    this.features.secrets.invalidate();
    await this.features.behaviors.reconcile();
  }

  /** A secret of the project was set, deleted, granted or revoked: the values this agent opened are forgotten and read again when next needed. */
  secretsChanged(): void {
    this.features.secrets.invalidate();
  }

  /** Who in the project has a subscribed device changed (workers/push-audience.ts): the agent keeps the copy. */
  pushAudience(audience: PushAudience): void {
    this.features.push.audienceChanged(audience);
  }

  /**
   * Removes everything this agent remembers (it or its project was deleted), after its clients lose
   * access (live/incarnation.ts), all before the caller's answer. Cut off midway, the registry still
   * lists the agent and the deletion is repeated.
   */
  async forget(
    cause: EndCause = { by: "the deletion of this agent", closeReason: "this agent was deleted" },
  ): Promise<{ runs: number; streams: number; sockets: number }> {
    const ended = await endIncarnation(
      {
        unfinishedRuns: this.features.unfinishedRuns,
        cancel: (runId, by) => this.features.driver.cancel(runId, by),
        inFlight: () => this.features.driver.drivesInFlight(),
        streams: this.streams,
        sockets: () => this.getConnections(),
      },
      cause,
    );
    const forgotten = this.storedProfile()?.incarnation;
    await this.features.wipe();
    if (forgotten) this.ctx.storage.kv.put(forgottenIncarnationKey, forgotten);
    // After the wipe, no incarnation is held: the reset state is stored and sent to no socket.
    this.setState(initialLiveState);
    return ended;
  }

  /** The profile as last configured (profile/), or null for an object the registry never configured. */
  protected storedProfile(): AgentProfile | null {
    return this.features.profiles.stored();
  }

  /** The agent's profile; an object the registry never configured answers as an unknown agent. */
  protected profile(): AgentProfile {
    return this.features.profiles.get();
  }

  /** Like `guard`, for calls that only make sense on an agent the registry has configured. */
  protected known<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
    return resultOf(async () => {
      await this.adoptUnpushedProfile();
      this.profile();
      return fn();
    });
  }

  /**
   * An agent the registry holds but whose profile never reached this object (an import or a restore
   * cut off between the registry's write and its push, by a restart or a deploy) takes it from the
   * registry on first use, instead of answering as unknown until someone imports again. One registry
   * call, only while the object holds no profile. The incarnation this object last forgot is never
   * adopted again: a message arriving between a deletion's wipe and the registry's delete does not
   * bring the deleted agent back.
   */
  protected async adoptUnpushedProfile(): Promise<void> {
    if (this.storedProfile()) return;
    const got = await registryStub(this.env, this.host.project()).getAgent(this.host.agentName());
    if (!got.ok || this.storedProfile()) return;
    if (got.value.incarnation && got.value.incarnation === this.ctx.storage.kv.get<string>(forgottenIncarnationKey))
      return;
    await this.configure(got.value);
  }

  // ---- alarm callbacks (agents SDK schedule; host.ts names them) -----------------------------------

  /** Alarm callback (agents SDK schedule): a run's wall-time deadline passed. */
  async onRunDeadline(payload: { runId: string }): Promise<void> {
    await this.features.driver.deliver(payload.runId, { type: "timeout" });
  }

  /** A telemetry export that failed is sent again (telemetry/: backoff, nothing lost to an eviction). */
  async onTelemetryFlush(): Promise<void> {
    await this.features.telemetry.flush();
  }

  /** Alarm callback (agents SDK schedule) of every passive and persistent behavior. */
  async onBehaviorAlarm(payload: BehaviorAlarm, schedule?: { id: string }): Promise<void> {
    await this.features.behaviors.onAlarm(payload, schedule?.id);
  }

  /** Alarm callback (agents SDK schedule): the agent has been idle, so its memory is consolidated. */
  async onMemoryIdle(): Promise<void> {
    await this.features.memory.onIdle(this.storedProfile() ?? undefined);
  }

  /** Alarm callback (agents SDK schedule): messages the queue did not take are sent again. */
  async onBusFlush(): Promise<void> {
    await this.features.bus.flush();
  }
  /** Alarm callback (agents SDK schedule): a supervised child's restart is due, or its time to live ended (bus/supervisor.ts). */
  async onChildAlarm(payload: ChildAlarm): Promise<void> {
    await this.features.bus.onChildAlarm(payload);
  }
  /** Alarm callback (agents SDK schedule): a request's deadline passed. */
  async onBusDeadline(payload: { messageId: string }): Promise<void> {
    await this.features.bus.onDeadline(payload.messageId);
  }

  // ---- for the doctor and listings -------------------------------------------------------------

  /** Drizzle migrations applied to this agent's database (`created_at` of each), for the doctor. */
  migrationStatus(): number[] {
    return this.ctx.storage.sql
      .exec<{ created_at: number }>("SELECT created_at FROM __drizzle_migrations ORDER BY created_at")
      .toArray()
      .map((r: { created_at: number }) => Number(r.created_at));
  }

  /**
   * Live status for listings (the registry does not know it); never a malformed one. Its last
   * activity is at least the newest message's: a change nobody watched is not stored (live/status.ts).
   */
  status(): LiveState & { spend: ReturnType<AgentFeatures["spend"]> } {
    const live = this.liveStatus.current();
    const lastMessageAt = this.features.messages.lastAt();
    return {
      ...(lastMessageAt !== undefined && lastMessageAt > (live.lastActivityAt ?? 0)
        ? { ...live, lastActivityAt: lastMessageAt }
        : live),
      spend: this.features.spend(),
    };
  }
}

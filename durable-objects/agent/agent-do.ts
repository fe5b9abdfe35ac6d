import { Agent, type Connection, type ConnectionContext } from "agents";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import type { AgentProfile } from "../../core/agents";
import { gatewayPrincipal, type RunPrincipal, type Scope } from "../../core/auth";
import type { MemoryKind } from "../../core/context";
import type { EvalRun } from "../../core/evals";
import { PantheonError, resultOf, type Result } from "../../core/errors";
import { systemClock } from "../../core/ports";
import { outboundSettingsFrom, type OutboundPolicy } from "../../core/tools";
import migrations from "../../migrations/agent/migrations.js";
import type { BehaviorAlarm } from "./behaviors";
import { checkDecisions, makeRunEvents, runSummaryOf, runTurnView, runView, type ChatInput, type ManualCall, type TurnOutcome } from "./runs";

export type { ChatInput, ManualCall } from "./runs";
import type { ChildAlarm, } from "./bus";
import type { OrchestrationRequest } from "./workflows";
import { initialLiveState, liveStateSchema, type LiveState, type RunEvent } from "./chat";
import { closeEach, endIncarnation, liveStatusPatchOf, makeLiveStatus, makeOpenStreams, makeSocketBinding, runEventFrame, runEventStream, socketIsFromWorker, socketTokenTag, tokenTag, type EndCause } from "./live";
import { makeMcpServers, mcpClientOf } from "./mcp";
import * as schema from "./schema";
import { type GatewayKind, handleEmail } from "./gateways";
import type { AgentEmail } from "agents/email";
import type { TelegramUpdate } from "../../core/gateways";
import type { WorkBinding } from "./work";
import { makeAgentFeatures, type AgentFeatures } from "./features";
import type { AgentHost, AlarmCallback } from "./host";

/**
 * One Durable Object per agent (named `<project>.<agent>`). A thin shell: it opens the agent's
 * SQLite database, builds the stores once, and hands them to the feature modules.
 */
export class AgentDO extends Agent<Env, LiveState> {
  override initialState: LiveState = initialLiveState;
  private readonly clock = systemClock;
  private readonly liveStatus = makeLiveStatus({ read: () => this.state, write: (state) => this.setState(state), watched: () => !this.getConnections()[Symbol.iterator]().next().done, clock: this.clock });
  /** What the features may use of this object (host.ts): built once, here and nowhere else. */
  private readonly host: AgentHost;
  private readonly features: AgentFeatures;
  private readonly outbound = outboundSettingsFrom(this.env);
  /** Open SSE streams: a deletion ends them before it wipes (live/incarnation.ts). */
  private readonly streams = makeOpenStreams();
  private readonly sockets = makeSocketBinding({
    held: () => this.storedProfile()?.incarnation,
    adopt: (incarnation) => void this.features.profiles.set({ ...this.profile(), incarnation }),
    connections: (tag) => this.getConnections(tag),
  });
  /** What this agent's MCP requests may reach, read at each request: its allowlist now. */
  private readonly mcpPolicy = (): OutboundPolicy => ({ allowHosts: this.storedProfile()?.runtime.allowHosts ?? [], allowLoopback: this.outbound.allowLoopback });
  private readonly mcpServers = makeMcpServers(mcpClientOf(this, this.mcpPolicy), this.mcpPolicy);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(db, migrations));
    this.host = this.hostOf(db);
    const events = makeRunEvents();
    // Live clients hear every run event first; the features add themselves after (features.ts).
    events.listen((event, runId) => this.onRunEvent(event, runId));
    this.features = makeAgentFeatures({ host: this.host, outbound: this.outbound, mcpServers: this.mcpServers, events });
    // Start (the SDK's `onStart`, restored connections) under a blockConcurrencyWhile taken here, so
    // not even the event that made the object comes first: callers need no `__unsafe_ensureInitialized`
    // round trip (durable-objects/stubs.ts). A start that fails is tried again on the next event.
    void ctx.blockConcurrencyWhile(() => this.lifecycle.start().catch((error: unknown) => console.error("agent start failed", error)));
  }

  /** The host the features are given (host.ts): this object's storage, alarms and name, and its own `configure`. */
  private hostOf(db: AgentHost["db"]): AgentHost {
    // Each alarm callback must be a method of this class: the SDK calls it back by name.
    const method = (callback: AlarmCallback): keyof AgentDO => callback;
    const objectName = () => this.name;
    return {
      env: this.env,
      clock: this.clock,
      db,
      storage: this.ctx.storage,
      alarms: {
        armed: (callback, criteria) => this.getSchedules(criteria).filter((s) => callback === undefined || s.callback === callback),
        list: () => this.listSchedules(),
        at: (when, callback, payload, options) => this.schedule(when, method(callback) as keyof this, payload, options),
        every: (seconds, callback, payload, options) => this.scheduleEvery(seconds, method(callback) as keyof this, payload, options),
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
      await this.features.contexts.secretsReady(profile).catch((error: unknown) => console.error("secrets on start", error));
      this.features.driver.recover();
      void this.features.bus.recover().then(() => this.features.orchestration.recover()).catch((error: unknown) => console.error("bus recover", error));
    }
    await this.features.behaviors.reconcile();
  }

  /** The run watchdog alarm exists while runs have work in flight (runs/alarms.ts says why). */
  private armRunWatchdog(): Promise<void> {
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
    if (this.features.driver.hasWorkInFlight() || this.features.orchestration.waiting() > 0) await this.armRunWatchdog();
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
  closeSocketsOf(tokenId: string): number { return closeEach(this.getConnections(tokenTag(tokenId)), 4401, "token revoked"); }

  /** Alarm callback (agents SDK schedule): a run's wall-time deadline passed. */
  async onRunDeadline(payload: { runId: string }): Promise<void> {
    await this.features.driver.deliver(payload.runId, { type: "timeout" });
  }

  // ---- profile -------------------------------------------------------------------------------

  /**
   * The registry pushes the agent's profile here on create and on every update (behaviors re-armed).
   * Another incarnation's profile is a new agent whose predecessor's deletion never arrived: forgotten first.
   */
  async configure(profile: AgentProfile): Promise<void> {
    const held = this.storedProfile()?.incarnation;
    if (held && profile.incarnation && held !== profile.incarnation) await this.forget({ by: `the deletion of agent '${profile.name}'`, closeReason: "this agent was deleted" });
    await this.features.profiles.set(profile);
    // The secrets it names may have changed while it did not name them: read them afresh.
    this.features.secrets.invalidate();
    await this.features.behaviors.reconcile();
  }

  /** A secret of the project was set, deleted, granted or revoked: the values this agent opened are forgotten and read again when next needed. */
  secretsChanged(): void {
    this.features.secrets.invalidate();
  }

  /**
   * Removes everything this agent remembers (it or its project was deleted), after its clients lose
   * access (live/incarnation.ts), all before the caller's answer. Cut off midway, the registry still
   * lists the agent and the deletion is repeated.
   */
  async forget(cause: EndCause = { by: "the deletion of this agent", closeReason: "this agent was deleted" }): Promise<{ runs: number; streams: number; sockets: number }> {
    const ended = await endIncarnation({ unfinishedRuns: this.features.unfinishedRuns, cancel: (runId, by) => this.features.driver.cancel(runId, by), inFlight: () => this.features.driver.drivesInFlight(), streams: this.streams, sockets: () => this.getConnections() }, cause);
    await this.features.wipe();
    // After the wipe, no incarnation is held: the reset state is stored and sent to no socket.
    this.setState(initialLiveState);
    return ended;
  }

  /** The profile as last configured (profile/), or null for an object the registry never configured. */
  private storedProfile(): AgentProfile | null {
    return this.features.profiles.stored();
  }

  /** The agent's profile; an object the registry never configured answers as an unknown agent. */
  private profile(): AgentProfile {
    return this.features.profiles.get();
  }

  // ---- chat ----------------------------------------------------------------------------------

  chat(input: ChatInput): Promise<Result<TurnOutcome>> { return resultOf(() => this.features.turns.turn(input, () => {})); }

  /** The same turn, as a stream of server-sent events (`run`, `token`, ..., `done`). */
  async chatStream(input: ChatInput): Promise<Result<ReadableStream<Uint8Array>>> {
    return this.known(() => {
      const session = this.features.sessions.resolve(input.session);
      return runEventStream((write) => this.features.turns.turn({ ...input, session: session.id }, write), (done) => this.ctx.waitUntil(done), this.streams);
    });
  }

  /**
   * A person's decisions on a paused run's calls (`by` from the authenticated request), as a stream
   * of the run's events from there on (`tool_call`, `tool_result`, `token`, ..., `done`; none when it
   * waits again). Checked before the stream starts: the run waits for approval and each call is pending.
   */
  async decideStream(runId: string, decisions: { callId: string; approved: boolean; reason?: string }[], by: string, scope: Scope): Promise<Result<ReadableStream<Uint8Array>>> {
    return this.known(() => {
      checkDecisions(this.features.runs, runId, decisions, scope);
      for (const d of decisions) this.features.work.refuseQuestionDecision(runId, d.callId);
      return runEventStream(async (write) => {
        for (const decision of decisions) await this.features.driver.decide(runId, { ...decision, by, scope }, write);
      }, (done) => this.ctx.waitUntil(done), this.streams);
    });
  }

  /** Every run event goes to live clients, and moves the agent's live status (the features listen after: features.ts). */
  private onRunEvent(event: RunEvent, runId: string): void {
    // Called for every streamed token: the name comes from the object's name, not a profile read.
    const agent = this.name.slice(this.name.indexOf(".") + 1);
    this.broadcast(runEventFrame(agent, runId, event));
    const patch = liveStatusPatchOf(event, runId);
    if (patch) this.liveStatus.patch(patch);
  }

  /** A telemetry export that failed is sent again (telemetry/: backoff, nothing lost to an eviction). */
  async onTelemetryFlush(): Promise<void> {
    await this.features.telemetry.flush();
  }

  /** Like `guard`, for calls that only make sense on an agent the registry has configured. */
  private known<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
    return resultOf(() => {
      this.profile();
      return fn();
    });
  }

  // ---- history and sessions ------------------------------------------------------------------

  listMessages(options: { session?: string; cursor?: string; limit: number }) {
    return this.known(() => {
      const session = this.features.sessions.resolve(options.session);
      const page = this.features.messages.page(session.id, options);
      if (!page) throw new PantheonError("validation_failed", "cursor is not valid", { details: { issues: [{ path: ["cursor"], message: "use the nextCursor of a previous page" }] } });
      return { ...page, sessionId: session.id };
    });
  }

  listSessions() { return this.known(() => this.features.sessions.list()); }
  createSession(title?: string) { return this.known(() => this.features.sessions.create(title)); }
  renameSession(id: string, title: string) { return this.known(() => this.features.sessions.rename(id, title)); }
  forkSession(id: string, options: { fromMessageId?: string; title?: string }) { return this.known(() => this.features.sessions.fork(id, options)); }
  deleteSession(id: string) { return this.known(() => this.features.sessions.remove(id)); }

  // ---- runs ----------------------------------------------------------------------------------

  listRuns(limit: number) { return this.known(() => this.features.runs.list(limit)); }

  getRun(id: string) { return this.known(() => runView(this.features.runs, id)); }

  /**
   * A run as one exchange, for the protocol adapters (an A2A task): its summary and pending calls,
   * the request and the reply of its turn, and the title of its session.
   */
  runTurn(id: string) { return this.known(() => runTurnView(this.features.runs, this.features.sessions, id)); }

  /** A person approves or rejects a pending tool call (`by` and `scope` come from the authenticated request). */
  decide(runId: string, decision: { approved: boolean; by: string; scope: Scope; callId?: string; reason?: string }) {
    return this.known(async () => { this.features.work.refuseQuestionDecision(runId, decision.callId); return runSummaryOf(this.features.runs, (await this.features.driver.decide(runId, decision)).id); });
  }

  cancelRun(runId: string, by: string) { return this.known(async () => runSummaryOf(this.features.runs, (await this.features.bus.cancelRun(runId, by)).id)); }

  pendingApprovals() { return this.known(() => this.features.work.labelApprovals(this.features.driver.pendingApprovals())); }

  /** The agent's tools as the model sees them (built-ins it declares, HTTP tools, connections). */
  listTools() { return this.known(() => this.features.contexts.toolsOf(this.profile()).specs); }

  /** A person calls a tool by hand (`principal` from the authenticated request): runs/turns.ts. */
  invokeTool(name: string, args: Record<string, unknown>, principal: RunPrincipal): Promise<Result<ManualCall>> { return this.known(() => this.features.starts.invokeTool(name, args, principal)); }

  // ---- MCP servers (mcp/) -----------------------------------------------------------------------

  connectMcpServer(name: string, url: string) { return this.known(() => this.mcpServers.connect(name, url)); }
  listMcpServers() { return this.known(() => this.mcpServers.list()); }
  disconnectMcpServer(id: string) { return this.known(() => this.mcpServers.remove(id)); }

  // ---- behaviors (behaviors/) ----------------------------------------------------------------

  /** Alarm callback (agents SDK schedule) of every passive and persistent behavior. */
  async onBehaviorAlarm(payload: BehaviorAlarm, schedule?: { id: string }): Promise<void> {
    await this.features.behaviors.onAlarm(payload, schedule?.id);
  }
  /** The worker's Cron Trigger: runs this agent's cron behaviors due in the minute of `at`. */
  runCronBehaviors(at: number) { return this.known(() => this.features.behaviors.onCron(at)); }
  behaviorSchedules() { return this.known(() => this.features.behaviors.list()); }
  pauseBehavior(name: string, paused: boolean) { return this.known(() => this.features.behaviors.setPaused(name, paused)); }
  /** One run toward the agent's standing goals (`pantheon agents tick`), for whoever asked. */
  tick(principal: RunPrincipal, session?: string) { return this.known(() => this.features.behaviors.tick(principal, session)); }

  // ---- memory and context (memory/) ---------------------------------------------------------

  /** Alarm callback (agents SDK schedule): the agent has been idle, so its memory is consolidated. */
  async onMemoryIdle(): Promise<void> {
    await this.features.memory.onIdle(this.storedProfile() ?? undefined);
  }
  listMemories(options: { q?: string; kind?: MemoryKind; limit: number }) { return this.known(() => this.features.memory.list(options)); }
  getMemory(id: string) { return this.known(() => this.features.memory.get(id)); }
  createMemory(input: { text: string; kind: MemoryKind; importance?: number; entities?: string[]; occurredAt?: number }) { return this.known(() => this.features.memory.create(input)); }
  deleteMemory(id: string) { return this.known(() => this.features.memory.remove(id)); }
  memoryStatus() { return this.known(() => this.features.memory.status()); }
  /** The memories as JSONL, every secret the agent could hold redacted in every form (core/redaction). */
  exportMemories() { return this.known(() => this.features.memory.exportText(this.features.screens.redactor().redactDeep)); }
  importMemories(text: string) { return this.known(() => this.features.memory.import(text)); }
  /** Sessions, messages and memories as snapshot lines, redacted as the memory export is (snapshot/). */
  snapshotLines() { return this.known(() => this.features.snapshots.lines(this.features.screens.redactor().redactDeep)); }
  restoreSnapshot(text: string) { return this.known(() => this.features.snapshots.restore(text)); }
  // ---- evals (evals/): the worker runs the cases; the agent keeps the history and judges ---------
  judge(request: Parameters<AgentFeatures["evals"]["judge"]>[0]) { return this.known(() => this.features.evals.judge(request)); }
  keepEvalRun(run: EvalRun) { return this.known(() => this.features.evals.keep(run)); }
  evalRuns(limit: number) { return this.known(() => this.features.evals.list(limit)); }
  evalRun(id: string) { return this.known(() => this.features.evals.get(id)); }
  reembedMemories() { return this.known(() => this.features.memory.reembed()); }
  /** The idle upkeep now: exchanges waiting for extraction first, then consolidation. */
  consolidateMemories() { return this.known(() => this.features.memory.upkeep(this.profile())); }
  addDocument(source: string, doc: { title: string; text: string }) { return this.known(() => this.features.memory.addDocument(source, doc)); }
  /** The agent's own context sources (memory and document sources), for the per-agent MCP server's resources. */
  contextSources() { return this.known(() => this.features.memory.ownSources(this.profile())); }
  /** One own context source's items, newest first. */
  readContextSource(source: string, limit: number) { return this.known(() => this.features.memory.readSource(this.profile(), source, limit)); }
  previewContext(input: { q: string; session?: string; maxTokens?: number; k?: number }) {
    return this.known(() => this.features.memory.preview({ profile: this.profile(), sessionId: this.features.sessions.resolve(input.session).id, query: input.q, ...(input.maxTokens ? { maxTokens: input.maxTokens } : {}), ...(input.k ? { k: input.k } : {}) }));
  }
  /** Another agent of the project searches, reads or lists this agent's sources: only what a grant gives the requester. */
  searchShared(request: { source: string; query: string; limit: number; requester: string }) { return this.known(() => this.features.memory.searchShared(this.profile(), request)); }
  readShared(request: { source: string; limit: number; requester: string }) { return this.known(() => this.features.memory.readShared(this.profile(), request)); }
  sharedSources(requester: string) { return this.known(() => this.features.memory.sharedSources(this.profile(), requester)); }

  // ---- bus (bus/) ----------------------------------------------------------------------------

  /** The queue consumer or the asking agent hands a bus message here: delivered at least once, applied once. */
  async busReceive(message: unknown) {
    // The watchdog first: an eviction after the request's run was written (and before it was driven)
    // is recovered by its alarm, with no other message or request arriving.
    return this.known(async () => {
      await this.armRunWatchdog();
      return this.features.bus.receive(message);
    });
  }
  /** Alarm callback (agents SDK schedule): messages the queue did not take are sent again. */
  async onBusFlush(): Promise<void> {
    await this.features.bus.flush();
  }
  /** Alarm callback (agents SDK schedule): a supervised child's restart is due, or its time to live ended (bus/supervisor.ts). */
  async onChildAlarm(payload: ChildAlarm): Promise<void> { await this.features.bus.onChildAlarm(payload); }
  /** Alarm callback (agents SDK schedule): a request's deadline passed. */
  async onBusDeadline(payload: { messageId: string }): Promise<void> {
    await this.features.bus.onDeadline(payload.messageId);
  }
  /** Fan-outs and workflows (workflows/): start one, read one. */
  orchestrate(request: OrchestrationRequest) {
    // The watchdog first: a fan-out or workflow cut off by an eviction is carried on by its alarm.
    return this.known(async () => {
      await this.armRunWatchdog();
      return this.features.orchestration.handle(request);
    });
  }

  // ---- work: features, plans and tasks (work/) ---------------------------------------------------

  /** Binds this agent to the task it works (a worker agent); refused when it works another. */
  bindWork(binding: WorkBinding) { return this.known(() => this.features.work.bind(binding)); }
  workBinding() { return this.known(() => this.features.work.binding()); }
  /** Starts the task's run with its spec as the prompt, once per key; answers as soon as the run is written. */
  startWork(input: { key: string; content: string; title: string }) { return this.known(() => this.features.work.start(input)); }
  workRuns(runIds: string[]) { return this.known(() => this.features.work.runs(runIds)); }
  /** A person answered this worker's task (or it moved on): each of its questions goes on or is refused. */
  settleQuestions(input: { approved: boolean; by: string; reason?: string }) { return this.known(() => this.features.work.settleQuestions(input)); }

  // ---- messaging gateways (gateways/) ----------------------------------------

  /** Registers the Telegram webhook with the bot token this agent opens from its project's secrets (it never leaves the agent). */
  telegramSetWebhook(url: string) { return this.known(() => this.features.gateways.setTelegramWebhook(url)); }
  gatewaySet(kind: GatewayKind, config: Parameters<typeof this.features.gateways.save>[1]) { return this.known(() => this.features.gateways.save(kind, config)); }
  gatewayGet(kind: GatewayKind) { return this.known(() => this.features.gateways.configOf(kind)); }
  gatewayRemove(kind: GatewayKind) { return this.known(() => this.features.gateways.remove(kind)); }
  /** A Telegram update whose secret token the worker verified. */
  telegramUpdate(update: TelegramUpdate) { return this.known(() => this.features.gateways.telegramUpdate(update)); }
  /** agents SDK hook: an inbound mail routed here by the worker's `email` handler (routeAgentEmail). */
  async onEmail(email: AgentEmail): Promise<void> {
    if (!this.storedProfile()) return email.setReject("unknown recipient");
    await handleEmail(email, {
      gateways: this.features.gateways,
      agent: () => this.profile().name,
      now: () => Date.now(),
      turn: (input) => this.features.turns.turn({ ...input, principal: gatewayPrincipal("email") }, () => {}),
      reply: (mail, options) => this.replyToEmail(mail, { ...options, secret: null }),
    });
  }

  /** Drizzle migrations applied to this agent's database (`created_at` of each), for the doctor. */
  migrationStatus(): number[] {
    return this.ctx.storage.sql.exec<{ created_at: number }>("SELECT created_at FROM __drizzle_migrations ORDER BY created_at").toArray().map((r: { created_at: number }) => Number(r.created_at));
  }

  /**
   * Live status for listings (the registry does not know it); never a malformed one. Its last
   * activity is at least the newest message's: a change nobody watched is not stored (live/status.ts).
   */
  status(): LiveState & { spend: ReturnType<AgentFeatures["spend"]> } {
    const live = this.liveStatus.current();
    const lastMessageAt = this.features.messages.lastAt();
    return { ...(lastMessageAt !== undefined && lastMessageAt > (live.lastActivityAt ?? 0) ? { ...live, lastActivityAt: lastMessageAt } : live), spend: this.features.spend() };
  }
}

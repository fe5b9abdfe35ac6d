import { Agent } from "agents";
import { eq } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import type { AgentProfile } from "../../core/agents";
import { isPantheonError, PantheonError, type Result } from "../../core/errors";
import { systemClock } from "../../core/ports";
import { defaultRunLimits } from "../../core/run/limits";
import migrations from "../../migrations/agent/migrations.js";
import { initialLiveState, sseFrame, type Emit, type LiveState, type RunEvent } from "./live";
import { makeMessageStore } from "./messages";
import { llmForProfile } from "./models";
import { makeRunDriver, type RunContext, type RunOutcome } from "./run-driver";
import { makeRunStore } from "./runs";
import * as schema from "./schema";
import { makeSessionStore } from "./sessions";
import { buildAgentTools } from "./tools";
import { makeMcpServers, mcpClientOf } from "./mcp";
import { makeBucketStore } from "./buckets";
import type { Message } from "../../core/ports";
import type { RunLimits, RunState } from "../../core/run";

export interface ChatInput {
  content: string;
  session?: string;
  /** Per-request limits, clamped to the agent's own. */
  limits?: Partial<RunLimits>;
}

/** Runs `fn`, turning a thrown PantheonError into a Failure so it survives RPC; other errors propagate. */
async function guard<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (isPantheonError(error)) return error.toFailure();
    throw error;
  }
}

/**
 * One Durable Object per agent (named `<project>.<agent>`). A thin shell: it opens the agent's
 * SQLite database, builds the stores once, and hands them to the feature modules.
 */
export class AgentDO extends Agent<Env, LiveState> {
  override initialState: LiveState = initialLiveState;
  private readonly db: DrizzleSqliteDODatabase<typeof schema>;
  private readonly clock = systemClock;
  private readonly sessions;
  private readonly messages;
  private readonly runs;
  private readonly driver;
  private readonly mcpServers = makeMcpServers(mcpClientOf(this));

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
    this.sessions = makeSessionStore(this.db, this.clock);
    this.messages = makeMessageStore(this.db, this.clock);
    this.runs = makeRunStore(this.db, this.clock);
    this.driver = makeRunDriver({
      runs: this.runs,
      messages: this.messages,
      clock: this.clock,
      buckets: makeBucketStore(this.db),
      broadcast: (event, runId) => this.onRunEvent(event, runId),
      scheduleDeadline: (runId, at) => void this.armDeadline(runId, at),
      askAgent: async (request) => {
        // Delegation over Queues arrives with the messaging feature; until then the model is told plainly.
        queueMicrotask(() => void this.driver.deliver(request.runId, { type: "agent_response", callId: request.callId, error: `agent '${request.target}' cannot be reached: delegation is not enabled` }));
      },
      contextFor: (state) => this.runContext(this.profile(), state.context),
    });
  }

  /** Every start of this object (after eviction, a crash or a deploy) resumes runs that were mid-flight. */
  override async onStart(): Promise<void> {
    if (this.db.select().from(schema.settings).where(eq(schema.settings.key, "profile")).get()) {
      this.driver.resume();
    }
  }

  private runContext(profile: AgentProfile, context: Message[]): RunContext {
    const limits = { ...defaultRunLimits, ...profile.runtime.limits };
    return {
      profile,
      context,
      llm: llmForProfile(profile, this.env, { timeoutMs: limits.modelTimeoutMs }),
      tools: buildAgentTools(profile, { clock: this.clock, fetch: (input, init) => fetch(input, init), env: this.env as unknown as Record<string, unknown>, extra: [this.mcpServers.toolSource()] }),
    };
  }

  /** Alarm callback (agents SDK schedule): a run's wall-time deadline passed. */
  async onRunDeadline(payload: { runId: string }): Promise<void> {
    await this.driver.deliver(payload.runId, { type: "timeout" });
  }

  private async armDeadline(runId: string, at: number): Promise<void> {
    const existing = this.getSchedules({ type: "scheduled" }).filter((s) => s.callback === "onRunDeadline" && (s.payload as unknown as { runId: string }).runId === runId);
    if (existing.some((s) => s.type === "scheduled" && s.time * 1000 >= at - 1000 && s.time * 1000 <= at + 1000)) return;
    for (const s of existing) await this.cancelSchedule(s.id);
    await this.schedule(new Date(at), "onRunDeadline", { runId });
  }

  // ---- profile -------------------------------------------------------------------------------

  /** The registry pushes the agent's profile here on create and on every update. */
  configure(profile: AgentProfile): void {
    const value = JSON.parse(JSON.stringify(profile)) as AgentProfile;
    this.db
      .insert(schema.settings)
      .values({ key: "profile", value, updatedAt: this.clock.now() })
      .onConflictDoUpdate({ target: schema.settings.key, set: { value, updatedAt: this.clock.now() } })
      .run();
  }

  /** Removes everything this agent remembers (the agent was deleted from the registry). */
  forget(): void {
    for (const table of [schema.trace, schema.runs, schema.messages, schema.sessions, schema.settings]) this.db.delete(table).run();
    this.setState(initialLiveState);
    this.ctx.waitUntil(this.mcpServers.removeAll());
  }

  private profile(): AgentProfile {
    const row = this.db.select().from(schema.settings).where(eq(schema.settings.key, "profile")).get();
    if (!row) throw new PantheonError("not_found", `agent '${this.name}' is not configured`, { details: { agent: this.name } });
    return row.value as AgentProfile;
  }

  // ---- chat ----------------------------------------------------------------------------------

  chat(input: ChatInput): Promise<Result<RunOutcome>> {
    return guard(() => this.turn(input, () => {}));
  }

  /** The same turn, as a stream of server-sent events (`run`, `token`, ..., `done`). */
  async chatStream(input: ChatInput): Promise<Result<ReadableStream<Uint8Array>>> {
    return this.known(() => {
      const session = this.sessions.resolve(input.session);
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
      const writer = writable.getWriter();
      const encoder = new TextEncoder();
      const write = (event: RunEvent) => void writer.write(encoder.encode(sseFrame(event))).catch(() => {});
      const done = this.turn({ ...input, session: session.id }, write)
        .catch((error: unknown) => write({ type: "error", code: "internal", message: error instanceof Error ? error.message : String(error) }))
        .finally(() => void writer.close().catch(() => {}));
      this.ctx.waitUntil(done);
      return readable;
    });
  }

  private async turn(input: ChatInput, sink: Emit): Promise<RunOutcome> {
    const profile = this.profile();
    const session = this.sessions.resolve(input.session);
    const limits = { ...defaultRunLimits, ...profile.runtime.limits };
    const history = this.messages.recent(session.id, Math.min(input.limits?.maxHistory ?? limits.maxHistory, limits.maxHistory));
    const context: Message[] = [
      { role: "system", content: profile.systemPrompt },
      ...history.map(({ role, content, name }) => ({ role, content, ...(name ? { name } : {}) })),
    ];
    await this.mcpServers.ready();
    const result = await this.driver.start({
      ctx: this.runContext(profile, context),
      sessionId: session.id,
      content: input.content,
      trigger: "message",
      ...(input.limits ? { overrides: input.limits } : {}),
      sink,
    });
    this.sessions.touch(session.id);
    return result;
  }

  /** Every run event goes to live clients, and moves the agent's live status. */
  private onRunEvent(event: RunEvent, runId: string): void {
    const profile = this.profile();
    this.broadcast(JSON.stringify({ type: "run_event", agent: profile.name, runId, event }));
    if (event.type === "run") this.live({ status: "running", runId, typing: true });
    if (event.type === "status" && !["completed", "failed", "cancelled"].includes(event.status)) this.live({ status: event.status, runId, typing: event.status === "running" });
    if (event.type === "done") this.live({ status: "idle", runId: null, typing: false });
  }

  private live(patch: Partial<LiveState>): void {
    this.setState({ ...this.state, ...patch, lastActivityAt: this.clock.now() });
  }

  /** Like `guard`, for calls that only make sense on an agent the registry has configured. */
  private known<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
    return guard(() => {
      this.profile();
      return fn();
    });
  }

  // ---- history and sessions ------------------------------------------------------------------

  listMessages(options: { session?: string; cursor?: string; limit: number }) {
    return this.known(() => {
      const session = this.sessions.resolve(options.session);
      const page = this.messages.page(session.id, options);
      if (!page) throw new PantheonError("validation_failed", "cursor is not valid", { details: { issues: [{ path: ["cursor"], message: "use the nextCursor of a previous page" }] } });
      return { ...page, sessionId: session.id };
    });
  }

  listSessions() {
    return this.known(() => this.sessions.list());
  }
  createSession(title?: string) {
    return this.known(() => this.sessions.create(title));
  }
  renameSession(id: string, title: string) {
    return this.known(() => this.sessions.rename(id, title));
  }
  forkSession(id: string, options: { fromMessageId?: string; title?: string }) {
    return this.known(() => this.sessions.fork(id, options));
  }
  deleteSession(id: string) {
    return this.known(() => this.sessions.remove(id));
  }

  // ---- runs ----------------------------------------------------------------------------------

  listRuns(limit: number) {
    return this.known(() => this.runs.list(limit));
  }

  getRun(id: string) {
    return this.known(() => {
      const run = this.runs.get(id);
      if (!run) throw new PantheonError("not_found", `run '${id}' does not exist`, { details: { run: id } });
      const { state, ...summary } = run;
      const pending = (state as RunState).calls
        .filter((c) => c.status === "proposed" && summary.status === "waiting_approval")
        .map((c) => ({ callId: c.call.id, tool: c.call.name, arguments: c.call.arguments }));
      return { run: { ...summary, pending }, trace: this.runs.trace(id) };
    });
  }

  /** A person approves or rejects a pending tool call (`by` comes from the authenticated request). */
  decide(runId: string, decision: { approved: boolean; by: string; callId?: string; reason?: string }) {
    return this.known(async () => this.summaryOf((await this.driver.decide(runId, decision)).id));
  }

  cancelRun(runId: string, by: string) {
    return this.known(async () => this.summaryOf((await this.driver.cancel(runId, by)).id));
  }

  pendingApprovals() {
    return this.known(() => this.driver.pendingApprovals());
  }

  private summaryOf(runId: string) {
    const { state: _state, ...summary } = this.runs.get(runId)!;
    return summary;
  }

  /** The agent's tools as the model sees them (built-ins it declares, HTTP tools, connections). */
  listTools() {
    return this.known(() => this.runContext(this.profile(), []).tools.specs);
  }

  /** A person calls a tool by hand: arguments are validated against its schema; no model involved. */
  invokeTool(name: string, args: Record<string, unknown>) {
    return this.known(async () => {
      const { tools } = this.runContext(this.profile(), []);
      if (!tools.specs.some((s) => s.name === name)) throw new PantheonError("not_found", `tool '${name}' is not declared for this agent`, { details: { tool: name } });
      const started = this.clock.now();
      const outcome = await tools.registry.invoke(name, args, { secrets: tools.secrets });
      const ms = this.clock.now() - started;
      return outcome.ok ? { ok: true as const, output: outcome.output, truncated: outcome.truncated, ms } : { ok: false as const, error: outcome.error, ms };
    });
  }

  // ---- MCP servers (mcp.ts) ------------------------------------------------------------------

  connectMcpServer(name: string, url: string) {
    return this.known(() => this.mcpServers.connect(name, url));
  }
  listMcpServers() {
    return this.known(() => this.mcpServers.list());
  }
  disconnectMcpServer(id: string) {
    return this.known(() => this.mcpServers.remove(id));
  }

  /** Live status for listings (the registry does not know it). */
  status(): LiveState {
    return this.state;
  }
}

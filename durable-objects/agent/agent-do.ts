import type { AgentEmail } from "agents/email";
import { gatewayPrincipal, type RunPrincipal, type Scope } from "../../core/auth";
import type { MemoryKind } from "../../core/context";
import type { EvalRun } from "../../core/evals";
import { PantheonError, resultOf, type Result } from "../../core/errors";
import type { TelegramUpdate } from "../../core/gateways";
import { AgentObject } from "./agent-object";
import type { AgentFeatures } from "./features";
import type { McpAnswer, McpServers, ProjectMcpServers } from "./mcp";
import { type GatewayKind, handleEmail } from "./gateways";
import { runEventStream } from "./live";
import {
  checkDecisions,
  runSummaryOf,
  runTurnView,
  runView,
  type ChatInput,
  type ManualCall,
  type TurnOutcome,
} from "./runs";
import type { WorkBinding } from "./work";
import type { OrchestrationRequest } from "./workflows";

export type { ChatInput, ManualCall } from "./runs";

/**
 * One Durable Object per agent (named `<project>.<agent>`). A thin shell: AgentObject (agent-object.ts)
 * opens the agent's SQLite database, builds the stores once and hands them to the feature modules, and
 * answers the agents SDK's lifecycle; this class adds the RPC methods the worker and other objects
 * call, each a delegation to one feature. Inherited methods are RPC methods too (workerd exposes the
 * whole prototype chain).
 */
export class AgentDO extends AgentObject {
  // ---- chat ----------------------------------------------------------------------------------

  chat(input: ChatInput): Promise<Result<TurnOutcome>> {
    return resultOf(async () => {
      await this.adoptUnpushedProfile();
      return this.features.turns.turn(input, () => {});
    });
  }

  /** The same turn, as a stream of server-sent events (`run`, `token`, ..., `done`). */
  async chatStream(input: ChatInput): Promise<Result<ReadableStream<Uint8Array>>> {
    return this.known(() => {
      const session = this.features.sessions.resolve(input.session);
      return runEventStream(
        (write) => this.features.turns.turn({ ...input, session: session.id }, write),
        (done) => this.ctx.waitUntil(done),
        this.streams,
      );
    });
  }

  /**
   * A person's decisions on a paused run's calls (`by` from the authenticated request), as a stream
   * of the run's events from there on (`tool_call`, `tool_result`, `token`, ..., `done`; none when it
   * waits again). Checked before the stream starts: the run waits for approval and each call is pending.
   */
  async decideStream(
    runId: string,
    decisions: { callId: string; approved: boolean; reason?: string }[],
    by: string,
    scope: Scope,
  ): Promise<Result<ReadableStream<Uint8Array>>> {
    return this.known(() => {
      checkDecisions(this.features.runs, runId, decisions, scope);
      for (const d of decisions) this.features.work.refuseQuestionDecision(runId, d.callId);
      return runEventStream(
        async (write) => {
          for (const decision of decisions) await this.features.driver.decide(runId, { ...decision, by, scope }, write);
        },
        (done) => this.ctx.waitUntil(done),
        this.streams,
      );
    });
  }

  // ---- history and sessions ------------------------------------------------------------------

  listMessages(options: { session?: string; cursor?: string; limit: number }) {
    return this.known(() => {
      const session = this.features.sessions.resolve(options.session);
      const page = this.features.messages.page(session.id, options);
      if (!page)
        throw new PantheonError("validation_failed", "cursor is not valid", {
          details: { issues: [{ path: ["cursor"], message: "use the nextCursor of a previous page" }] },
        });
      return { ...page, sessionId: session.id };
    });
  }

  listSessions() {
    return this.known(() => this.features.sessions.list());
  }
  createSession(title?: string) {
    return this.known(() => this.features.sessions.create(title));
  }
  renameSession(id: string, title: string) {
    return this.known(() => this.features.sessions.rename(id, title));
  }
  forkSession(id: string, options: { fromMessageId?: string; title?: string }) {
    return this.known(() => this.features.sessions.fork(id, options));
  }
  deleteSession(id: string) {
    return this.known(() => this.features.sessions.remove(id));
  }

  // ---- runs ----------------------------------------------------------------------------------

  listRuns(limit: number) {
    return this.known(() => this.features.runs.list(limit));
  }

  getRun(id: string) {
    return this.known(() => runView(this.features.runs, id));
  }

  /**
   * A run as one exchange, for the protocol adapters (an A2A task): its summary and pending calls,
   * the request and the reply of its turn, and the title of its session.
   */
  runTurn(id: string) {
    return this.known(() => runTurnView(this.features.runs, this.features.sessions, id));
  }

  /** A person approves or rejects a pending tool call (`by` and `scope` come from the authenticated request). */
  decide(runId: string, decision: { approved: boolean; by: string; scope: Scope; callId?: string; reason?: string }) {
    return this.known(async () => {
      this.features.work.refuseQuestionDecision(runId, decision.callId);
      return runSummaryOf(this.features.runs, (await this.features.driver.decide(runId, decision)).id);
    });
  }

  cancelRun(runId: string, by: string) {
    return this.known(async () => runSummaryOf(this.features.runs, (await this.features.bus.cancelRun(runId, by)).id));
  }

  pendingApprovals() {
    return this.known(() => this.features.work.labelApprovals(this.features.driver.pendingApprovals()));
  }

  /** The agent's tools as the model sees them (built-ins it declares, HTTP tools, connections). */
  listTools() {
    return this.known(() => this.features.contexts.toolsOf(this.profile()).specs);
  }

  /** A person calls a tool by hand (`principal` from the authenticated request): runs/turns.ts. */
  invokeTool(name: string, args: Record<string, unknown>, principal: RunPrincipal): Promise<Result<ManualCall>> {
    return this.known(() => this.features.starts.invokeTool(name, args, principal));
  }

  // ---- MCP servers (mcp/) -----------------------------------------------------------------------

  connectMcpServer(name: string, url: string, options: Parameters<McpServers["connect"]>[2] = {}) {
    return this.known(() => this.mcpServers.connect(name, url, options));
  }
  /** The browser came back from an MCP server's OAuth consent page (workers/api/mcp-oauth.ts). */
  completeMcpAuthorization(callbackUrl: string) {
    return this.known(() => this.mcpServers.completeAuthorization(callbackUrl));
  }
  listMcpServers() {
    return this.known(() => this.mcpServers.list());
  }
  /** The MCP servers that need a person to authorise them again, without waking a connection (the doctor). */
  mcpNeedsAuthorising() {
    return this.known(() => this.mcpServers.needsAuthorising());
  }
  /** Questions this agent's MCP servers asked that wait for a person (elicitation). */
  listMcpQuestions() {
    return this.known(() => this.mcpServers.questions());
  }
  answerMcpQuestion(id: string, answer: McpAnswer) {
    return this.known(() => this.mcpServers.answerQuestion(id, answer));
  }
  disconnectMcpServer(id: string) {
    return this.known(() => this.mcpServers.remove(id));
  }
  /** The project's MCP servers changed (workers/api/mcp-project.ts): kept, connected before the next turn. */
  projectMcpServers(servers: ProjectMcpServers) {
    return this.known(() => this.mcpServers.projectChanged(servers));
  }

  // ---- behaviors (behaviors/; their alarm callback is AgentObject's) -------------------------------

  /** The worker's Cron Trigger: runs this agent's cron behaviors due in the minute of `at`. */
  runCronBehaviors(at: number) {
    return this.known(() => this.features.behaviors.onCron(at));
  }
  behaviorSchedules() {
    return this.known(() => this.features.behaviors.list());
  }
  pauseBehavior(name: string, paused: boolean) {
    return this.known(() => this.features.behaviors.setPaused(name, paused));
  }
  /** One run toward the agent's standing goals (`pantheon agents tick`), for whoever asked. */
  tick(principal: RunPrincipal, session?: string) {
    return this.known(() => this.features.behaviors.tick(principal, session));
  }

  // ---- memory and context (memory/; the idle alarm callback is AgentObject's) ----------------------

  listMemories(options: { q?: string; kind?: MemoryKind; limit: number }) {
    return this.known(() => this.features.memory.list(options));
  }
  getMemory(id: string) {
    return this.known(() => this.features.memory.get(id));
  }
  createMemory(input: {
    text: string;
    kind: MemoryKind;
    importance?: number;
    entities?: string[];
    occurredAt?: number;
  }) {
    return this.known(() => this.features.memory.create(input));
  }
  deleteMemory(id: string) {
    return this.known(() => this.features.memory.remove(id));
  }
  memoryStatus() {
    return this.known(() => this.features.memory.status());
  }
  /** The memories as JSONL, every secret the agent could hold redacted in every form (core/redaction). */
  exportMemories() {
    return this.known(() => this.features.memory.exportText(this.features.screens.redactor().redactDeep));
  }
  importMemories(text: string) {
    return this.known(() => this.features.memory.import(text));
  }
  /** Sessions, messages and memories as snapshot lines, redacted as the memory export is (snapshot/). */
  snapshotLines() {
    return this.known(() => this.features.snapshots.lines(this.features.screens.redactor().redactDeep));
  }
  restoreSnapshot(text: string) {
    return this.known(() => this.features.snapshots.restore(text));
  }
  // ---- evals (evals/): the worker runs the cases; the agent keeps the history and judges ---------
  judge(request: Parameters<AgentFeatures["evals"]["judge"]>[0]) {
    return this.known(() => this.features.evals.judge(request));
  }
  keepEvalRun(run: EvalRun) {
    return this.known(() => this.features.evals.keep(run));
  }
  evalRuns(limit: number) {
    return this.known(() => this.features.evals.list(limit));
  }
  evalRun(id: string) {
    return this.known(() => this.features.evals.get(id));
  }
  reembedMemories() {
    return this.known(() => this.features.memory.reembed());
  }
  /** The idle upkeep now: exchanges waiting for extraction first, then consolidation. */
  consolidateMemories() {
    return this.known(() => this.features.memory.upkeep(this.profile()));
  }
  addDocument(source: string, doc: { title: string; text: string }) {
    return this.known(() => this.features.memory.addDocument(source, doc));
  }
  /** The agent's own context sources (memory and document sources), for the per-agent MCP server's resources. */
  contextSources() {
    return this.known(() => this.features.memory.ownSources(this.profile()));
  }
  /** One own context source's items, newest first. */
  readContextSource(source: string, limit: number) {
    return this.known(() => this.features.memory.readSource(this.profile(), source, limit));
  }
  previewContext(input: { q: string; session?: string; maxTokens?: number; k?: number }) {
    return this.known(() =>
      this.features.memory.preview({
        profile: this.profile(),
        sessionId: this.features.sessions.resolve(input.session).id,
        query: input.q,
        ...(input.maxTokens ? { maxTokens: input.maxTokens } : {}),
        ...(input.k ? { k: input.k } : {}),
      }),
    );
  }
  /** Another agent of the project searches, reads or lists this agent's sources: only what a grant gives the requester. */
  searchShared(request: { source: string; query: string; limit: number; requester: string }) {
    return this.known(() => this.features.memory.searchShared(this.profile(), request));
  }
  readShared(request: { source: string; limit: number; requester: string }) {
    return this.known(() => this.features.memory.readShared(this.profile(), request));
  }
  sharedSources(requester: string) {
    return this.known(() => this.features.memory.sharedSources(this.profile(), requester));
  }

  // ---- bus (bus/; its alarm callbacks are AgentObject's) -------------------------------------------

  /** The queue consumer or the asking agent hands a bus message here: delivered at least once, applied once. */
  async busReceive(message: unknown) {
    // The watchdog first: an eviction after the request's run was written (and before it was driven)
    // is recovered by its alarm, with no other message or request arriving.
    return this.known(async () => {
      await this.armRunWatchdog();
      return this.features.bus.receive(message);
    });
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
  bindWork(binding: WorkBinding) {
    return this.known(() => this.features.work.bind(binding));
  }
  workBinding() {
    return this.known(() => this.features.work.binding());
  }
  /** Starts the task's run with its spec as the prompt, once per key; answers as soon as the run is written. */
  startWork(input: { key: string; content: string; title: string }) {
    return this.known(() => this.features.work.start(input));
  }
  workRuns(runIds: string[]) {
    return this.known(() => this.features.work.runs(runIds));
  }
  /** A person answered this worker's task (or it moved on): each of its questions goes on or is refused. */
  settleQuestions(input: { approved: boolean; by: string; reason?: string }) {
    return this.known(() => this.features.work.settleQuestions(input));
  }

  // ---- messaging gateways (gateways/) ----------------------------------------

  /** Registers the Telegram webhook with the bot token this agent opens from its project's secrets (it never leaves the agent). */
  telegramSetWebhook(url: string) {
    return this.known(() => this.features.gateways.setTelegramWebhook(url));
  }
  gatewaySet(kind: GatewayKind, config: Parameters<typeof this.features.gateways.save>[1]) {
    return this.known(() => this.features.gateways.save(kind, config));
  }
  gatewayGet(kind: GatewayKind) {
    return this.known(() => this.features.gateways.configOf(kind));
  }
  gatewayRemove(kind: GatewayKind) {
    return this.known(() => this.features.gateways.remove(kind));
  }
  /** A Telegram update whose secret token the worker verified. */
  telegramUpdate(update: TelegramUpdate) {
    return this.known(() => this.features.gateways.telegramUpdate(update));
  }
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
}

import { gatewayPrincipal, unknownPrincipal } from "../../core/auth";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { AgentProfile } from "../../core/agents";
import type { AgentDO } from "./agent-do";
import type { ActorScript } from "../../core/dsl";
import type { Clock } from "../../core/ports";
import { limitsOf } from "../../core/run";
import type { OutboundSettings } from "../../core/tools";
import { makeBehaviorBook, makeBehaviors } from "./behaviors";
import { gatedKeep } from "../../core/gates";
import { busPortsFromEnv, fanOutToolSource, makeAgentBus, spawnToolSource } from "./bus";
import { makeMessageStore, makeSessionStore, makeSettingsStore, type RunEvent } from "./chat";
import { makeGateways } from "./gateways";
import type { McpServers } from "./mcp";
import { makeMemoryFeature } from "./memory";
import { makeSnapshots } from "./snapshot";
import { makeEvals } from "./evals";
import { makeTelemetry, telemetrySettings } from "./telemetry";
import { makeProfileHolder } from "./profile";
import { makeBreakerStore, makeBucketStore, makeRunDriver, makeRunStore, makeSessionTools, makeTurns } from "./runs";
import * as schema from "./schema";
import { makeWorkFeature } from "./work";
import { makeOrchestration, makeWorkflows } from "./workflows";
import { makeProjectSecrets } from "./secrets";
import { registryStub } from "../stubs";
import { capsOf } from "../../core/quotas";
import { makeQuotaKeeper, withQuota } from "./quotas";

/** The SDK methods the features schedule their alarms with (typed on AgentDO, so a callback must be one of its methods). */
export type AgentScheduling = Pick<AgentDO, "name" | "schedule" | "scheduleEvery" | "getSchedules" | "listSchedules" | "cancelSchedule">;

/** What the AgentDO shell lends its features: its storage, its SDK scheduling, and the hooks it keeps itself. */
export interface AgentShell {
  agent: AgentScheduling;
  ctx: DurableObjectState;
  env: Env;
  db: DrizzleSqliteDODatabase<typeof schema>;
  clock: Clock;
  outbound: OutboundSettings;
  mcpServers: McpServers;
  /** A planned behavior's run reports its events to its plan (which steps failed). */
  planObservers: Map<string, (event: RunEvent) => void>;
  /** Drives of runs under way in this instance: a deletion waits for them before it wipes storage. */
  inFlight: Set<Promise<unknown>>;
  configure(profile: AgentProfile): Promise<void>;
  onRunEvent(event: RunEvent, runId: string): void;
  armDeadline(runId: string, at: number): Promise<void>;
  armRunWatchdog(): Promise<void>;
}

/**
 * Builds an agent's stores and features once and wires them to each other. The features refer to
 * one another lazily (a closure reads `turns` or `driver` when it is called, never while building),
 * so the order below is free of cycles.
 */
export function makeAgentFeatures(shell: AgentShell) {
  const { agent, ctx, env, db, clock } = shell;
  const sessions = makeSessionStore(db, clock);
  const messages = makeMessageStore(db, clock);
  const runs = makeRunStore(db, clock);
  const settings = makeSettingsStore(db, clock);
  const profiles = makeProfileHolder({ settings, env, name: () => agent.name });

  /** One SQLite transaction; when it rolls back, what the settings store kept of it goes too. */
  const transaction = <T>(fn: () => T): T => {
    try {
      return ctx.storage.transactionSync(fn);
    } catch (error) {
      settings.reset();
      throw error;
    }
  };

  /** Runs `fn` once per key, across restarts (a plan step redone after an eviction). */
  const once = async (key: string, fn: () => Promise<unknown>): Promise<void> => {
    const done = `once:${key}`;
    if (ctx.storage.kv.get(done)) return;
    await fn();
    ctx.storage.kv.put(done, 1);
  };

  const memory = makeMemoryFeature({ db, sql: ctx.storage.sql, messages, settings, clock, env, objectName: () => agent.name, idle: {
    list: () => agent.getSchedules().filter((s) => s.callback === "onMemoryIdle"),
    schedule: (seconds) => agent.schedule(seconds, "onMemoryIdle"),
    cancel: (id) => agent.cancelSchedule(id),
    lastActivityAt: () => messages.lastAt(),
  }, background: (work) => ctx.waitUntil(work), screenFor: (profile) => turns.memoryScreenFor(profile), projectModel: (profile) => turns.projectModel(profile), capped: (llm, profile) => withQuota(llm, quota, { agent: capsOf(limitsOf(profile.runtime.limits)), ...(profile.projectQuota ? { project: profile.projectQuota } : {}) }) });
  const driver = makeRunDriver({
    runs,
    messages,
    clock,
    buckets: makeBucketStore(db),
    broadcast: (event, runId) => shell.onRunEvent(event, runId),
    scheduleDeadline: (runId, at) => void shell.armDeadline(runId, at),
    askAgent: (request) => bus.ask(request),
    answerPeer: (runId, answer) => bus.answer(runId, answer.status),
    prepare: (state) => turns.prepare(state),
    compileContext: (state, profile, trace) => turns.compileContext(state, profile, trace),
    durably: async (_runId, work) => {
      await shell.armRunWatchdog();
      const driving = work();
      shell.inFlight.add(driving);
      try {
        return await driving;
      } finally {
        shell.inFlight.delete(driving);
      }
    },
    transaction,
  });
  const project = () => agent.name.slice(0, agent.name.indexOf("."));
  const agentName = () => agent.name.slice(agent.name.indexOf(".") + 1);
  const bus = makeAgentBus({
    ...busPortsFromEnv(env, project),
    db,
    clock,
    runs,
    project,
    profile: () => profiles.get(),
    deliver: (runId, event) => driver.deliver(runId, event),
    createRun: (input) => driver.create({ ...input, agent: profiles.get().name, limits: limitsOf(profiles.get().runtime.limits) }),
    startRun: (runId) => driver.startCreated(runId),
    cancelRun: (runId, by) => cancelRun(runId, by),
    transaction,
    retryLater: async (seconds) => {
      if (!agent.getSchedules().some((s) => s.callback === "onBusFlush")) await agent.schedule(seconds, "onBusFlush");
    },
    createSession: (title) => sessions.create(title).id,
    deadlines: {
      next: (after) => {
        const times = agent.getSchedules().filter((s) => s.callback === "onBusDeadline" && s.time * 1000 > after).map((s) => s.time * 1000);
        return times.length ? Math.min(...times) : null;
      },
      arm: (at, messageId) => agent.schedule(new Date(at), "onBusDeadline", { messageId }),
    },
    configureSelf: (profile) => shell.configure(profile),
    kv: ctx.storage.kv,
    // One alarm per record and kind: arming again (on recovery) adds none.
    armChildAlarm: async (at, alarm) => {
      const same = (p: unknown) => JSON.stringify(p) === JSON.stringify(alarm);
      if (!agent.getSchedules().some((s) => s.callback === "onChildAlarm" && same(s.payload))) await agent.schedule(new Date(at), "onChildAlarm", alarm);
    },
    screenOutput: (text, runId) => {
      const screen = turns.memoryScreenFor(profiles.get());
      let reason: string | null = null;
      gatedKeep("fanout", (sink, t, r) => (reason = screen(sink, t, r)), { text, ...(runId ? { runId } : {}) });
      return reason;
    },
    handElsewhere: (replyTo, _from, reply) => workflows.take(replyTo, reply),
  });
  const workflows = makeWorkflows({
    db,
    clock,
    transaction,
    ask: (replyTo, target, question, principal) => bus.askFor(replyTo, target, question, principal),
    fanOut: async (spec, replyTo) => void (await bus.startFanOut(spec, replyTo)),
    invokeTool: (name, args, principal) => turns.invokeTool(name, args, principal),
    trace: (runId, name, data) => void runs.appendTrace({ runId, kind: "message", name, data, startedAt: clock.now(), durationMs: 0 }),
    background: (work) => ctx.waitUntil(work),
  });
  const orchestration = makeOrchestration({ bus, workflows, profile: () => profiles.get() });
  /**
   * Cancels a run and, down its delegation chain, the runs it asked other agents for (bus cancels):
   * every way a run is cancelled (the API, a protocol, a chat's Ctrl-C, its asker's cancel) comes here.
   */
  async function cancelRun(runId: string, by: string) {
    const state = await driver.cancel(runId, by);
    await bus.cancelAsks(runId, `run ${runId} of '${agentName()}' was cancelled by ${by}`);
    return state;
  }
  const secrets = makeProjectSecrets({ project, env, registry: () => registryStub(env, project()) });
  const gateways = makeGateways({
    botToken: (name) => secrets.get(name, "telegram"),
    db,
    clock,
    env,
    sessions,
    agent: agentName,
    runInfo: (runId) => runs.get(runId),
    // Whoever writes to the bot is an outsider (chat); an approver the operator named decides as `approve`.
    turn: (input) => turns.turn({ ...input, principal: gatewayPrincipal("telegram") }, () => {}),
    decide: (runId, decision) => driver.decide(runId, { ...decision, scope: "approve" }),
    pendingApprovals: () => driver.pendingApprovals(),
    waitUntil: (promise) => ctx.waitUntil(promise),
  });
  const behaviors = makeBehaviors({
    book: makeBehaviorBook(settings, clock),
    clock,
    scheduler: {
      list: () => agent.listSchedules(),
      every: (seconds, payload) => agent.scheduleEvery(seconds, "onBehaviorAlarm", payload, { retry: { maxAttempts: 1 } }),
      at: (when, payload) => agent.schedule(when, "onBehaviorAlarm", payload, { retry: { maxAttempts: 1 }, idempotent: true }),
      cancel: (id) => agent.cancelSchedule(id),
    },
    script: () => (profiles.stored()?.script as ActorScript | null | undefined) ?? null,
    agent: () => profiles.get().name,
    sessionId: (session) => sessions.resolve(session).id,
    run: (input, sink, behavior) => turns.behaviorTurn(input, sink, behavior),
    goals: () => profiles.stored()?.goals ?? [],
    configurer: () => profiles.stored()?.configuredBy ?? unknownPrincipal,
    append: (sessionId, message) => void messages.append(sessionId, message),
    remember: (content, key) => once(key, () => memory.create({ text: content, kind: "fact" })),
    busy: () => driver.hasWorkInFlight(),
  });
  const work = makeWorkFeature({
    env,
    project,
    agent: agentName,
    settings,
    runs,
    driver: () => driver,
    newSession: (title) => sessions.create(title).id,
    startTurn: (input) =>
      new Promise<string>((resolve, reject) => {
        let started = false;
        // Only an admin starts a task (its route, or `task.start`, an admin tool): its worker's run acts as one.
        const done = turns.turn({ content: input.content, session: input.session, principal: { id: "task", scope: "admin", name: `worker of '${input.title}' (a task only an admin starts)` } }, (event) => {
          if (event.type === "run" && !started) {
            started = true;
            resolve(event.runId);
          }
        });
        ctx.waitUntil(done.then(() => !started && reject(new Error("the task's turn ended before its run was written")), (error: unknown) => !started && reject(error)));
      }),
    waitUntil: (promise) => ctx.waitUntil(promise),
  });
  const quota = makeQuotaKeeper({
    kv: ctx.storage.kv,
    clock,
    testClock: env.PANTHEON_TEST_CLOCK === "1",
    agent: agentName,
    registry: () => registryStub(env, project()),
    background: (work) => ctx.waitUntil(work),
  });
  /** What the agent spent today against its caps (GET /api/agents, the doctor, the PWA); null before it is configured. */
  const spend = () => {
    const profile = profiles.stored();
    return profile ? quota.today(capsOf(limitsOf(profile.runtime.limits)), profile.projectQuota) : null;
  };
  const breakers = makeBreakerStore(ctx.storage.kv);
  const sessionTools = makeSessionTools(ctx.storage.kv);
  const turns = makeTurns({
    breakers,
    sessionTools,
    env,
    clock,
    quota,
    project,
    secrets,
    outbound: shell.outbound,
    profile: () => profiles.get(),
    driver: () => driver,
    runs,
    sessions,
    memory,
    mcp: shell.mcpServers,
    // The delegation tools: agent.spawn and agent.fanout, each offered only to agents that use it.
    spawnTools: (profile) => {
      const spawn = spawnToolSource(profile);
      const fanOut = fanOutToolSource(profile);
      return { specs: [...spawn.specs, ...fanOut.specs], implementations: {} };
    },
    workTools: (profile) => work.toolSource(profile),
    behaviors,
    observePlan: (runId, observe) => shell.planObservers.set(runId, observe),
    waitUntil: (promise) => ctx.waitUntil(promise),
  });
  /** Every run not finished: in memory (a starting run's record may not be written yet), created, or under way. */
  const unfinishedRuns = () => [...new Set([...driver.liveRunIds(), ...runs.byStatus("idle").map((r) => r.id), ...runs.active().map((r) => r.id)])];
  /** Removes everything the agent remembers (its clients' access was ended first: live/incarnation.ts). */
  const wipe = async () => {
    const unindexCron = profiles.forget();
    quota.forget();
    secrets.invalidate();
    breakers.wipe();
    sessionTools.wipe();
    for (const table of [schema.trace, schema.runs, schema.messages, schema.sessions, schema.settings, schema.busInbox, schema.busOutbox, schema.busConversations, schema.busFanOuts, schema.workflowRuns, schema.gatewaySettings, schema.gatewayThreads]) db.delete(table).run();
    settings.reset();
    await Promise.all([unindexCron(), shell.mcpServers.removeAll(), behaviors.reconcile(), memory.wipe(), evals.wipe()]);
  };
  const snapshots = makeSnapshots({ db, transaction, memory });
  const telemetry = makeTelemetry({
    db, storage: ctx.storage, env, project, agent: () => agent.name.slice(agent.name.indexOf(".") + 1), runs,
    settings: async () => {
      const loading = secrets.ensure(telemetrySettings, "telemetry");
      if (loading) await loading;
      return secrets.values("telemetry");
    },
    redact: (value) => turns.redactorFor(profiles.get()).redactDeep(value),
    retryIn: async (seconds) => {
      if (!agent.getSchedules().some((s) => s.callback === "onTelemetryFlush")) await agent.schedule(seconds, "onTelemetryFlush");
    },
    background: (work) => ctx.waitUntil(work),
  });
  const evals = makeEvals({ storage: ctx.storage, env, profile: () => profiles.get(), projectModel: (profile) => turns.projectModel(profile), screen: (profile) => turns.memoryScreenFor(profile) });
  return { sessions, messages, runs, settings, profiles, memory, driver, bus, gateways, behaviors, work, turns, secrets, snapshots, evals, telemetry, transaction, cancelRun, unfinishedRuns, wipe, spend, orchestration };
}

export type AgentFeatures = ReturnType<typeof makeAgentFeatures>;

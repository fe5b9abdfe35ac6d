import { gatewayPrincipal, unknownPrincipal } from "../../core/auth";
import type { ActorScript } from "../../core/dsl";
import { capsOf } from "../../core/quotas";
import { limitsOf } from "../../core/run";
import type { OutboundSettings } from "../../core/tools";
import { registryStub } from "../stubs";
import { behaviorsOf, makeBehaviorBook, makeBehaviors, makePlanModels } from "./behaviors";
import { busPortsFromEnv, makeAgentBus } from "./bus";
import { makeMessageStore, makeSessionStore, makeSettingsStore } from "./chat";
import { makeEvals } from "./evals";
import { makeGateways } from "./gateways";
import type { AgentHost } from "./host";
import type { McpServers } from "./mcp";
import { makeMemoryFeature } from "./memory";
import { makeProfileHolder } from "./profile";
import { makeQuotaKeeper } from "./quotas";
import {
  makeBreakerStore,
  makeBucketStore,
  makeHeldWrites,
  makeOutputScreens,
  makeRunAlarms,
  makeRunContexts,
  makeRunDriver,
  makeRunStarts,
  makeRunStore,
  makeSessionTools,
  makeOnce,
  makeTurns,
  type RunEvents,
} from "./runs";
import * as schema from "./schema";
import { makeProjectSecrets } from "./secrets";
import { makeSnapshots } from "./snapshot";
import { makeTelemetry, telemetrySettings } from "./telemetry";
import { makeWorkFeature, makeWorkTools } from "./work";
import { makeOrchestration, makeWorkflows } from "./workflows";
import { makePushNotices } from "./push";

/** What the AgentDO shell lends its features besides the host: its MCP client, its outbound policy, the run events its live clients listen to. */
export interface AgentShell {
  host: AgentHost;
  outbound: OutboundSettings;
  mcpServers: McpServers;
  /** Where run events go; the shell listens first (its sockets and live status), the features below add themselves. */
  events: RunEvents;
  /** The tokens with a socket live on the agent (push: no notice to someone looking). */
  liveTokens(): string[];
}

/**
 * Builds an agent's stores and features once, each from the ones above it in this list, so a feature
 * reaches another by calling it, downward, and go-to-definition follows every call. Two relations go
 * both ways because the protocol does (each is attached once, after both ends exist):
 * - driver ⇄ bus: a run asks another agent through the bus, and the bus delivers the answer to the run
 *   (RunPeers in runs/contracts.ts);
 * - bus ⇄ workflows: a workflow step asks through the bus, and the bus hands the answer to the workflow.
 * Run events go down too: the driver publishes, and the features that react to runs listen (below).
 */
export function makeAgentFeatures(shell: AgentShell) {
  const { host, events } = shell;
  const { env, db, clock, storage } = host;
  // Storage: the agent's own tables and key-value records.
  const sessions = makeSessionStore(db, clock);
  const messages = makeMessageStore(db, clock);
  const runs = makeRunStore(db, clock);
  const settings = makeSettingsStore(db, clock);
  const profiles = makeProfileHolder({ settings, env, name: () => host.objectName() });
  /** The agent's script as last configured, or null (no script, or not configured). */
  const script = () => (profiles.stored()?.script as ActorScript | null | undefined) ?? null;
  const breakers = makeBreakerStore(storage.kv);
  const sessionTools = makeSessionTools(storage.kv);

  /** One SQLite transaction; when it rolls back, what the settings store kept of it goes too. */
  const transaction = <T>(fn: () => T): T => {
    try {
      return storage.transactionSync(fn);
    } catch (error) {
      settings.reset();
      throw error;
    }
  };

  // What the agent holds of its project: secrets, the daily caps, and the screens that keep secrets in.
  const registry = () => registryStub(env, host.project());
  const secrets = makeProjectSecrets({ project: () => host.project(), env, registry });
  const quota = makeQuotaKeeper({
    kv: storage.kv,
    clock,
    testClock: env.PANTHEON_TEST_CLOCK === "1",
    agent: () => host.agentName(),
    registry,
    background: (work) => host.background(work),
  });
  const writes = makeHeldWrites({ transaction, appendTraces: (steps) => runs.appendTraces(steps) });
  const screens = makeOutputScreens({ env, clock, secrets, writes });

  // Memory, then what a run needs (its context), then the driver that carries runs out.
  const memory = makeMemoryFeature({ host, messages, settings, screens, quota });
  const workTools = makeWorkTools({ host, settings });
  /** Runs `fn` once per key, across restarts (a plan step redone after an eviction). */
  const once = async (key: string, fn: () => Promise<unknown>): Promise<void> => {
    const done = `once:${key}`;
    if (storage.kv.get(done)) return;
    await fn();
    storage.kv.put(done, 1);
  };
  const plans = makePlanModels({
    script,
    append: (sessionId, message) => void messages.append(sessionId, message),
    remember: (content, key) => once(key, () => memory.create({ text: content, kind: "fact" })),
  });
  const contexts = makeRunContexts({
    host,
    outbound: shell.outbound,
    profiles,
    secrets,
    screens,
    quota,
    breakers,
    memory,
    mcp: shell.mcpServers,
    workTools,
    plans,
    events,
  });
  const runAlarms = makeRunAlarms(host.alarms);
  const driver = makeRunDriver({
    runs,
    messages,
    clock,
    buckets: makeBucketStore(db),
    writes,
    contexts,
    events,
    alarms: runAlarms,
    transaction,
  });

  // Delegation: the bus on the driver (and the driver's asks back through it), workflows on the bus.
  const bus = makeAgentBus({
    ...busPortsFromEnv(env, () => host.project()),
    host,
    runs,
    profiles,
    driver,
    sessions,
    screens,
    transaction,
  });
  driver.attachPeers(bus);
  const starts = makeRunStarts({
    clock,
    background: (work) => host.background(work),
    profiles,
    sessions,
    runs,
    sessionTools,
    contexts,
    driver,
    memory,
  });
  const workflows = makeWorkflows({
    db,
    clock,
    transaction,
    bus,
    starts,
    runs,
    background: (work) => host.background(work),
  });
  bus.takeAnswersWith((replyTo, reply) => workflows.take(replyTo, reply));
  const orchestration = makeOrchestration({ bus, workflows, profile: () => profiles.get() });

  // Behaviors start runs; a person's turn goes to a behavior first; gateways and tasks start turns.
  const behaviors = makeBehaviors({
    book: makeBehaviorBook(settings, clock),
    clock,
    alarms: host.alarms,
    script,
    agent: () => profiles.get().name,
    sessionId: (session) => sessions.resolve(session).id,
    runs: starts,
    goals: () => profiles.stored()?.goals ?? [],
    configurer: () => profiles.stored()?.configuredBy ?? unknownPrincipal,
    busy: () => driver.hasWorkInFlight(),
  });
  const turns = makeTurns({ clock, behaviors, starts, once: makeOnce({ runs, messages }) });
  const gateways = makeGateways({
    botToken: (name) => secrets.get(name, "telegram"),
    db,
    clock,
    env,
    sessions,
    agent: () => host.agentName(),
    runInfo: (runId) => runs.get(runId),
    // Whoever writes to the bot is an outsider (chat); an approver the operator named decides as `approve`.
    turn: (input) => turns.turn({ ...input, principal: gatewayPrincipal("telegram") }, () => {}),
    decide: (runId, decision) => driver.decide(runId, { ...decision, scope: "approve" }),
    pendingApprovals: () => driver.pendingApprovals(),
    waitUntil: (promise) => host.background(promise),
  });
  const work = makeWorkFeature({ host, tools: workTools, settings, runs, driver, sessions, turns });

  // Records of the agent: telemetry of its runs, its evals, its snapshots.
  const telemetry = makeTelemetry({
    db,
    storage,
    env,
    project: () => host.project(),
    agent: () => host.agentName(),
    runs,
    settings: async () => {
      const loading = secrets.ensure(telemetrySettings, "telemetry");
      if (loading) await loading;
      return secrets.values("telemetry");
    },
    redact: (value) => screens.redactor().redactDeep(value),
    retryIn: (seconds) => host.alarms.armOnce(seconds, "onTelemetryFlush"),
    background: (work) => host.background(work),
  });
  const evals = makeEvals({ storage, env, profile: () => profiles.get(), screens });
  const snapshots = makeSnapshots({ db, transaction, memory });

  const push = makePushNotices({
    enabled: () => Boolean((env as { PANTHEON_VAPID_KEY?: string }).PANTHEON_VAPID_KEY),
    project: () => host.project(),
    agent: () => host.agentName(),
    run: (runId) => driver.latest(runId),
    redact: (text) => screens.redactor().redact(text),
    liveTokens: shell.liveTokens,
    enqueue: async (job) => void (await env.PUSH.send(job, { contentType: "json" })),
    kv: storage.kv,
    background: (work) => host.background(work),
    notifies: (key) => behaviorsOf(script()).some((b) => b.key === key && b.behavior.notify === true),
    fetchAudience: () => registryStub(env, host.project()).pushAudience(),
  });

  // A server's question notifies who may answer it, and clears once it waits no more.
  shell.mcpServers.onQuestion((question, open) => push.mcpQuestion(question, open));
  // The features that react to runs, after the shell's own listener (live clients).
  events.listen((event, runId) => {
    push.onRunEvent(event, runId);
    gateways.onRunEvent(event, runId);
    work.onRunEvent(event, runId);
    if (event.type === "done") telemetry.runEnded(runId);
  });

  /** What the agent spent today against its caps (GET /api/agents, the doctor, the PWA); null before it is configured. */
  const spend = () => {
    const profile = profiles.stored();
    return profile ? quota.today(capsOf(limitsOf(profile.runtime.limits)), profile.projectQuota) : null;
  };
  /** Every run not finished: in memory (a starting run's record may not be written yet), created, or under way. */
  const unfinishedRuns = () => [
    ...new Set([...driver.liveRunIds(), ...runs.byStatus("idle").map((r) => r.id), ...runs.active().map((r) => r.id)]),
  ];
  /** Removes everything the agent remembers (its clients' access was ended first: live/incarnation.ts). */
  const wipe = async () => {
    const unindexCron = profiles.forget();
    quota.forget();
    secrets.invalidate();
    breakers.wipe();
    sessionTools.wipe();
    push.wipe();
    for (const table of [
      schema.trace,
      schema.runs,
      schema.messages,
      schema.sessions,
      schema.settings,
      schema.busInbox,
      schema.busOutbox,
      schema.busConversations,
      schema.busFanOuts,
      schema.workflowRuns,
      schema.gatewaySettings,
      schema.gatewayThreads,
    ])
      db.delete(table).run();
    settings.reset();
    await Promise.all([
      unindexCron(),
      shell.mcpServers.removeAll(),
      behaviors.reconcile(),
      memory.wipe(),
      evals.wipe(),
    ]);
  };
  return {
    sessions,
    messages,
    runs,
    settings,
    profiles,
    secrets,
    screens,
    memory,
    contexts,
    runAlarms,
    driver,
    bus,
    starts,
    workflows,
    orchestration,
    behaviors,
    turns,
    gateways,
    work,
    telemetry,
    evals,
    snapshots,
    push,
    unfinishedRuns,
    wipe,
    spend,
  };
}

export type AgentFeatures = ReturnType<typeof makeAgentFeatures>;

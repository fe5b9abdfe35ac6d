import type { RunPrincipal } from "../../../core/auth";
import { and, eq, inArray } from "drizzle-orm";
import type { RunEvent as CoreEvent } from "../../../core/run";
import { PantheonError } from "../../../core/errors";
import { makeDelivery } from "./delivery";
import { makeFanOuts, fanOutPrefix, type FanOutInput } from "./fanout";
import { fanOutReply, isFanOutCall, parseFanOutCall } from "./fanout-tool";
import { makeInbox } from "./inbox";
import { makeOutbox } from "./outbox";
import { makeBusLogBuffer } from "./log";
import { gatedKeep } from "../../../core/gates";
import { limitsOf } from "../../../core/run";
import { busAlarmsOf } from "./alarms";
import type { AnswerTaker, AskRequest, BusDeps } from "./ports";
import { isSpawnCall, makeSpawner } from "./spawn";
import { makeSupervisor, type ChildAlarm } from "./supervisor";
import * as schema from "../schema";

export { busPortsFromEnv, type AnswerTaker, type Applied, type AskRequest, type BusDeps, type BusPorts } from "./ports";

/**
 * The bus as one agent sees it: asks wait in the outbox until answered, timed out or abandoned
 * (outbox.ts) and leave straight to the target's object or through the queue (delivery.ts); this
 * module routes each ask (a fan-out, a spawn, a plain question) and each answer; delivered messages
 * are applied once and the run a request started answers when it ends (inbox.ts); the registry's log
 * is written in bursts (log.ts).
 * @example
 * const bus = makeAgentBus({ ...busPortsFromEnv(env, project), host, runs, profiles, driver, sessions, screens, transaction });
 * driver.attachPeers(bus); // a run asks through the bus; the bus delivers answers to the driver
 * await bus.receive(message); // from the queue consumer, at least once
 */
export function makeAgentBus(deps: BusDeps) {
  const { db, clock } = deps.host;
  const me = () => deps.profiles.get().name;
  const alarms = busAlarmsOf(deps.host.alarms);
  /** Whoever else asks through the bus (workflows/): `askFor`'s answers go there (takeAnswersWith). */
  let answerTaker: AnswerTaker | undefined;
  /** Why the output gates refuse `text` on a fan-out or a workflow's question, or null. */
  const screenOutput = (text: string, runId?: string): string | null => {
    const screen = deps.screens.screenFor(deps.profiles.get());
    let reason: string | null = null;
    gatedKeep("fanout", (sink, t, r) => (reason = screen(sink, t, r)), { text, ...(runId ? { runId } : {}) });
    return reason;
  };
  const trace = (runId: string, name: string, data: Record<string, unknown>) =>
    void deps.runs.appendTrace({ runId, kind: "message", name, data, startedAt: clock.now(), durationMs: 0 });
  const { record } = makeBusLogBuffer((entries) => deps.record(entries));
  const delivery = makeDelivery({
    db,
    clock,
    me,
    send: deps.send,
    ...(deps.deliverDirect ? { deliverDirect: deps.deliverDirect } : {}),
    record,
    retryLater: alarms.retryLater,
  });
  const { enqueue, flush } = delivery;
  /** Answers on their way out (a run ended; its reply is being queued and sent). */
  const answers = new Set<Promise<unknown>>();
  const later = (fn: () => unknown) =>
    void setTimeout(
      () =>
        void Promise.resolve()
          .then(fn)
          .catch((e: unknown) => console.error("bus", e)),
      0,
    );

  /** The conversation and depth of a run: inherited from the request that started it, else a new conversation. */
  function originOf(runId: string): { conversationId: string; depth: number } {
    const row = db
      .select()
      .from(schema.busInbox)
      .where(and(eq(schema.busInbox.runId, runId), eq(schema.busInbox.type, "request")))
      .get();
    return row ? { conversationId: row.conversationId, depth: row.depth } : { conversationId: runId, depth: 0 };
  }

  const outbox = makeOutbox({
    db,
    clock,
    project: () => deps.host.project(),
    profile: () => deps.profiles.get(),
    transaction: deps.transaction,
    ...(deps.deadlineMs !== undefined ? { deadlineMs: deps.deadlineMs } : {}),
    record,
    enqueue,
    flush,
    alarms: alarms.deadlines,
    trace,
    hand,
    later,
  });
  const { cancelAsks } = outbox;

  /** Hands an answer (or an error) to whoever waits: a run's tool call, or a fan-out. */
  function hand(
    replyTo: { runId: string; callId: string },
    from: string,
    reply: { answer?: string; error?: string },
  ): void {
    // A supervised child's answer goes through its supervisor (a failure may restart it instead).
    if (!replyTo.runId.startsWith(fanOutPrefix) && supervisor.onReply(replyTo, from, reply)) return;
    handOn(replyTo, from, reply);
  }

  function handOn(
    replyTo: { runId: string; callId: string },
    _from: string,
    reply: { answer?: string; error?: string },
  ): void {
    if (replyTo.runId.startsWith(fanOutPrefix))
      return void fanOuts
        .reply(replyTo.runId, replyTo.callId, reply)
        .catch((error: unknown) => console.error("bus fan-out", error));
    if (answerTaker?.(replyTo, reply)) return;
    const event: CoreEvent =
      reply.error !== undefined
        ? { type: "agent_response", callId: replyTo.callId, error: reply.error }
        : { type: "agent_response", callId: replyTo.callId, answer: reply.answer ?? "" };
    // Not awaited: the answer is persisted synchronously by the run loop; the model call that may follow can take long.
    void deps.driver.deliver(replyTo.runId, event).catch((error: unknown) => console.error("bus deliver", error));
  }

  const fanOuts = makeFanOuts({
    db,
    clock,
    transaction: deps.transaction,
    send: async (group, key, target, question, origin, principal) => {
      const sent = await outbox.send({
        replyTo: { runId: group, callId: key },
        target,
        question,
        origin,
        ...(principal ? { principal } : {}),
      });
      if (sent.refused) later(() => fanOuts.reply(group, key, { error: sent.refused!.error }));
    },
    cancelOpen: (group, reason) => cancelAsks(group, reason),
    screen: screenOutput,
    trace,
    hand: (replyTo, result) => hand(replyTo, "agent.fanout", fanOutReply(result)),
  });

  const spawner = makeSpawner({
    profile: () => deps.profiles.get(),
    project: () => deps.host.project(),
    spawnChild: deps.spawnChild,
    configure: (profile) => (profile.name === me() ? deps.host.configure(profile) : deps.configureAgent(profile)),
  });

  const supervisor = makeSupervisor({
    kv: deps.host.storage.kv,
    clock,
    trace,
    hand: handOn,
    ask: async (child) => {
      const sent = await outbox.send({
        replyTo: { runId: child.runId, callId: child.callId },
        target: child.child,
        question: child.goal,
        origin: originOf(child.runId),
        ...(child.principal ? { principal: child.principal } : {}),
      });
      if (sent.refused)
        later(() => hand({ runId: child.runId, callId: child.callId }, child.child, { error: sent.refused!.error }));
    },
    arm: alarms.armChildAlarm,
    archive: async (child) => {
      const archived = await deps.archiveChild(me(), child);
      if (!archived.ok) throw new Error(archived.message);
      await deps.configureAgent(archived.value.child);
      await deps.host.configure(archived.value.parent);
    },
    waiting: (runId) => deps.runs.get(runId)?.status === "waiting_agent",
    abandon: (runId, callId, reason) => cancelAsks(runId, reason, callId),
  });

  async function ask(request: AskRequest): Promise<void> {
    // Asked again when a run is carried on after a restart: one request per call, ever. If its
    // answer came while the run could not take it, the run gets that same answer now.
    if (outbox.askedBefore(request)) return;
    let target = request.target;
    let question = request.question;
    if (isFanOutCall(target)) {
      const parsed = parseFanOutCall(question);
      if (!parsed.ok) return later(() => hand(request, target, { error: `agent.fanout: ${parsed.error}` }));
      // One fan-out per call, ever: the id comes from the call, so a run carried on after an eviction waits on the same one.
      const id = `${request.runId}.${request.callId}`.replace(/[^\w.:-]/g, "_").slice(0, 128);
      await fanOuts.start(
        { ...parsed.spec, id, ...(request.principal ? { principal: request.principal } : {}) },
        originOf(request.runId),
        { runId: request.runId, callId: request.callId },
      );
      return;
    }
    if (isSpawnCall(target)) {
      const spawned = await spawner.spawn(question, request.principal);
      if (!spawned.ok) {
        trace(request.runId, "bus_refused", {
          callId: request.callId,
          target,
          code: "spawn_failed",
          error: spawned.error,
        });
        return later(() => hand(request, target, { error: `spawn failed: ${spawned.error}` }));
      }
      trace(request.runId, "bus_spawned", { callId: request.callId, child: spawned.child });
      target = spawned.child;
      question = spawned.goal;
      await supervisor.watch({
        runId: request.runId,
        callId: request.callId,
        child: spawned.child,
        goal: spawned.goal,
        policy: spawned.supervise,
        failures: 0,
        spawnedAt: clock.now(),
        ...(request.principal ? { principal: request.principal } : {}),
      });
    }
    const sent = await outbox.send({
      replyTo: { runId: request.runId, callId: request.callId },
      target,
      question,
      origin: originOf(request.runId),
      ...(request.principal ? { principal: request.principal } : {}),
    });
    if (sent.refused) {
      trace(request.runId, "bus_refused", {
        callId: request.callId,
        target,
        messageId: sent.request.id,
        code: sent.refused.code,
        error: sent.refused.error,
      });
      return later(() => hand(request, target, { error: sent.refused!.error }));
    }
    trace(request.runId, "bus_sent", {
      callId: request.callId,
      target,
      messageId: sent.request.id,
      conversationId: sent.request.conversationId,
      depth: sent.request.depth,
      deadlineAt: sent.request.deadlineAt,
      scope: sent.request.payload.scope ?? null,
    });
  }

  /**
   * Cancels a run and, down its delegation chain, the runs it asked other agents for: every way a run
   * is cancelled (the API, a protocol, a chat's Ctrl-C, its asker's cancel) comes here.
   */
  async function cancelRun(runId: string, by: string) {
    const state = await deps.driver.cancel(runId, by);
    await cancelAsks(runId, `run ${runId} of '${me()}' was cancelled by ${by}`);
    return state;
  }

  const inbox = makeInbox({
    db,
    clock,
    runs: deps.runs,
    profile: () => deps.profiles.get(),
    admit: deps.admit,
    createRun: (input) =>
      deps.driver.create({ ...input, agent: me(), limits: limitsOf(deps.profiles.get().runtime.limits) }),
    startRun: (runId) => deps.driver.startCreated(runId),
    cancelRun,
    createSession: (title) => deps.sessions.create(title).id,
    transaction: deps.transaction,
    record,
    enqueue,
    flush,
    settle: outbox.settle,
    hand,
  });
  const answerRun = inbox.answerRun;

  return {
    ask,

    /** Applies a message delivered straight or by the queue consumer, at least once; a repeated id is ignored. */
    receive: inbox.receive,

    /** A run started by a request has ended (core `answer_peer`): its answer goes back, once. */
    answer(runId: string, status: string): void {
      const answering = answerRun(runId, status)
        .catch((error: unknown) => console.error("bus answer", error))
        .finally(() => answers.delete(answering));
      answers.add(answering);
    },

    /** Settles when the answers being sent and the flush in progress have settled (an alarm waits for them). */
    async idle(): Promise<void> {
      await Promise.all([...answers, delivery.inFlight() ?? Promise.resolve()]);
    },

    cancelAsks,
    cancelRun,

    /** Answers to questions asked for something that is not a run (`askFor`: a workflow step) go to `take`: set once, when the agent is built. */
    takeAnswersWith(take: AnswerTaker): void {
      answerTaker = take;
    },

    /** Sends what the queue has not taken yet (on start, and on the retry alarm). */
    flush,

    /** On start: asks whoever an eviction kept a fan-out from asking, then sends what is queued. */
    async recover(): Promise<void> {
      // Runs that ended before their answer was queued (an eviction between the two) answer now.
      const unanswered = db
        .select({ runId: schema.busInbox.runId, status: schema.runs.status })
        .from(schema.busInbox)
        .innerJoin(schema.runs, eq(schema.runs.id, schema.busInbox.runId))
        .where(
          and(
            eq(schema.busInbox.status, "applied"),
            eq(schema.busInbox.type, "request"),
            inArray(schema.runs.status, ["completed", "failed", "cancelled"]),
          ),
        )
        .all();
      for (const row of unanswered) await answerRun(row.runId!, row.status);
      await outbox.cancelAbandoned();
      await fanOuts.recover();
      await supervisor.recover();
      await flush();
    },

    /** The deadline alarm fired (`onBusDeadline`): requests past their deadline get a timeout error unless an answer came first. */
    onDeadline: outbox.onDeadline,

    /**
     * Asks several connections at once and combines their answers under a policy (core/bus/policies):
     * resolves once the questions are sent, with the group and the decision to come. `replyTo`: a
     * workflow step handed the decision even after an eviction.
     */
    startFanOut(input: FanOutInput & { runId?: string }, replyTo?: { runId: string; callId: string }) {
      if (input.id !== undefined && !/^[\w.:-]{1,128}$/.test(input.id)) {
        throw new PantheonError("validation_failed", "fan-out id: 1 to 128 letters, digits, '_', '.', ':' or '-'", {
          details: { issues: [{ path: ["id"], message: "1 to 128 of [A-Za-z0-9_.:-]" }] },
        });
      }
      const { runId, ...spec } = input;
      return fanOuts.start(spec, runId ? originOf(runId) : undefined, replyTo);
    },

    /** A fan-out as the API shows it, by the caller's id. */
    fanOutView(id: string) {
      return fanOuts.view(id);
    },

    /** Sends one question on behalf of something that is not a run (a workflow step); its answer reaches the answer taker (takeAnswersWith). */
    async askFor(
      replyTo: { runId: string; callId: string },
      target: string,
      question: string,
      principal?: RunPrincipal,
    ): Promise<void> {
      if (outbox.askedBefore(replyTo)) return;
      const refused = screenOutput(question);
      if (refused !== null)
        return later(() =>
          hand(replyTo, target, { error: `the question was refused by the output gates: ${refused}` }),
        );
      const sent = await outbox.send({
        replyTo,
        target,
        question,
        origin: { conversationId: replyTo.runId, depth: 0 },
        ...(principal ? { principal } : {}),
      });
      if (sent.refused) later(() => hand(replyTo, target, { error: sent.refused!.error }));
    },

    /** Fan-outs not decided yet (the watchdog stays armed while there are any). */
    fanOutsWaiting(): number {
      return fanOuts.waiting();
    },

    /** The supervisor's alarm (`onChildAlarm`): a supervised child's restart is due, or its time to live ended. */
    onChildAlarm: (alarm: ChildAlarm): Promise<void> => supervisor.onAlarm(alarm),

    /** Requests this agent still waits on. */
    pending: outbox.pending,
  };
}

export type AgentBus = ReturnType<typeof makeAgentBus>;

import type { RunPrincipal } from "../../../core/auth";
import { and, eq, inArray } from "drizzle-orm";
import { checkRequest, defaultDeadlineMs, makeCancel, makeRequest, type BusErrorCode, type BusRequest } from "../../../core/bus";
import type { RunEvent as CoreEvent } from "../../../core/run";
import { PantheonError } from "../../../core/errors";
import { makeDeadlines } from "./deadlines";
import { makeDelivery } from "./delivery";
import { makeFanOuts, fanOutPrefix, type FanOutInput } from "./fanout";
import { fanOutReply, isFanOutCall, parseFanOutCall } from "./fanout-tool";
import { makeInbox } from "./inbox";
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
 * The bus as one agent sees it: asks leave with a deadline, straight to the target's object or
 * through the queue (delivery.ts); delivered messages are applied once and the run a request
 * started answers when it ends (inbox.ts); the registry's log is written in bursts (log.ts).
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
  const delivery = makeDelivery({ db, clock, me, send: deps.send, ...(deps.deliverDirect ? { deliverDirect: deps.deliverDirect } : {}), record, retryLater: alarms.retryLater });
  const { enqueue, flush } = delivery;
  /** Answers on their way out (a run ended; its reply is being queued and sent). */
  const answers = new Set<Promise<unknown>>();
  const later = (fn: () => unknown) => void setTimeout(() => void Promise.resolve().then(fn).catch((e: unknown) => console.error("bus", e)), 0);

  /** The conversation and depth of a run: inherited from the request that started it, else a new conversation. */
  function originOf(runId: string): { conversationId: string; depth: number } {
    const row = db.select().from(schema.busInbox).where(and(eq(schema.busInbox.runId, runId), eq(schema.busInbox.type, "request"))).get();
    return row ? { conversationId: row.conversationId, depth: row.depth } : { conversationId: runId, depth: 0 };
  }

  /** Refuses (error to the caller) or sends one request; `replyTo.runId` is a run or a fan-out. */
  async function sendRequest(input: { replyTo: { runId: string; callId: string }; target: string; question: string; origin: { conversationId: string; depth: number }; principal?: RunPrincipal }): Promise<{ refused?: { code: BusErrorCode; error: string }; request: BusRequest }> {
    const profile = deps.profiles.get();
    const now = clock.now();
    const request = makeRequest({
      id: crypto.randomUUID(),
      project: deps.host.project(),
      from: profile.name,
      to: input.target,
      question: input.question,
      replyTo: input.replyTo,
      conversationId: input.origin.conversationId,
      depth: input.origin.depth + 1,
      now,
      deadlineMs: deps.deadlineMs ?? defaultDeadlineMs,
      ...(input.principal ? { principal: input.principal } : {}),
    });
    const refused = checkRequest({ from: profile.name, to: input.target, connections: profile.connections, depth: request.depth, deadlineAt: request.deadlineAt, now });
    if (refused) {
      await record([{ message: request, state: "refused", note: refused.error }]);
      return { refused, request };
    }
    // The wait and the message are written together: both or neither survive an eviction.
    deps.transaction(() => {
      db.insert(schema.busOutbox)
        .values({ id: request.id, runId: input.replyTo.runId, callId: input.replyTo.callId, target: input.target, conversationId: request.conversationId, depth: request.depth, deadlineAt: request.deadlineAt, status: "pending", createdAt: now })
        .run();
      enqueue(request);
    });
    await deadlines.arm(request.deadlineAt, request.id);
    await record([{ message: request, state: "sent" }]);
    await flush();
    return { request };
  }

  function settle(requestId: string, status: "answered" | "failed" | "timeout" | "abandoned", reply?: { answer?: string; error?: string }): typeof schema.busOutbox.$inferSelect | undefined {
    return db
      .update(schema.busOutbox)
      .set({ status, settledAt: clock.now(), ...(reply ? { reply } : {}) })
      .where(and(eq(schema.busOutbox.id, requestId), eq(schema.busOutbox.status, "pending")))
      .returning()
      .get();
  }

  /** Hands an answer (or an error) to whoever waits: a run's tool call, or a fan-out. */
  function hand(replyTo: { runId: string; callId: string }, from: string, reply: { answer?: string; error?: string }): void {
    // A supervised child's answer goes through its supervisor (a failure may restart it instead).
    if (!replyTo.runId.startsWith(fanOutPrefix) && supervisor.onReply(replyTo, from, reply)) return;
    handOn(replyTo, from, reply);
  }

  function handOn(replyTo: { runId: string; callId: string }, _from: string, reply: { answer?: string; error?: string }): void {
    if (replyTo.runId.startsWith(fanOutPrefix)) return void fanOuts.reply(replyTo.runId, replyTo.callId, reply).catch((error: unknown) => console.error("bus fan-out", error));
    if (answerTaker?.(replyTo, reply)) return;
    const event: CoreEvent = reply.error !== undefined ? { type: "agent_response", callId: replyTo.callId, error: reply.error } : { type: "agent_response", callId: replyTo.callId, answer: reply.answer ?? "" };
    // Not awaited: the answer is persisted synchronously by the run loop; the model call that may follow can take long.
    void deps.driver.deliver(replyTo.runId, event).catch((error: unknown) => console.error("bus deliver", error));
  }

  const fanOuts = makeFanOuts({
    db,
    clock,
    transaction: deps.transaction,
    send: async (group, key, target, question, origin, principal) => {
      const sent = await sendRequest({ replyTo: { runId: group, callId: key }, target, question, origin, ...(principal ? { principal } : {}) });
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
      const sent = await sendRequest({ replyTo: { runId: child.runId, callId: child.callId }, target: child.child, question: child.goal, origin: originOf(child.runId), ...(child.principal ? { principal: child.principal } : {}) });
      if (sent.refused) later(() => hand({ runId: child.runId, callId: child.callId }, child.child, { error: sent.refused!.error }));
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
    const earlier = db.select().from(schema.busOutbox).where(and(eq(schema.busOutbox.runId, request.runId), eq(schema.busOutbox.callId, request.callId))).get();
    if (earlier) {
      const reply = earlier.reply as { answer?: string; error?: string } | null;
      if (earlier.status !== "pending" && reply) later(() => hand(request, earlier.target, reply));
      return;
    }
    let target = request.target;
    let question = request.question;
    if (isFanOutCall(target)) {
      const parsed = parseFanOutCall(question);
      if (!parsed.ok) return later(() => hand(request, target, { error: `agent.fanout: ${parsed.error}` }));
      // One fan-out per call, ever: the id comes from the call, so a run carried on after an eviction waits on the same one.
      const id = `${request.runId}.${request.callId}`.replace(/[^\w.:-]/g, "_").slice(0, 128);
      await fanOuts.start({ ...parsed.spec, id, ...(request.principal ? { principal: request.principal } : {}) }, originOf(request.runId), { runId: request.runId, callId: request.callId });
      return;
    }
    if (isSpawnCall(target)) {
      const spawned = await spawner.spawn(question, request.principal);
      if (!spawned.ok) {
        trace(request.runId, "bus_refused", { callId: request.callId, target, code: "spawn_failed", error: spawned.error });
        return later(() => hand(request, target, { error: `spawn failed: ${spawned.error}` }));
      }
      trace(request.runId, "bus_spawned", { callId: request.callId, child: spawned.child });
      target = spawned.child;
      question = spawned.goal;
      await supervisor.watch({ runId: request.runId, callId: request.callId, child: spawned.child, goal: spawned.goal, policy: spawned.supervise, failures: 0, spawnedAt: clock.now(), ...(request.principal ? { principal: request.principal } : {}) });
    }
    const sent = await sendRequest({ replyTo: { runId: request.runId, callId: request.callId }, target, question, origin: originOf(request.runId), ...(request.principal ? { principal: request.principal } : {}) });
    if (sent.refused) {
      trace(request.runId, "bus_refused", { callId: request.callId, target, messageId: sent.request.id, code: sent.refused.code, error: sent.refused.error });
      return later(() => hand(request, target, { error: sent.refused!.error }));
    }
    trace(request.runId, "bus_sent", { callId: request.callId, target, messageId: sent.request.id, conversationId: sent.request.conversationId, depth: sent.request.depth, deadlineAt: sent.request.deadlineAt, scope: sent.request.payload.scope ?? null });
  }

  /** A request past its deadline: the asker gets a timeout error unless an answer came first. */
  async function timeOut(messageId: string): Promise<boolean> {
    const waitedFor = db.select().from(schema.busOutbox).where(eq(schema.busOutbox.id, messageId)).get();
    const timeoutError = waitedFor ? `agent '${waitedFor.target}' did not answer within ${Math.round((waitedFor.deadlineAt - waitedFor.createdAt) / 1000)} s (waited ${Math.round((clock.now() - waitedFor.createdAt) / 1000)} s)` : "";
    const row = settle(messageId, "timeout", { error: timeoutError });
    if (!row) return false;
    const waited = Math.round((clock.now() - row.createdAt) / 1000);
    const error = `agent '${row.target}' did not answer within ${Math.round((row.deadlineAt - row.createdAt) / 1000)} s (waited ${waited} s)`;
    if (!row.runId.startsWith(fanOutPrefix)) trace(row.runId, "bus_timeout", { callId: row.callId, target: row.target, messageId, error });
    const request = makeRequest({ id: row.id, project: deps.host.project(), from: me(), to: row.target, question: "(timed out)", replyTo: { runId: row.runId, callId: row.callId }, conversationId: row.conversationId, depth: row.depth, now: row.createdAt, deadlineMs: row.deadlineAt - row.createdAt });
    await record([{ message: request, state: "timeout", note: error }]);
    hand({ runId: row.runId, callId: row.callId }, row.target, { error });
    return true;
  }
  const deadlines = makeDeadlines({ db, clock, alarms: alarms.deadlines, timeOut });

  /**
   * A run was cancelled (or, with `callId`, one of its calls was given up): every question it still waits on is given up (settled `abandoned`) and a
   * cancel goes to each agent asked, in the same transaction, through the send queue (retried until
   * delivered, like any message); each of them cancels the run it started, and so on down the chain.
   */
  async function cancelAsks(runId: string, reason: string, callId?: string): Promise<number> {
    const waiting = db.select().from(schema.busOutbox).where(and(eq(schema.busOutbox.runId, runId), eq(schema.busOutbox.status, "pending"), ...(callId ? [eq(schema.busOutbox.callId, callId)] : []))).all();
    if (!waiting.length) return 0;
    const now = clock.now();
    const sent = deps.transaction(() =>
      waiting.flatMap((row) => {
        if (!settle(row.id, "abandoned", { error: reason })) return [];
        const cancel = makeCancel({ requestId: row.id, project: deps.host.project(), from: me(), to: row.target, replyTo: { runId: row.runId, callId: row.callId }, conversationId: row.conversationId, depth: row.depth, deadlineAt: row.deadlineAt, reason, now });
        enqueue(cancel);
        return [cancel];
      }),
    );
    for (const cancel of sent) trace(runId, "bus_cancel_sent", { callId: cancel.replyTo.callId, target: cancel.to, messageId: cancel.id });
    await record(sent.map((message) => ({ message, state: "sent" as const })));
    await flush();
    return sent.length;
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
    createRun: (input) => deps.driver.create({ ...input, agent: me(), limits: limitsOf(deps.profiles.get().runtime.limits) }),
    startRun: (runId) => deps.driver.startCreated(runId),
    cancelRun,
    createSession: (title) => deps.sessions.create(title).id,
    transaction: deps.transaction,
    record,
    enqueue,
    flush,
    settle,
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
        .where(and(eq(schema.busInbox.status, "applied"), eq(schema.busInbox.type, "request"), inArray(schema.runs.status, ["completed", "failed", "cancelled"])))
        .all();
      for (const row of unanswered) await answerRun(row.runId!, row.status);
      // Runs cancelled before their cancels were queued (an eviction between the two) send them now.
      const abandoned = db
        .selectDistinct({ runId: schema.busOutbox.runId })
        .from(schema.busOutbox)
        .innerJoin(schema.runs, eq(schema.runs.id, schema.busOutbox.runId))
        .where(and(eq(schema.busOutbox.status, "pending"), eq(schema.runs.status, "cancelled")))
        .all();
      for (const row of abandoned) await cancelAsks(row.runId, `run ${row.runId} of '${me()}' was cancelled`);
      await fanOuts.recover();
      await supervisor.recover();
      await flush();
    },

    /** The deadline alarm fired (`onBusDeadline`): requests past their deadline get a timeout error unless an answer came first. */
    onDeadline: (messageId: string): Promise<boolean> => deadlines.fired(messageId),

    /**
     * Asks several connections at once and combines their answers under a policy (core/bus/policies):
     * resolves once the questions are sent, with the group and the decision to come. `replyTo`: a
     * workflow step handed the decision even after an eviction.
     */
    startFanOut(input: FanOutInput & { runId?: string }, replyTo?: { runId: string; callId: string }) {
      if (input.id !== undefined && !/^[\w.:-]{1,128}$/.test(input.id)) {
        throw new PantheonError("validation_failed", "fan-out id: 1 to 128 letters, digits, '_', '.', ':' or '-'", { details: { issues: [{ path: ["id"], message: "1 to 128 of [A-Za-z0-9_.:-]" }] } });
      }
      const { runId, ...spec } = input;
      return fanOuts.start(spec, runId ? originOf(runId) : undefined, replyTo);
    },

    /** A fan-out as the API shows it, by the caller's id. */
    fanOutView(id: string) {
      return fanOuts.view(id);
    },

    /** Sends one question on behalf of something that is not a run (a workflow step); its answer reaches the answer taker (takeAnswersWith). */
    async askFor(replyTo: { runId: string; callId: string }, target: string, question: string, principal?: RunPrincipal): Promise<void> {
      const earlier = db.select().from(schema.busOutbox).where(and(eq(schema.busOutbox.runId, replyTo.runId), eq(schema.busOutbox.callId, replyTo.callId))).get();
      if (earlier) {
        const reply = earlier.reply as { answer?: string; error?: string } | null;
        if (earlier.status !== "pending" && reply) later(() => hand(replyTo, earlier.target, reply));
        return;
      }
      const refused = screenOutput(question);
      if (refused !== null) return later(() => hand(replyTo, target, { error: `the question was refused by the output gates: ${refused}` }));
      const sent = await sendRequest({ replyTo, target, question, origin: { conversationId: replyTo.runId, depth: 0 }, ...(principal ? { principal } : {}) });
      if (sent.refused) later(() => hand(replyTo, target, { error: sent.refused!.error }));
    },

    /** Fan-outs not decided yet (the watchdog stays armed while there are any). */
    fanOutsWaiting(): number {
      return fanOuts.waiting();
    },

    /** The supervisor's alarm (`onChildAlarm`): a supervised child's restart is due, or its time to live ended. */
    onChildAlarm: (alarm: ChildAlarm): Promise<void> => supervisor.onAlarm(alarm),

    /** Requests this agent still waits on. */
    pending(): number {
      return db.select().from(schema.busOutbox).where(eq(schema.busOutbox.status, "pending")).all().length;
    },
  };
}

export type AgentBus = ReturnType<typeof makeAgentBus>;

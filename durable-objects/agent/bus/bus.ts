import { and, eq, inArray } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { AgentProfile } from "../../../core/agents";
import {
  checkRequest,
  defaultDeadlineMs,
  makeErrorReply,
  makeRequest,
  makeResponse,
  parseBusMessage,
  requestIdOfReply,
  type BusErrorCode,
  type BusMessage,
  type BusReply,
  type BusRequest,
  type Refusal,
} from "../../../core/bus";
import type { Clock } from "../../../core/ports";
import type { RunEvent as CoreEvent, RunOrigin } from "../../../core/run";
import { PantheonError, type Result } from "../../../core/errors";
import { agentStub, registryStub } from "../../stubs";
import type { BusLogEntry } from "../../registry/bus-log";
import { makeFanOuts, fanOutPrefix, type FanOutInput } from "./fanout";
import { isSpawnCall, makeSpawner, type SpawnDeps } from "./spawn";
import type { RunStore } from "../runs/store";
import * as schema from "../schema";

type Db = DrizzleSqliteDODatabase<typeof schema>;

export interface AskRequest {
  runId: string;
  callId: string;
  target: string;
  question: string;
}

/** What applying one delivered message did. */
export interface Applied {
  applied: boolean;
  /** Requests: the run started for it. */
  runId?: string;
  /** Why nothing was applied (a repeat, a late answer). */
  reason?: string;
}

/** Where the bus reaches outside the object: the queue, the registry, other agents. */
export interface BusPorts {
  /** Puts a message on the queue (`env.BUS.send`). */
  send(message: BusMessage): Promise<void>;
  /**
   * Hands a message straight to its target's Durable Object (`busReceive`), skipping the queue's two
   * hops. Anything but a clean answer (an error, a refusal, an agent that does not exist) sends the
   * message through the queue instead, whose consumer retries, dead-letters and answers errors.
   */
  deliverDirect?(message: BusMessage): Promise<Result<Applied>>;
  /** Records in the registry's bus log (the bus batches entries: one call per burst, never awaited by a message). */
  record(entries: BusLogEntry[]): Promise<void>;
  /**
   * The registry's admission of a request (the truth about connections; records `delivered` or the
   * refusal), asked only when this agent's own `askedBy` does not already admit the asker.
   */
  admit(message: BusRequest): Promise<Refusal | undefined>;
  spawnChild: SpawnDeps["spawnChild"];
  /** Pushes a profile to another agent's Durable Object. */
  configureAgent(profile: AgentProfile): Promise<void>;
}

/**
 * The real ports: Cloudflare Queues and the project's registry.
 * @example
 * makeAgentBus({ ...busPortsFromEnv(env, () => project), db, clock, ... });
 */
export function busPortsFromEnv(env: Env, project: () => string): BusPorts {
  return {
    send: async (message) => void (await env.BUS.send(message, { contentType: "json" })),
    deliverDirect: async (message) => (await agentStub(env, project(), message.to)).busReceive(message),
    record: (entries) => registryStub(env, project()).busRecord(entries),
    admit: (message) => registryStub(env, project()).busAdmit(message),
    spawnChild: (parent, scriptSource) => registryStub(env, project()).spawnChild(parent, scriptSource),
    configureAgent: async (profile) => void (await (await agentStub(env, project(), profile.name)).configure(profile)),
  };
}

export interface BusDeps extends BusPorts {
  db: Db;
  clock: Clock;
  runs: RunStore;
  project: () => string;
  profile: () => AgentProfile;
  deliver(runId: string, event: CoreEvent): Promise<unknown>;
  /** Writes a run's record and its request (no transaction of its own: the bus holds one). */
  createRun(input: { runId: string; sessionId: string; origin: RunOrigin }): unknown;
  /** Drives a run created by `createRun`. */
  startRun(runId: string): Promise<unknown>;
  /** One SQLite transaction. */
  transaction<T>(fn: () => T): T;
  /** Re-sends what the queue has not taken yet, after `seconds` (an alarm; idempotent). */
  retryLater(seconds: number): Promise<unknown>;
  createSession(title: string): string;
  /** The request's deadline alarm (agents SDK `schedule`), keyed by message id. */
  deadlines: { arm(at: number, messageId: string): Promise<unknown>; disarm(messageId: string): Promise<unknown> };
  /** This agent's own profile changed (spawn added a connection). */
  configureSelf(profile: AgentProfile): Promise<void>;
  /** How long an asker waits for an answer; default 2 minutes. */
  deadlineMs?: number;
}

/**
 * The bus as one agent sees it: asks leave through the queue with a deadline, delivered messages
 * are applied once (inbox of ids), the run a request started answers when it ends.
 * @example
 * const bus = makeAgentBus({ db, clock, runs, send: (m) => env.BUS.send(m), ... });
 * driverDeps.askAgent = (request) => bus.ask(request);
 * await bus.receive(message); // from the queue consumer, at least once
 */
export function makeAgentBus(deps: BusDeps) {
  const { db, clock } = deps;
  const me = () => deps.profile().name;
  const trace = (runId: string, name: string, data: Record<string, unknown>) =>
    void deps.runs.appendTrace({ runId, kind: "message", name, data, startedAt: clock.now(), durationMs: 0 });
  /**
   * Log entries wait here for one registry call per burst (the messages of one tick): no message waits
   * on the log. An eviction in that tick can lose entries; the log moves forward only (a later state
   * of the same message still lands), and the runs, inbox and outbox are the record that counts.
   */
  const logBuffer: BusLogEntry[] = [];
  let logFlush: Promise<void> | null = null;
  const record = (entries: BusLogEntry[]): Promise<void> => {
    logBuffer.push(...entries);
    logFlush ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => deps.record(logBuffer.splice(0)))
      .catch((error: unknown) => console.warn("bus log", error))
      .finally(() => (logFlush = null));
    return Promise.resolve();
  };
  const later = (fn: () => unknown) => void setTimeout(() => void Promise.resolve().then(fn).catch((e: unknown) => console.error("bus", e)), 0);

  /** The conversation and depth of a run: inherited from the request that started it, else a new conversation. */
  function originOf(runId: string): { conversationId: string; depth: number } {
    const row = db.select().from(schema.busInbox).where(and(eq(schema.busInbox.runId, runId), eq(schema.busInbox.type, "request"))).get();
    return row ? { conversationId: row.conversationId, depth: row.depth } : { conversationId: runId, depth: 0 };
  }

  /** Refuses (error to the caller) or sends one request; `replyTo.runId` is a run or a fan-out. */
  async function sendRequest(input: { replyTo: { runId: string; callId: string }; target: string; question: string; origin: { conversationId: string; depth: number } }): Promise<{ refused?: { code: BusErrorCode; error: string }; request: BusRequest }> {
    const profile = deps.profile();
    const now = clock.now();
    const request = makeRequest({
      id: crypto.randomUUID(),
      project: deps.project(),
      from: profile.name,
      to: input.target,
      question: input.question,
      replyTo: input.replyTo,
      conversationId: input.origin.conversationId,
      depth: input.origin.depth + 1,
      now,
      deadlineMs: deps.deadlineMs ?? defaultDeadlineMs,
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
    await deps.deadlines.arm(request.deadlineAt, request.id);
    await record([{ message: request, state: "sent" }]);
    await flush();
    return { request };
  }

  /** Puts a message in the send queue (inside the caller's transaction). */
  function enqueue(message: BusMessage): void {
    db.insert(schema.busSendQueue).values({ id: message.id, message, createdAt: clock.now() }).onConflictDoNothing().run();
  }

  let flushing: Promise<void> | null = null;
  let flushStartedAt = 0;
  /** Answers on their way out (a run ended; its reply is being queued and sent). */
  const answers = new Set<Promise<unknown>>();
  /**
   * Sends every queued message; each leaves the send queue only once the queue has taken it. A
   * message the queue refuses (or that gets no answer) stays, and is sent again on a backoff alarm
   * and on every start (a send cut off by an eviction is sent again when the agent next wakes).
   */
  async function withinTenSeconds<T>(work: Promise<T>, error: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(error)), 10_000)))]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The fast path: the target applies the message now (its inbox makes a repeat harmless, so a
   * message also sent through the queue later is applied once). False: it goes through the queue.
   */
  async function deliveredDirectly(message: BusMessage): Promise<boolean> {
    if (!deps.deliverDirect || message.to === me()) return false;
    try {
      const result = await withinTenSeconds(deps.deliverDirect(message), "the target did not answer within 10 s");
      if (!result.ok) return false;
      if (result.value.applied) void record([{ message, state: "applied", ...(result.value.runId ? { runId: result.value.runId, runStatus: "running" } : {}) }]);
      return true;
    } catch {
      return false;
    }
  }

  /** A message was queued while a flush was under way: that flush goes round once more before it settles. */
  let queuedMeanwhile = false;
  function flush(): Promise<void> {
    // A flush that has not settled in 15 s (a send whose invocation went away) does not block the next.
    if (flushing && clock.now() - flushStartedAt > 15_000) flushing = null;
    if (flushing) {
      // Its pass read the send queue before this message was in it: without another pass the message
      // would wait for the next flush (another message, the retry alarm or a restart).
      queuedMeanwhile = true;
      return flushing;
    }
    flushStartedAt = clock.now();
    // `.finally` runs as a later microtask, after `flushing` holds this very promise.
    const run: Promise<void> = (async () => {
      try {
        let failed = 0;
        do {
          queuedMeanwhile = false;
          for (const row of db.select().from(schema.busSendQueue).orderBy(schema.busSendQueue.createdAt).all()) {
            let message: BusMessage;
            try {
              message = parseBusMessage(row.message);
            } catch (error) {
              // Never sendable: dropped (and said so) rather than retried for ever.
              db.delete(schema.busSendQueue).where(eq(schema.busSendQueue.id, row.id)).run();
              console.error(JSON.stringify({ level: "error", message: "bus: dropped a queued message that is not a bus message", id: row.id, error: error instanceof Error ? error.message : String(error) }));
              continue;
            }
            try {
              if (!(await deliveredDirectly(message))) await withinTenSeconds(deps.send(message), "the queue did not answer within 10 s");
              db.delete(schema.busSendQueue).where(eq(schema.busSendQueue.id, row.id)).run();
            } catch (error) {
              failed = Math.max(failed, row.attempts + 1);
              const message = error instanceof Error ? error.message : String(error);
              db.update(schema.busSendQueue).set({ attempts: row.attempts + 1, lastError: message.slice(0, 500) }).where(eq(schema.busSendQueue.id, row.id)).run();
              console.warn(JSON.stringify({ level: "warn", message: "bus: the queue did not take a message; it is sent again later", id: row.id, attempt: row.attempts + 1, error: message }));
            }
          }
        } while (queuedMeanwhile && failed === 0);
        if (failed > 0) await deps.retryLater(Math.min(60, 2 ** Math.min(failed, 6)));
      } catch (error) {
        console.error(JSON.stringify({ level: "error", message: "bus: flush failed", error: error instanceof Error ? error.message : String(error) }));
      }
    })().finally(() => {
      if (flushing === run) flushing = null;
    });
    flushing = run;
    return run;
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
    if (replyTo.runId.startsWith(fanOutPrefix)) return void fanOuts.reply(replyTo.runId, replyTo.callId, from, reply).catch((error: unknown) => console.error("bus fan-out", error));
    const event: CoreEvent = reply.error !== undefined ? { type: "agent_response", callId: replyTo.callId, error: reply.error } : { type: "agent_response", callId: replyTo.callId, answer: reply.answer ?? "" };
    // Not awaited: the answer is persisted synchronously by the run loop; the model call that may follow can take long.
    void deps.deliver(replyTo.runId, event).catch((error: unknown) => console.error("bus deliver", error));
  }

  const fanOuts = makeFanOuts({
    db,
    clock,
    transaction: deps.transaction,
    send: async (group, target, question, origin) => {
      const sent = await sendRequest({ replyTo: { runId: group, callId: target }, target, question, origin });
      if (sent.refused) later(() => fanOuts.reply(group, target, target, { error: sent.refused!.error }));
    },
    abandon: async (group) => {
      const rows = db.select().from(schema.busOutbox).where(and(eq(schema.busOutbox.runId, group), eq(schema.busOutbox.status, "pending"))).all();
      for (const row of rows) {
        settle(row.id, "abandoned");
        await deps.deadlines.disarm(row.id);
      }
    },
  });

  const spawner = makeSpawner({
    profile: deps.profile,
    project: deps.project,
    spawnChild: deps.spawnChild,
    configure: (profile) => (profile.name === me() ? deps.configureSelf(profile) : deps.configureAgent(profile)),
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
    if (isSpawnCall(target)) {
      const spawned = await spawner.spawn(question);
      if (!spawned.ok) {
        trace(request.runId, "bus_refused", { callId: request.callId, target, code: "spawn_failed", error: spawned.error });
        return later(() => hand(request, target, { error: `spawn failed: ${spawned.error}` }));
      }
      trace(request.runId, "bus_spawned", { callId: request.callId, child: spawned.child });
      target = spawned.child;
      question = spawned.goal;
    }
    const sent = await sendRequest({ replyTo: { runId: request.runId, callId: request.callId }, target, question, origin: originOf(request.runId) });
    if (sent.refused) {
      trace(request.runId, "bus_refused", { callId: request.callId, target, messageId: sent.request.id, code: sent.refused.code, error: sent.refused.error });
      return later(() => hand(request, target, { error: sent.refused!.error }));
    }
    trace(request.runId, "bus_sent", { callId: request.callId, target, messageId: sent.request.id, conversationId: sent.request.conversationId, depth: sent.request.depth, deadlineAt: sent.request.deadlineAt });
  }

  async function reply(_request: BusRequest, message: BusReply): Promise<void> {
    enqueue(message);
    await flush();
  }

  function inboxRow(message: BusMessage, status: string, runId: string | null) {
    return {
      id: message.id,
      type: message.type,
      fromAgent: message.from,
      conversationId: message.conversationId,
      depth: message.depth,
      runId,
      request: message.type === "request" ? message : null,
      status,
      receivedAt: clock.now(),
    };
  }

  const repeated = (id: string): Applied => ({ applied: false, reason: `message '${id}' was already applied` });

  /**
   * A request: its inbox mark and the run that answers it are written in one transaction, so an
   * eviction leaves either nothing (the queue delivers again) or a run that is carried on.
   */
  async function applyRequest(request: BusRequest): Promise<Applied> {
    const now = clock.now();
    let refused = checkRequest({ from: request.from, to: request.to, depth: request.depth, deadlineAt: request.deadlineAt, now });
    // The connection is checked here as well as at the asker: from the askers this agent was told
    // of (`askedBy`, pushed by the registry), else — an asker it does not know, or a profile from
    // before `askedBy` — by the registry, which holds the truth and logs its answer.
    let logged = false;
    if (!refused && !deps.profile().askedBy?.includes(request.from)) {
      refused = await deps.admit(request);
      logged = true;
    }
    if (refused) {
      const written = deps.transaction(() => {
        if (!db.insert(schema.busInbox).values(inboxRow(request, "answered", null)).onConflictDoNothing().returning().get()) return false;
        enqueue(makeErrorReply(request, refused.code, refused.error, now));
        return true;
      });
      if (!written) return repeated(request.id);
      await flush();
      if (!logged) await record([{ message: request, state: "refused", note: refused.error }]);
      return { applied: false, reason: refused.error };
    }
    let session = db.select().from(schema.busConversations).where(eq(schema.busConversations.conversationId, request.conversationId)).get()?.sessionId;
    if (!session) {
      session = deps.createSession(`Asked by ${request.from}`);
      db.insert(schema.busConversations).values({ conversationId: request.conversationId, sessionId: session, createdAt: now }).onConflictDoNothing().run();
      session = db.select().from(schema.busConversations).where(eq(schema.busConversations.conversationId, request.conversationId)).get()!.sessionId;
    }
    const runId = crypto.randomUUID();
    const sessionId = session;
    const created = deps.transaction(() => {
      if (!db.insert(schema.busInbox).values(inboxRow(request, "applied", runId)).onConflictDoNothing().returning().get()) return false;
      deps.createRun({ runId, sessionId, origin: { trigger: `agent:${request.from}`, content: request.payload.question, name: request.from } });
      return true;
    });
    if (!created) return repeated(request.id);
    void deps.startRun(runId).catch((error: unknown) => answerRun(runId, "failed", error instanceof Error ? error.message : String(error)));
    return { applied: true, runId };
  }

  /**
   * An answer: the wait is settled with the answer itself (so a run evicted before it took the
   * answer gets it when carried on), then handed to the run; a repeat finds nothing waiting.
   */
  async function applyReply(message: BusReply): Promise<Applied> {
    const requestId = requestIdOfReply(message.id);
    const text = message.type === "response" ? { answer: message.payload.answer } : { error: `agent '${message.from}' could not answer (${message.payload.code}): ${message.payload.error}` };
    const row = deps.transaction(() => {
      const settled = settle(requestId, message.type === "response" ? "answered" : "failed", text);
      db.insert(schema.busInbox).values(inboxRow(message, "applied", null)).onConflictDoNothing().run();
      return settled;
    });
    if (!row) {
      const reason = "nobody waits for this answer any more (answered, timed out or unknown)";
      await record([{ message, state: "ignored", note: reason }]);
      return { applied: false, reason };
    }
    await deps.deadlines.disarm(requestId);
    hand(message.replyTo, message.from, text);
    return { applied: true };
  }

  /** The run a request started has ended: its reply goes back on the queue (once). */
  async function answerRun(runId: string, status: string, error?: string): Promise<void> {
    const run = deps.runs.get(runId);
    const state = run?.state as { result?: string; error?: string } | undefined;
    const now = clock.now();
    // The answer is marked and queued together: after an eviction it is still in the send queue.
    const answered = deps.transaction(() => {
      const row = db
        .update(schema.busInbox)
        .set({ status: "answered" })
        .where(and(eq(schema.busInbox.runId, runId), eq(schema.busInbox.status, "applied"), eq(schema.busInbox.type, "request")))
        .returning()
        .get();
      if (!row?.request) return null;
      const request = row.request as BusRequest;
      const message =
        status === "completed"
          ? makeResponse(request, state?.result ?? "", now)
          : makeErrorReply(request, "run_failed", `agent '${me()}' could not answer: run ${status}${error ?? state?.error ? `: ${error ?? state?.error}` : ""}`, now);
      enqueue(message);
      return { request, message };
    });
    if (!answered) return;
    await record([
      { message: answered.request, state: "answered", runId, runStatus: status },
      { message: answered.message, state: "sent" },
    ]);
    await flush();
  }

  return {
    ask,

    /** Applies a message the queue consumer delivered; a repeated id is ignored. */
    async receive(raw: unknown): Promise<Applied> {
      let message: BusMessage;
      try {
        message = parseBusMessage(raw);
      } catch (error) {
        throw new PantheonError("validation_failed", error instanceof Error ? error.message : String(error), { cause: error });
      }
      if (message.to !== me()) return { applied: false, reason: `message for '${message.to}' delivered to '${me()}'` };
      if (db.select({ id: schema.busInbox.id }).from(schema.busInbox).where(eq(schema.busInbox.id, message.id)).get()) return repeated(message.id);
      return message.type === "request" ? applyRequest(message) : applyReply(message);
    },

    /** A run started by a request has ended (core `answer_peer`): its answer goes back, once. */
    answer(runId: string, status: string): void {
      const answering = answerRun(runId, status)
        .catch((error: unknown) => console.error("bus answer", error))
        .finally(() => answers.delete(answering));
      answers.add(answering);
    },

    /** Settles when the answers being sent and the flush in progress have settled (an alarm waits for them). */
    async idle(): Promise<void> {
      await Promise.all([...answers, flushing ?? Promise.resolve()]);
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
      await fanOuts.recover();
      await flush();
    },

    /** The deadline alarm of a request fired: the asker gets a timeout error unless an answer came first. */
    async onDeadline(messageId: string): Promise<boolean> {
      const waitedFor = db.select().from(schema.busOutbox).where(eq(schema.busOutbox.id, messageId)).get();
      const timeoutError = waitedFor ? `agent '${waitedFor.target}' did not answer within ${Math.round((waitedFor.deadlineAt - waitedFor.createdAt) / 1000)} s (waited ${Math.round((clock.now() - waitedFor.createdAt) / 1000)} s)` : "";
      const row = settle(messageId, "timeout", { error: timeoutError });
      if (!row) return false;
      const waited = Math.round((clock.now() - row.createdAt) / 1000);
      const error = `agent '${row.target}' did not answer within ${Math.round((row.deadlineAt - row.createdAt) / 1000)} s (waited ${waited} s)`;
      if (!row.runId.startsWith(fanOutPrefix)) trace(row.runId, "bus_timeout", { callId: row.callId, target: row.target, messageId, error });
      const request = makeRequest({ id: row.id, project: deps.project(), from: me(), to: row.target, question: "(timed out)", replyTo: { runId: row.runId, callId: row.callId }, conversationId: row.conversationId, depth: row.depth, now: row.createdAt, deadlineMs: row.deadlineAt - row.createdAt });
      await record([{ message: request, state: "timeout", note: error }]);
      hand({ runId: row.runId, callId: row.callId }, row.target, { error });
      return true;
    },

    /** Asks several connections at once and combines their answers under a policy (core/bus/policies). */
    fanOut(input: FanOutInput & { runId?: string }) {
      if (input.id !== undefined && !/^[\w.:-]{1,128}$/.test(input.id)) {
        throw new PantheonError("validation_failed", "fan-out id: 1 to 128 letters, digits, '_', '.', ':' or '-'", { details: { issues: [{ path: ["id"], message: "1 to 128 of [A-Za-z0-9_.:-]" }] } });
      }
      return fanOuts.start(input, input.runId ? originOf(input.runId) : undefined);
    },

    /** A fan-out's decision by the caller's id, once decided. */
    fanOutResult(id: string) {
      return fanOuts.result(id);
    },

    /** Fan-outs not decided yet (the watchdog stays armed while there are any). */
    fanOutsWaiting(): number {
      return fanOuts.waiting();
    },

    /** Requests this agent still waits on. */
    pending(): number {
      return db.select().from(schema.busOutbox).where(eq(schema.busOutbox.status, "pending")).all().length;
    },
  };
}

export type AgentBus = ReturnType<typeof makeAgentBus>;

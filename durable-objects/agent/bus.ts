import { and, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { AgentProfile } from "../../core/agents";
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
} from "../../core/bus";
import type { Clock } from "../../core/ports";
import type { RunEvent as CoreEvent } from "../../core/run";
import { PantheonError } from "../../core/errors";
import { agentStub, registryStub } from "../../workers/stubs";
import type { BusLogEntry } from "../registry/bus-log";
import { makeFanOuts, fanOutPrefix, type FanOutInput } from "./bus-fanout";
import { isSpawnCall, makeSpawner, type SpawnDeps } from "./bus-spawn";
import type { RunStore } from "./runs";
import * as schema from "./schema";

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
  /** Records in the registry's bus log. */
  record(entries: BusLogEntry[]): Promise<void>;
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
    record: (entries) => registryStub(env, project()).busRecord(entries),
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
  /** Starts a run for a delegated question: the question is the user message, `name` the asker. */
  startRun(input: { runId: string; session: string; content: string; name: string; trigger: string }): Promise<unknown>;
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
  const record = (entries: BusLogEntry[]) => deps.record(entries).catch((error: unknown) => console.warn("bus log", error));
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
    db.insert(schema.busOutbox)
      .values({ id: request.id, runId: input.replyTo.runId, callId: input.replyTo.callId, target: input.target, conversationId: request.conversationId, depth: request.depth, deadlineAt: request.deadlineAt, status: "pending", createdAt: now })
      .run();
    await deps.deadlines.arm(request.deadlineAt, request.id);
    await record([{ message: request, state: "sent" }]);
    try {
      await deps.send(parseBusMessage(request));
    } catch (error) {
      settle(request.id, "failed");
      await deps.deadlines.disarm(request.id);
      const message = error instanceof Error ? error.message : String(error);
      await record([{ message: request, state: "dead", note: `the queue refused the message: ${message}` }]);
      return { refused: { code: "unavailable", error: `the bus could not take the message: ${message}` }, request };
    }
    return { request };
  }

  function settle(requestId: string, status: "answered" | "failed" | "timeout" | "abandoned"): typeof schema.busOutbox.$inferSelect | undefined {
    return db
      .update(schema.busOutbox)
      .set({ status, settledAt: clock.now() })
      .where(and(eq(schema.busOutbox.id, requestId), eq(schema.busOutbox.status, "pending")))
      .returning()
      .get();
  }

  /** Hands an answer (or an error) to whoever waits: a run's tool call, or a fan-out. */
  function hand(replyTo: { runId: string; callId: string }, from: string, reply: { answer?: string; error?: string }): void {
    if (replyTo.runId.startsWith(fanOutPrefix)) return fanOuts.reply(replyTo.runId, replyTo.callId, from, reply);
    const event: CoreEvent = reply.error !== undefined ? { type: "agent_response", callId: replyTo.callId, error: reply.error } : { type: "agent_response", callId: replyTo.callId, answer: reply.answer ?? "" };
    // Not awaited: the answer is persisted synchronously by the run loop; the model call that may follow can take long.
    void deps.deliver(replyTo.runId, event).catch((error: unknown) => console.error("bus deliver", error));
  }

  const fanOuts = makeFanOuts({
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

  async function reply(request: BusRequest, message: BusReply): Promise<void> {
    await deps.send(parseBusMessage(message));
  }

  async function applyRequest(request: BusRequest): Promise<Applied> {
    const now = clock.now();
    const refused = checkRequest({ from: request.from, to: request.to, depth: request.depth, deadlineAt: request.deadlineAt, now });
    if (refused) {
      db.update(schema.busInbox).set({ status: "answered" }).where(eq(schema.busInbox.id, request.id)).run();
      await reply(request, makeErrorReply(request, refused.code, refused.error, now));
      await record([{ message: request, state: "refused", note: refused.error }]);
      return { applied: false, reason: refused.error };
    }
    let session = db.select().from(schema.busConversations).where(eq(schema.busConversations.conversationId, request.conversationId)).get()?.sessionId;
    if (!session) {
      session = deps.createSession(`Asked by ${request.from}`);
      db.insert(schema.busConversations).values({ conversationId: request.conversationId, sessionId: session, createdAt: now }).onConflictDoNothing().run();
    }
    const runId = crypto.randomUUID();
    db.update(schema.busInbox).set({ runId }).where(eq(schema.busInbox.id, request.id)).run();
    void deps
      .startRun({ runId, session, content: request.payload.question, name: request.from, trigger: `agent:${request.from}` })
      .catch((error: unknown) => answerRun(runId, "failed", error instanceof Error ? error.message : String(error)));
    return { applied: true, runId };
  }

  async function applyReply(message: BusReply): Promise<Applied> {
    const requestId = requestIdOfReply(message.id);
    const row = settle(requestId, message.type === "response" ? "answered" : "failed");
    if (!row) {
      const reason = "nobody waits for this answer any more (answered, timed out or unknown)";
      await record([{ message, state: "ignored", note: reason }]);
      return { applied: false, reason };
    }
    await deps.deadlines.disarm(requestId);
    const text = message.type === "response" ? { answer: message.payload.answer } : { error: `agent '${message.from}' could not answer (${message.payload.code}): ${message.payload.error}` };
    hand(message.replyTo, message.from, text);
    return { applied: true };
  }

  /** The run a request started has ended: its reply goes back on the queue (once). */
  async function answerRun(runId: string, status: string, error?: string): Promise<void> {
    const row = db
      .update(schema.busInbox)
      .set({ status: "answered" })
      .where(and(eq(schema.busInbox.runId, runId), eq(schema.busInbox.status, "applied"), eq(schema.busInbox.type, "request")))
      .returning()
      .get();
    if (!row?.request) return;
    const request = row.request as BusRequest;
    const run = deps.runs.get(runId);
    const state = run?.state as { result?: string; error?: string } | undefined;
    const now = clock.now();
    const message =
      status === "completed"
        ? makeResponse(request, state?.result ?? "", now)
        : makeErrorReply(request, "run_failed", `agent '${me()}' could not answer: run ${status}${error ?? state?.error ? `: ${error ?? state?.error}` : ""}`, now);
    await record([
      { message: request, state: "answered", runId, runStatus: status },
      { message, state: "sent" },
    ]);
    await reply(request, message);
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
      const fresh = db
        .insert(schema.busInbox)
        .values({
          id: message.id,
          type: message.type,
          fromAgent: message.from,
          conversationId: message.conversationId,
          depth: message.depth,
          request: message.type === "request" ? message : null,
          status: "applied",
          receivedAt: clock.now(),
        })
        .onConflictDoNothing()
        .returning()
        .get();
      if (!fresh) return { applied: false, reason: `message '${message.id}' was already applied` };
      return message.type === "request" ? applyRequest(message) : applyReply(message);
    },

    /** Called for every finished run; only runs started by a request answer. */
    onRunDone(runId: string, status: string): void {
      void answerRun(runId, status).catch((error: unknown) => console.error("bus answer", error));
    },

    /** The deadline alarm of a request fired: the asker gets a timeout error unless an answer came first. */
    async onDeadline(messageId: string): Promise<boolean> {
      const row = settle(messageId, "timeout");
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
      return fanOuts.start(input, input.runId ? originOf(input.runId) : undefined);
    },

    /** Requests this agent still waits on. */
    pending(): number {
      return db.select().from(schema.busOutbox).where(eq(schema.busOutbox.status, "pending")).all().length;
    },
  };
}

export type AgentBus = ReturnType<typeof makeAgentBus>;

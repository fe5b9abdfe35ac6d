import type { RunPrincipal } from "../../../core/auth";
import { and, eq } from "drizzle-orm";
import type { AgentProfile } from "../../../core/agents";
import {
  checkRequest,
  defaultDeadlineMs,
  makeCancel,
  makeRequest,
  type BusErrorCode,
  type BusMessage,
  type BusRequest,
} from "../../../core/bus";
import type { Clock } from "../../../core/ports";
import type { BusLogEntry } from "../../registry/bus-log";
import * as schema from "../schema";
import { fanOutPrefix } from "./fanout";
import { makeDeadlines } from "./deadlines";
import type { BusDeps, Db } from "./ports";

type ReplyTo = { runId: string; callId: string };
type Reply = { answer?: string; error?: string };

export interface OutboxDeps extends Pick<BusDeps, "transaction" | "deadlineMs"> {
  db: Db;
  clock: Clock;
  project(): string;
  /** This agent's profile: its name signs a request, its connections admit it. */
  profile(): AgentProfile;
  record(entries: BusLogEntry[]): Promise<void>;
  /** Puts a message in the send queue (inside the caller's transaction); `flush` sends it. */
  enqueue(message: BusMessage): void;
  flush(): Promise<void>;
  /** The deadline alarm (bus/alarms.ts): one armed for the earliest request still waiting. */
  alarms: Parameters<typeof makeDeadlines>[0]["alarms"];
  trace(runId: string, name: string, data: Record<string, unknown>): void;
  /** Hands an answer (or an error) to whoever waits: a run's tool call, a fan-out, a supervisor, a workflow step. */
  hand(replyTo: ReplyTo, from: string, reply: Reply): void;
  /** Runs `fn` after the current call returns (an answer is never handed inside the ask that waits for it). */
  later(fn: () => unknown): void;
}

/**
 * The questions this agent waits on (the outbox table): a request is sent with the wait it opens, and
 * every wait ends once — answered, failed, timed out at its deadline, or abandoned with a cancel to the
 * agent asked. Whoever waits is told through `hand`, which the bus routes (bus.ts).
 * @example
 * const outbox = makeOutbox({ db, clock, project, profile, record, enqueue, flush, alarms: busAlarmsOf(host.alarms).deadlines, trace, hand, later, transaction });
 * if (!outbox.askedBefore(replyTo)) await outbox.send({ replyTo, target, question, origin });
 * await outbox.cancelAsks(runId, "the run was cancelled");
 */
export function makeOutbox(deps: OutboxDeps) {
  const { db, clock } = deps;
  const me = () => deps.profile().name;

  /** Refuses (error to the caller) or sends one request; `replyTo.runId` is a run or a fan-out. */
  async function send(input: {
    replyTo: ReplyTo;
    target: string;
    question: string;
    origin: { conversationId: string; depth: number };
    principal?: RunPrincipal;
  }): Promise<{ refused?: { code: BusErrorCode; error: string }; request: BusRequest }> {
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
      ...(input.principal ? { principal: input.principal } : {}),
    });
    const refused = checkRequest({
      from: profile.name,
      to: input.target,
      connections: profile.connections,
      depth: request.depth,
      deadlineAt: request.deadlineAt,
      now,
    });
    if (refused) {
      await deps.record([{ message: request, state: "refused", note: refused.error }]);
      return { refused, request };
    }
    // The wait and the message are written together: both or neither survive an eviction.
    deps.transaction(() => {
      db.insert(schema.busOutbox)
        .values({
          id: request.id,
          runId: input.replyTo.runId,
          callId: input.replyTo.callId,
          target: input.target,
          conversationId: request.conversationId,
          depth: request.depth,
          deadlineAt: request.deadlineAt,
          status: "pending",
          createdAt: now,
        })
        .run();
      deps.enqueue(request);
    });
    await deadlines.arm(request.deadlineAt, request.id);
    await deps.record([{ message: request, state: "sent" }]);
    await deps.flush();
    return { request };
  }

  /** Ends a wait, once: the row as settled, or undefined when it had already ended. */
  function settle(
    requestId: string,
    status: "answered" | "failed" | "timeout" | "abandoned",
    reply?: Reply,
  ): typeof schema.busOutbox.$inferSelect | undefined {
    return db
      .update(schema.busOutbox)
      .set({ status, settledAt: clock.now(), ...(reply ? { reply } : {}) })
      .where(and(eq(schema.busOutbox.id, requestId), eq(schema.busOutbox.status, "pending")))
      .returning()
      .get();
  }

  /** A request past its deadline: the asker gets a timeout error unless an answer came first. */
  async function timeOut(messageId: string): Promise<boolean> {
    const waitedFor = db.select().from(schema.busOutbox).where(eq(schema.busOutbox.id, messageId)).get();
    const timeoutError = waitedFor
      ? `agent '${waitedFor.target}' did not answer within ${Math.round((waitedFor.deadlineAt - waitedFor.createdAt) / 1000)} s (waited ${Math.round((clock.now() - waitedFor.createdAt) / 1000)} s)`
      : "";
    const row = settle(messageId, "timeout", { error: timeoutError });
    if (!row) return false;
    const waited = Math.round((clock.now() - row.createdAt) / 1000);
    const error = `agent '${row.target}' did not answer within ${Math.round((row.deadlineAt - row.createdAt) / 1000)} s (waited ${waited} s)`;
    if (!row.runId.startsWith(fanOutPrefix))
      deps.trace(row.runId, "bus_timeout", { callId: row.callId, target: row.target, messageId, error });
    const request = makeRequest({
      id: row.id,
      project: deps.project(),
      from: me(),
      to: row.target,
      question: "(timed out)",
      replyTo: { runId: row.runId, callId: row.callId },
      conversationId: row.conversationId,
      depth: row.depth,
      now: row.createdAt,
      deadlineMs: row.deadlineAt - row.createdAt,
    });
    await deps.record([{ message: request, state: "timeout", note: error }]);
    deps.hand({ runId: row.runId, callId: row.callId }, row.target, { error });
    return true;
  }
  const deadlines = makeDeadlines({ db, clock, alarms: deps.alarms, timeOut });

  /**
   * A run was cancelled (or, with `callId`, one of its calls was given up): every question it still waits on is given up (settled `abandoned`) and a
   * cancel goes to each agent asked, in the same transaction, through the send queue (retried until
   * delivered, like any message); each of them cancels the run it started, and so on down the chain.
   */
  async function cancelAsks(runId: string, reason: string, callId?: string): Promise<number> {
    const waiting = db
      .select()
      .from(schema.busOutbox)
      .where(
        and(
          eq(schema.busOutbox.runId, runId),
          eq(schema.busOutbox.status, "pending"),
          ...(callId ? [eq(schema.busOutbox.callId, callId)] : []),
        ),
      )
      .all();
    if (!waiting.length) return 0;
    const now = clock.now();
    const sent = deps.transaction(() =>
      waiting.flatMap((row) => {
        if (!settle(row.id, "abandoned", { error: reason })) return [];
        const cancel = makeCancel({
          requestId: row.id,
          project: deps.project(),
          from: me(),
          to: row.target,
          replyTo: { runId: row.runId, callId: row.callId },
          conversationId: row.conversationId,
          depth: row.depth,
          deadlineAt: row.deadlineAt,
          reason,
          now,
        });
        deps.enqueue(cancel);
        return [cancel];
      }),
    );
    for (const cancel of sent)
      deps.trace(runId, "bus_cancel_sent", { callId: cancel.replyTo.callId, target: cancel.to, messageId: cancel.id });
    await deps.record(sent.map((message) => ({ message, state: "sent" as const })));
    await deps.flush();
    return sent.length;
  }

  return {
    send,
    settle,
    cancelAsks,

    /**
     * One request per call, ever (a run carried on after a restart, a workflow step replayed, asks
     * again): true when this call already asked. If its answer came while the asker could not take
     * it, the asker gets that same answer now.
     */
    askedBefore(replyTo: ReplyTo): boolean {
      const earlier = db
        .select()
        .from(schema.busOutbox)
        .where(and(eq(schema.busOutbox.runId, replyTo.runId), eq(schema.busOutbox.callId, replyTo.callId)))
        .get();
      if (!earlier) return false;
      const reply = earlier.reply as Reply | null;
      if (earlier.status !== "pending" && reply) deps.later(() => deps.hand(replyTo, earlier.target, reply));
      return true;
    },

    /** On start: runs cancelled before their cancels were queued (an eviction between the two) send them now. */
    async cancelAbandoned(): Promise<void> {
      const abandoned = db
        .selectDistinct({ runId: schema.busOutbox.runId })
        .from(schema.busOutbox)
        .innerJoin(schema.runs, eq(schema.runs.id, schema.busOutbox.runId))
        .where(and(eq(schema.busOutbox.status, "pending"), eq(schema.runs.status, "cancelled")))
        .all();
      for (const row of abandoned) await cancelAsks(row.runId, `run ${row.runId} of '${me()}' was cancelled`);
    },

    /** The deadline alarm fired: requests past their deadline get a timeout error unless an answer came first. */
    onDeadline: (messageId: string): Promise<boolean> => deadlines.fired(messageId),

    /** Requests this agent still waits on. */
    pending(): number {
      return db.select().from(schema.busOutbox).where(eq(schema.busOutbox.status, "pending")).all().length;
    },
  };
}

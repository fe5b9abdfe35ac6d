import { scopeOrLeast } from "../../../core/auth";
import { and, eq, sql } from "drizzle-orm";
import type { AgentProfile } from "../../../core/agents";
import {
  cancelIdOf,
  checkRequest,
  makeErrorReply,
  makeResponse,
  parseBusMessage,
  requestIdOfCancel,
  requestIdOfReply,
  type BusCancel,
  type BusMessage,
  type BusReply,
  type BusRequest,
} from "../../../core/bus";
import { PantheonError } from "../../../core/errors";
import type { Clock } from "../../../core/ports";
import type { RunOrigin } from "../../../core/run";
import type { BusLogEntry } from "../../registry/bus-log";
import type { RunStore } from "../runs/store";
import * as schema from "../schema";
import type { Applied, BusDeps, Db } from "./ports";

type Outbox = typeof schema.busOutbox.$inferSelect;
type Reply = { answer?: string; error?: string };

export interface InboxDeps extends Pick<BusDeps, "admit" | "transaction"> {
  /** Writes a run's record and its request (no transaction of its own: the inbox holds one). */
  createRun(input: { runId: string; sessionId: string; origin: RunOrigin }): unknown;
  /** Drives a run created by `createRun`. */
  startRun(runId: string): Promise<unknown>;
  /** Cancels a run (a cancel from its asker), and with it what that run asks in turn. */
  cancelRun(runId: string, by: string): Promise<unknown>;
  createSession(title: string): string;
  db: Db;
  clock: Clock;
  runs: RunStore;
  profile(): AgentProfile;
  record(entries: BusLogEntry[]): Promise<void>;
  enqueue(message: BusMessage): void;
  flush(): Promise<void>;
  /** Settles a request this agent waits on (the wait row), once. */
  settle(requestId: string, status: "answered" | "failed", reply: Reply): Outbox | undefined;
  /** Hands an answer to whoever waits: a run's tool call, or a fan-out. */
  hand(replyTo: { runId: string; callId: string }, from: string, reply: Reply): void;
}

/**
 * The way in: every delivered message is applied once (an inbox of message ids), a request starts
 * the run that answers it, and that run's end queues the answer.
 * @example
 * const inbox = makeInbox({ db, clock, runs, ... });
 * await inbox.receive(raw); // from busReceive, at least once
 */
export function makeInbox(deps: InboxDeps) {
  const { db, clock } = deps;
  const me = () => deps.profile().name;
  // Built once: every delivered message passes these statements.
  const seen = db
    .select({ id: schema.busInbox.id })
    .from(schema.busInbox)
    .where(eq(schema.busInbox.id, sql.placeholder("id")))
    .prepare();
  const sessionOf = db
    .select({ sessionId: schema.busConversations.sessionId })
    .from(schema.busConversations)
    .where(eq(schema.busConversations.conversationId, sql.placeholder("conversationId")))
    .prepare();

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
    let refused = checkRequest({
      from: request.from,
      to: request.to,
      depth: request.depth,
      deadlineAt: request.deadlineAt,
      now,
    });
    // Its cancel came first (the queue does not keep order): the asker no longer waits, so no run starts.
    if (!refused && seen.get({ id: cancelIdOf(request.id) }))
      refused = { code: "invalid", error: `agent '${request.from}' cancelled this question before it arrived` };
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
        if (
          !db
            .insert(schema.busInbox)
            .values(inboxRow(request, "answered", null))
            .onConflictDoNothing()
            .returning()
            .get()
        )
          return false;
        deps.enqueue(makeErrorReply(request, refused.code, refused.error, now));
        return true;
      });
      if (!written) return repeated(request.id);
      await deps.flush();
      if (!logged) await deps.record([{ message: request, state: "refused", note: refused.error }]);
      return { applied: false, reason: refused.error };
    }
    let session = sessionOf.get({ conversationId: request.conversationId })?.sessionId;
    if (!session) {
      session = deps.createSession(`Asked by ${request.from}`);
      db.insert(schema.busConversations)
        .values({ conversationId: request.conversationId, sessionId: session, createdAt: now })
        .onConflictDoNothing()
        .run();
      session = sessionOf.get({ conversationId: request.conversationId })!.sessionId;
    }
    const runId = crypto.randomUUID();
    const sessionId = session;
    const created = deps.transaction(() => {
      if (
        !db
          .insert(schema.busInbox)
          .values(inboxRow(request, "applied", runId))
          .onConflictDoNothing()
          .returning()
          .get()
      )
        return false;
      // The asked run acts with no more than the chain that asked (a request without a scope: the least).
      const principal = {
        id: `agent:${request.from}`,
        scope: scopeOrLeast(request.payload.scope),
        name: `agent ${request.from} for ${request.payload.by ?? "an unknown caller"}`,
      };
      deps.createRun({
        runId,
        sessionId,
        origin: { trigger: `agent:${request.from}`, content: request.payload.question, name: request.from, principal },
      });
      return true;
    });
    if (!created) return repeated(request.id);
    void deps
      .startRun(runId)
      .catch((error: unknown) => answerRun(runId, "failed", error instanceof Error ? error.message : String(error)));
    return { applied: true, runId };
  }

  /**
   * An answer: the wait is settled with the answer itself (so a run evicted before it took the
   * answer gets it when carried on), then handed to the run; a repeat finds nothing waiting.
   */
  async function applyReply(message: BusReply): Promise<Applied> {
    const requestId = requestIdOfReply(message.id);
    const text =
      message.type === "response"
        ? { answer: message.payload.answer }
        : { error: `agent '${message.from}' could not answer (${message.payload.code}): ${message.payload.error}` };
    const row = deps.transaction(() => {
      const settled = deps.settle(requestId, message.type === "response" ? "answered" : "failed", text);
      db.insert(schema.busInbox)
        .values(inboxRow(message, "applied", null))
        .onConflictDoNothing()
        .run();
      return settled;
    });
    if (!row) {
      const reason = "nobody waits for this answer any more (answered, timed out or unknown)";
      await deps.record([{ message, state: "ignored", note: reason }]);
      return { applied: false, reason };
    }
    // Its deadline alarm stays: it fires for the earliest request still waiting (deadlines.ts).
    deps.hand(message.replyTo, message.from, text);
    return { applied: true };
  }

  /**
   * The asker cancelled a request it waited on: the run that request started is cancelled (which
   * sends its own cancels on down the chain). Only the asker of that request may cancel it; a
   * cancel for a request not seen yet is kept, and that request is then refused when it comes.
   */
  async function applyCancel(message: BusCancel): Promise<Applied> {
    const requestId = requestIdOfCancel(message.id);
    const asked = db
      .select()
      .from(schema.busInbox)
      .where(and(eq(schema.busInbox.id, requestId), eq(schema.busInbox.type, "request")))
      .get();
    if (asked && asked.fromAgent !== message.from) {
      const reason = `only '${asked.fromAgent}', who asked, may cancel request ${requestId}`;
      await deps.record([{ message, state: "refused", note: reason }]);
      return { applied: false, reason };
    }
    const mark = () =>
      db
        .insert(schema.busInbox)
        .values(inboxRow(message, "applied", asked?.runId ?? null))
        .onConflictDoNothing()
        .returning()
        .get();
    const runId = asked?.runId;
    const status = runId ? (deps.runs.get(runId)?.status as string | undefined) : undefined;
    if (!runId || !status || ["completed", "failed", "cancelled"].includes(status)) {
      if (!mark()) return repeated(message.id);
      const reason = runId
        ? `run ${runId} already ended (${status ?? "gone"})`
        : "the question has not arrived yet: it will be refused when it does";
      await deps.record([{ message, state: "ignored", note: reason }]);
      return { applied: false, reason };
    }
    // Marked once the run is cancelled: an eviction in between leaves the message to be delivered again.
    await deps.cancelRun(runId, `agent '${message.from}' (${message.payload.reason})`);
    mark();
    await deps.record([{ message, state: "applied", runId, runStatus: "cancelled" }]);
    return { applied: true, runId };
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
        .where(
          and(
            eq(schema.busInbox.runId, runId),
            eq(schema.busInbox.status, "applied"),
            eq(schema.busInbox.type, "request"),
          ),
        )
        .returning()
        .get();
      if (!row?.request) return null;
      const request = row.request as BusRequest;
      const message =
        status === "completed"
          ? makeResponse(request, state?.result ?? "", now)
          : makeErrorReply(
              request,
              "run_failed",
              `agent '${me()}' could not answer: run ${status}${(error ?? state?.error) ? `: ${error ?? state?.error}` : ""}`,
              now,
            );
      deps.enqueue(message);
      return { request, message };
    });
    if (!answered) return;
    await deps.record([
      { message: answered.request, state: "answered", runId, runStatus: status },
      { message: answered.message, state: "sent" },
    ]);
    await deps.flush();
  }

  return {
    /** Applies a delivered message; a repeated id is ignored. */
    async receive(raw: unknown): Promise<Applied> {
      let message: BusMessage;
      try {
        message = parseBusMessage(raw);
      } catch (error) {
        throw new PantheonError("validation_failed", error instanceof Error ? error.message : String(error), {
          cause: error,
        });
      }
      if (message.to !== me()) return { applied: false, reason: `message for '${message.to}' delivered to '${me()}'` };
      if (seen.get({ id: message.id })) return repeated(message.id);
      if (message.type === "cancel") return applyCancel(message);
      return message.type === "request" ? applyRequest(message) : applyReply(message);
    },
    answerRun,
  };
}

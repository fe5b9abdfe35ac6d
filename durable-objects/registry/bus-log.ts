import { unknownAgentMessage } from "../../core/errors";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { checkRequest, replyIdOf, stateRank, type BusLogState, type BusMessage, type Refusal } from "../../core/bus";
import * as schema from "./schema";

type Db = DrizzleSqliteDODatabase<typeof schema>;
type Row = typeof schema.busLog.$inferSelect;

export interface BusLogEntry {
  message: BusMessage;
  state: BusLogState;
  /** Requests: the run the target started, and its status. */
  runId?: string;
  runStatus?: string;
  note?: string;
}

/** One hop of a delegation chain, as `GET /api/conversations/:id` shows it. */
export interface BusHop {
  messageId: string;
  from: string;
  to: string;
  depth: number;
  question: string;
  state: BusLogState;
  askerRunId: string;
  callId: string;
  runId: string | null;
  runStatus: string | null;
  reply: { type: string; text: string; code: string | null; state: BusLogState } | null;
  note: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface BusCounts {
  agent: string;
  pending: number;
  inFlight: number;
  dead: number;
}

const clip = (text: string, max = 4000) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const textOf = (m: BusMessage) =>
  m.type === "request"
    ? m.payload.question
    : m.type === "response"
      ? m.payload.answer
      : m.type === "cancel"
        ? m.payload.reason
        : m.payload.error;

/** The registry's record of every bus message: its state, its hop in a conversation, and counts per agent. */
export function makeBusLog(db: Db, now: () => number) {
  // Built once: every message of the project is logged here (drizzle builds a query's SQL on each call).
  const slot = <T>(name: string) => sql.placeholder(name) as unknown as T;
  const byId = db
    .select()
    .from(schema.busLog)
    .where(eq(schema.busLog.id, sql.placeholder("id")))
    .prepare();
  const insert = db
    .insert(schema.busLog)
    .values({
      id: sql.placeholder("id"),
      conversationId: sql.placeholder("conversationId"),
      type: sql.placeholder("type"),
      fromAgent: sql.placeholder("fromAgent"),
      toAgent: sql.placeholder("toAgent"),
      depth: sql.placeholder("depth"),
      askerRunId: sql.placeholder("askerRunId"),
      callId: sql.placeholder("callId"),
      runId: sql.placeholder("runId"),
      runStatus: sql.placeholder("runStatus"),
      state: sql.placeholder("state"),
      text: sql.placeholder("text"),
      code: sql.placeholder("code"),
      note: sql.placeholder("note"),
      createdAt: sql.placeholder("createdAt"),
      updatedAt: sql.placeholder("updatedAt"),
    })
    .prepare();
  const update = db
    .update(schema.busLog)
    .set({
      state: slot<string>("state"),
      note: slot<string | null>("note"),
      runId: slot<string | null>("runId"),
      runStatus: slot<string | null>("runStatus"),
      updatedAt: slot<number>("updatedAt"),
    })
    .where(eq(schema.busLog.id, sql.placeholder("id")))
    .prepare();

  function record(entry: BusLogEntry): void {
    const { message } = entry;
    const existing = byId.get({ id: message.id });
    const at = now();
    if (!existing) {
      insert.run({
        id: message.id,
        conversationId: message.conversationId,
        type: message.type,
        fromAgent: message.from,
        toAgent: message.to,
        depth: message.depth,
        askerRunId: message.replyTo.runId,
        callId: message.replyTo.callId,
        runId: entry.runId ?? null,
        runStatus: entry.runStatus ?? null,
        state: entry.state,
        text: clip(textOf(message)),
        code: message.type === "error" ? message.payload.code : null,
        note: entry.note ?? null,
        createdAt: message.createdAt,
        updatedAt: at,
      });
      return;
    }
    const type = existing.type as BusMessage["type"];
    const forward = stateRank(entry.state, type) > stateRank(existing.state as BusLogState, type);
    const runStatus =
      entry.runStatus && (forward || !existing.runStatus || stateRank(existing.state as BusLogState, type) < 3)
        ? entry.runStatus
        : existing.runStatus;
    update.run({
      id: message.id,
      state: forward ? entry.state : existing.state,
      note: forward && entry.note ? entry.note : existing.note,
      runId: entry.runId || existing.runId,
      runStatus,
      updatedAt: at,
    });
  }

  return {
    record(entries: BusLogEntry[]): void {
      for (const entry of entries) record(entry);
    },

    /**
     * The consumer's check before it hands a message over: the target exists and, for a request,
     * the asker is connected to it (the registry holds the truth). Records `delivered` or the refusal.
     */
    admit(message: BusMessage, connectionsOf: (agent: string) => string[] | undefined): Refusal | undefined {
      const targetConnections = connectionsOf(message.to);
      let refusal: Refusal | undefined;
      if (targetConnections === undefined)
        refusal = { code: "not_found", error: unknownAgentMessage(message.to, message.project) };
      else if (message.type === "request") {
        refusal = checkRequest({
          from: message.from,
          to: message.to,
          connections: connectionsOf(message.from) ?? [],
          depth: message.depth,
          deadlineAt: message.deadlineAt,
          now: now(),
        });
      }
      if (refusal) record({ message, state: message.type === "request" ? "refused" : "ignored", note: refusal.error });
      else record({ message, state: "delivered" });
      return refusal;
    },

    /** Every request of a conversation in the order it was asked, with its reply. */
    conversation(conversationId: string): BusHop[] {
      const rows = db
        .select()
        .from(schema.busLog)
        .where(eq(schema.busLog.conversationId, conversationId))
        .orderBy(asc(schema.busLog.createdAt), asc(schema.busLog.depth))
        .all();
      const byId = new Map(rows.map((r) => [r.id, r]));
      return rows
        .filter((r) => r.type === "request")
        .map((r) => {
          const reply = byId.get(replyIdOf(r.id));
          return {
            messageId: r.id,
            from: r.fromAgent,
            to: r.toAgent,
            depth: r.depth,
            question: r.text,
            state: r.state as BusLogState,
            askerRunId: r.askerRunId,
            callId: r.callId,
            runId: r.runId,
            runStatus: r.runStatus,
            reply: reply
              ? { type: reply.type, text: reply.text, code: reply.code, state: reply.state as BusLogState }
              : null,
            note: r.note,
            createdAt: r.createdAt,
            updatedAt: r.updatedAt,
          };
        });
    },

    /** Per receiving agent: sent but not delivered, delivered but not finished, and dead letters. */
    counts(): BusCounts[] {
      const rows = db
        .select({
          agent: schema.busLog.toAgent,
          state: schema.busLog.state,
          type: schema.busLog.type,
          n: sql<number>`count(*)`,
        })
        .from(schema.busLog)
        .where(inArray(schema.busLog.state, ["sent", "delivered", "applied", "dead"]))
        .groupBy(schema.busLog.toAgent, schema.busLog.state, schema.busLog.type)
        .all();
      const byAgent = new Map<string, BusCounts>();
      for (const row of rows) {
        const counts = byAgent.get(row.agent) ?? { agent: row.agent, pending: 0, inFlight: 0, dead: 0 };
        if (row.state === "sent") counts.pending += row.n;
        else if (row.state === "dead") counts.dead += row.n;
        else if (row.state === "delivered" || row.type === "request") counts.inFlight += row.n;
        byAgent.set(row.agent, counts);
      }
      return [...byAgent.values()].sort((a, b) => a.agent.localeCompare(b.agent));
    },

    /** Dead letters, newest first (for operators). */
    dead(limit: number): Row[] {
      return db
        .select()
        .from(schema.busLog)
        .where(and(eq(schema.busLog.state, "dead")))
        .orderBy(sql`${schema.busLog.updatedAt} desc`)
        .limit(limit)
        .all();
    },
  };
}

export type BusLog = ReturnType<typeof makeBusLog>;

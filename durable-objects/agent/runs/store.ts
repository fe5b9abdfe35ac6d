import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { RunPrincipal } from "../../../core/auth";
import type { Clock } from "../../../core/ports";
import type { TraceKind } from "../../../core/run";
import * as schema from "../schema";

/** The trace's `kind` column for each step the run loop traces. */
export const traceCategory: Record<TraceKind, string> = {
  run_started: "state",
  model_called: "model",
  model_result: "model",
  gate_decisions: "gate",
  tool_call: "tool",
  tool_result: "tool",
  approval_requested: "state",
  approval: "state",
  agent_response: "message",
  run_finished: "state",
  event_ignored: "state",
  quota_exceeded: "model",
};

type Db = DrizzleSqliteDODatabase<typeof schema>;
type RunRow = typeof schema.runs.$inferSelect;

export interface RunSummary {
  id: string;
  sessionId: string;
  status: string;
  trigger: string;
  steps: number;
  tokens: number;
  error?: string;
  startedAt: number;
  finishedAt?: number;
  /** Runs another agent asked for (trigger `agent:<asker>`): the delegation conversation it belongs to. */
  conversationId?: string;
  /** The agent whose request started this run. */
  askedBy?: string;
  /** Whom the run acts for (absent on runs stored before principals). */
  principal?: RunPrincipal;
}

export interface TraceStep {
  id: string;
  runId: string;
  seq: number;
  kind: string;
  name: string;
  data: unknown;
  startedAt: number;
  durationMs: number;
}

export const activeRunStatuses = ["running", "waiting_tool", "waiting_approval", "waiting_agent"] as const;

function summary(row: RunRow): RunSummary {
  return {
    id: row.id,
    sessionId: row.sessionId,
    status: row.status,
    trigger: row.trigger,
    steps: row.steps,
    tokens: row.tokens,
    ...(row.error ? { error: row.error } : {}),
    ...(row.principalId
      ? {
          principal: {
            id: row.principalId,
            scope: row.principalScope as RunPrincipal["scope"],
            name: row.principalName ?? row.principalId,
          },
        }
      : {}),
    startedAt: row.startedAt,
    ...(row.finishedAt ? { finishedAt: row.finishedAt } : {}),
  };
}

/** Runs (the persisted state of every turn or behavior) and their trace, one row per step. */
/** A step to append to a run's trace. */
export type NewTraceStep = {
  runId: string;
  kind: string;
  name: string;
  data: unknown;
  startedAt: number;
  durationMs: number;
};
const traceColumns = ["id", "runId", "seq", "kind", "name", "data", "startedAt", "durationMs"] as const;
/** Most steps one trace insert writes. */
const traceBatch = 8;

/** Runs whose last trace seq an instance keeps in memory (a run is done long before this many more start). */
const traceSeqCacheSize = 256;

export function makeRunStore(db: Db, clock: Clock) {
  const lastTraceSeq = new Map<string, number>();
  // A turn reads its run a few times, saves it twice and appends several trace steps: these are
  // built once (drizzle prepared statements) instead of on every call.
  const p = (name: string) => sql.placeholder(name);
  const byId = db
    .select()
    .from(schema.runs)
    .where(eq(schema.runs.id, p("id")))
    .prepare();
  // `set` takes placeholders only inside sql``, which skips the column's encoder: `state` (a JSON
  // column) is passed already serialized.
  const bound = (name: string) => sql`${p(name)}`;
  const saveColumns = {
    status: bound("status"),
    state: bound("stateJson"),
    steps: bound("steps"),
    tokens: bound("tokens"),
    error: bound("error"),
    updatedAt: bound("now"),
  };
  const saveOpen = db
    .update(schema.runs)
    .set(saveColumns)
    .where(eq(schema.runs.id, p("id")))
    .prepare();
  const saveFinished = db
    .update(schema.runs)
    .set({ ...saveColumns, finishedAt: bound("now") })
    .where(eq(schema.runs.id, p("id")))
    .prepare();
  const insertRun = db
    .insert(schema.runs)
    .values({
      id: p("id"),
      sessionId: p("sessionId"),
      status: p("status"),
      trigger: p("trigger"),
      state: p("state"),
      principalId: p("principalId"),
      principalScope: p("principalScope"),
      principalName: p("principalName"),
      startedAt: p("now"),
      updatedAt: p("now"),
    })
    .prepare();
  // One prepared insert per number of rows (up to `traceBatch`), built when first needed.
  const traceInserts = new Map<number, { run(values: Record<string, unknown>): unknown }>();
  const insertTraces = (count: number) => {
    let insert = traceInserts.get(count);
    if (!insert) {
      const rows = Array.from(
        { length: count },
        (_, n) =>
          Object.fromEntries(
            traceColumns.map((column) => [column, p(`${column}${n}`)]),
          ) as unknown as typeof schema.trace.$inferInsert,
      );
      insert = db.insert(schema.trace).values(rows).prepare();
      traceInserts.set(count, insert);
    }
    return insert;
  };
  /**
   * A run a bus request started is named by that request's inbox row; reading it here lets every
   * summary say which conversation asked for the run, with no column of its own to keep in step.
   */
  function withOrigin<T extends RunSummary>(rows: T[]): T[] {
    const asked = rows.filter((r) => r.trigger.startsWith("agent:")).map((r) => r.id);
    if (asked.length === 0) return rows;
    const origins = new Map(
      db
        .select({
          runId: schema.busInbox.runId,
          conversationId: schema.busInbox.conversationId,
          from: schema.busInbox.fromAgent,
        })
        .from(schema.busInbox)
        .where(and(inArray(schema.busInbox.runId, asked), eq(schema.busInbox.type, "request")))
        .all()
        .map((o) => [o.runId, o]),
    );
    return rows.map((r) => {
      const o = origins.get(r.id);
      return o ? { ...r, conversationId: o.conversationId, askedBy: o.from } : r;
    });
  }

  /** Several steps in one statement per `traceBatch` (a run's steps of one transition go together). */
  function appendTraces(steps: NewTraceStep[]): TraceStep[] {
    const rows = steps.map((step) => {
      // A run appends several steps a turn: its last seq is read once per instance, then counted
      // here. Only this store writes trace rows, so the count cannot fall behind; a rolled-back
      // append leaves a gap in the numbering, which only orders steps.
      let last = lastTraceSeq.get(step.runId);
      if (last === undefined) {
        last =
          db
            .select({ seq: schema.trace.seq })
            .from(schema.trace)
            .where(eq(schema.trace.runId, step.runId))
            .orderBy(desc(schema.trace.seq))
            .limit(1)
            .get()?.seq ?? 0;
        if (lastTraceSeq.size >= traceSeqCacheSize) lastTraceSeq.clear();
      }
      // The run and the step's place in it name the step (unique, and no random id to draw per step).
      const row = { id: `${step.runId}.${last + 1}`, seq: last + 1, ...step };
      lastTraceSeq.set(step.runId, row.seq);
      return row;
    });
    for (let i = 0; i < rows.length; i += traceBatch) {
      const part = rows.slice(i, i + traceBatch);
      insertTraces(part.length).run(
        Object.fromEntries(part.flatMap((row, n) => traceColumns.map((column) => [`${column}${n}`, row[column]]))),
      );
    }
    return rows;
  }

  return {
    create(run: {
      id: string;
      sessionId: string;
      status: string;
      trigger: string;
      state: unknown;
      principal?: RunPrincipal;
    }): void {
      const now = clock.now();
      const { principal, ...rest } = run;
      insertRun.run({
        ...rest,
        principalId: principal?.id ?? null,
        principalScope: principal?.scope ?? null,
        principalName: principal?.name ?? null,
        now,
      });
      // A new run has no steps yet: its first step needs no read for the last seq.
      if (lastTraceSeq.size >= traceSeqCacheSize) lastTraceSeq.clear();
      lastTraceSeq.set(run.id, 0);
    },
    save(
      id: string,
      update: {
        status: string;
        state: unknown;
        steps: number;
        tokens: number;
        error?: string | null;
        finished?: boolean;
      },
    ): void {
      const values = {
        id,
        status: update.status,
        stateJson: JSON.stringify(update.state),
        steps: update.steps,
        tokens: update.tokens,
        error: update.error ?? null,
        now: clock.now(),
      };
      (update.finished ? saveFinished : saveOpen).run(values);
    },
    get(id: string): (RunSummary & { state: unknown }) | null {
      const row = byId.get({ id });
      return row ? withOrigin([{ ...summary(row), state: row.state }])[0]! : null;
    },
    list(limit: number): RunSummary[] {
      return withOrigin(
        db
          .select()
          .from(schema.runs)
          .orderBy(desc(schema.runs.startedAt), desc(schema.runs.updatedAt))
          .limit(limit)
          .all()
          .map(summary),
      );
    },
    /** Runs that have not reached a final state: what a restarted agent must resume. */
    active(): (RunSummary & { state: unknown })[] {
      return db
        .select()
        .from(schema.runs)
        .where(inArray(schema.runs.status, [...activeRunStatuses]))
        .orderBy(asc(schema.runs.startedAt))
        .all()
        .map((row) => ({ ...summary(row), state: row.state }));
    },
    byStatus(status: string): (RunSummary & { state: unknown })[] {
      return db
        .select()
        .from(schema.runs)
        .where(eq(schema.runs.status, status))
        .all()
        .map((row) => ({ ...summary(row), state: row.state }));
    },
    appendTrace(step: NewTraceStep): TraceStep {
      return appendTraces([step])[0]!;
    },
    appendTraces,
    trace(runId: string): TraceStep[] {
      return db
        .select()
        .from(schema.trace)
        .where(and(eq(schema.trace.runId, runId)))
        .orderBy(asc(schema.trace.seq))
        .all();
    },
  };
}

export type RunStore = ReturnType<typeof makeRunStore>;

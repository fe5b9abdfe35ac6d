import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { Clock } from "../../../core/ports";
import * as schema from "../schema";

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
    startedAt: row.startedAt,
    ...(row.finishedAt ? { finishedAt: row.finishedAt } : {}),
  };
}

/** Runs (the persisted state of every turn or behavior) and their trace, one row per step. */
export function makeRunStore(db: Db, clock: Clock) {
  /**
   * A run a bus request started is named by that request's inbox row; reading it here lets every
   * summary say which conversation asked for the run, with no column of its own to keep in step.
   */
  function withOrigin<T extends RunSummary>(rows: T[]): T[] {
    const asked = rows.filter((r) => r.trigger.startsWith("agent:")).map((r) => r.id);
    if (asked.length === 0) return rows;
    const origins = new Map(
      db.select({ runId: schema.busInbox.runId, conversationId: schema.busInbox.conversationId, from: schema.busInbox.fromAgent })
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

  // The statements of every step of every run, built once: drizzle builds a query's SQL on each call,
  // which cost as much CPU as SQLite ran them (the delegation bench's profile).
  const byId = db.select().from(schema.runs).where(eq(schema.runs.id, sql.placeholder("id"))).prepare();
  // drizzle's `set` types leave placeholders out, though it binds them (with the column's JSON mapping) like values.
  const slot = <T>(name: string) => sql.placeholder(name) as unknown as T;
  const saveAs = (finished: boolean) =>
    db
      .update(schema.runs)
      .set({
        status: slot<string>("status"),
        state: slot<unknown>("state"),
        steps: slot<number>("steps"),
        tokens: slot<number>("tokens"),
        error: slot<string | null>("error"),
        updatedAt: slot<number>("now"),
        ...(finished ? { finishedAt: slot<number>("now") } : {}),
      })
      .where(eq(schema.runs.id, sql.placeholder("id")))
      .prepare();
  const saveRunning = saveAs(false);
  const saveFinished = saveAs(true);
  // One statement per step: the next number of the run's trace is read by the insert itself.
  const traceInsert = db
    .insert(schema.trace)
    .values({
      id: sql.placeholder("id"),
      runId: sql.placeholder("runId"),
      seq: sql`(select coalesce(max(${schema.trace.seq}), 0) + 1 from ${schema.trace} where ${schema.trace.runId} = ${sql.placeholder("runId")})`,
      kind: sql.placeholder("kind"),
      name: sql.placeholder("name"),
      data: sql.placeholder("data"),
      startedAt: sql.placeholder("startedAt"),
      durationMs: sql.placeholder("durationMs"),
    })
    .returning({ seq: schema.trace.seq })
    .prepare();

  return {
    create(run: { id: string; sessionId: string; status: string; trigger: string; state: unknown }): RunSummary {
      const now = clock.now();
      return summary(db.insert(schema.runs).values({ ...run, startedAt: now, updatedAt: now }).returning().get());
    },
    save(id: string, update: { status: string; state: unknown; steps: number; tokens: number; error?: string | null; finished?: boolean }): void {
      (update.finished ? saveFinished : saveRunning).run({ id, status: update.status, state: update.state, steps: update.steps, tokens: update.tokens, error: update.error ?? null, now: clock.now() });
    },
    get(id: string): (RunSummary & { state: unknown }) | null {
      const row = byId.get({ id });
      return row ? withOrigin([{ ...summary(row), state: row.state }])[0]! : null;
    },
    list(limit: number): RunSummary[] {
      return withOrigin(db.select().from(schema.runs).orderBy(desc(schema.runs.startedAt), desc(schema.runs.updatedAt)).limit(limit).all().map(summary));
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
      return db.select().from(schema.runs).where(eq(schema.runs.status, status)).all().map((row) => ({ ...summary(row), state: row.state }));
    },
    appendTrace(step: { runId: string; kind: string; name: string; data: unknown; startedAt: number; durationMs: number }): TraceStep {
      const id = crypto.randomUUID();
      const { seq } = traceInsert.get({ id, ...step })!;
      return { id, seq, ...step };
    },
    trace(runId: string): TraceStep[] {
      return db.select().from(schema.trace).where(and(eq(schema.trace.runId, runId))).orderBy(asc(schema.trace.seq)).all();
    },
  };
}

export type RunStore = ReturnType<typeof makeRunStore>;

import { asc, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { costOf } from "../../core/models";
import { PantheonError } from "../../core/errors";
import { totalsOf, type DiffStats, type TaskReport, type TaskRun, type TaskStatus } from "../../core/work";
import type { FileStore } from "./files";
import * as schema from "./schema";

export type TaskRow = typeof schema.tasks.$inferSelect;

/** A task's diff before anything was committed. */
export const emptyDiff: DiffStats = { filesChanged: 0, insertions: 0, deletions: 0, files: [] };

/** What a task's worker run tells about itself (read from the worker agent). */
export interface WorkerRunInfo {
  runId: string;
  status: string;
  error?: string | null;
  result?: string | null;
  /** The worker's open question (a task.block call waiting for a person). */
  question?: { callId: string; text: string } | null;
  inputTokens: number;
  outputTokens: number;
  model: string | null;
}

/** How the feature reaches its workers' runs: injected, so the object holds no routing of its own. */
export type RunLookup = (worker: string, runIds: string[]) => Promise<WorkerRunInfo[]>;

/** A feature's task rows: read one (or a 404 that says which exist), change one, the board, the reports. */
export function makeTaskStore(db: DrizzleSqliteDODatabase<typeof schema>, files: FileStore) {
  const all = () => db.select().from(schema.tasks).orderBy(asc(schema.tasks.number)).all();
  return {
    all,
    get(number: number): TaskRow {
      const row = db.select().from(schema.tasks).where(eq(schema.tasks.number, number)).get();
      if (!row) {
        const count = db.select({ n: schema.tasks.number }).from(schema.tasks).all().length;
        throw new PantheonError("not_found", `task ${number} does not exist${count ? ` (tasks 1–${count})` : " (sync the tasks from the approved plan first)"}`, { details: { task: number } });
      }
      return row;
    },
    set(number: number, patch: Partial<TaskRow>): void {
      db.update(schema.tasks).set({ ...patch, updatedAt: Date.now() }).where(eq(schema.tasks.number, number)).run();
    },
    /** The board: every task in plan order with its status, diff and uncommitted files. */
    board() {
      return db
        .select({ number: schema.tasks.number, key: schema.tasks.key, name: schema.tasks.name, description: schema.tasks.description, status: schema.tasks.status, summary: schema.tasks.summary, question: schema.tasks.question, worker: schema.tasks.worker, startedAt: schema.tasks.startedAt, completedAt: schema.tasks.completedAt, diff: schema.tasks.diff })
        .from(schema.tasks)
        .orderBy(asc(schema.tasks.number))
        .all()
        .map((t) => ({ ...t, status: t.status as TaskStatus, diff: (t.diff as DiffStats | null) ?? emptyDiff, overlayFiles: files.overlayOf(t.number).length }));
    },
    /** Each task's report: status, summary, times, diff, its runs with their traces, tokens and cost. */
    async reports(lookup: RunLookup): Promise<TaskReport[]> {
      const reports: TaskReport[] = [];
      for (const t of all()) {
        const infos = t.worker && (t.runIds as string[]).length ? await lookup(t.worker, t.runIds as string[]) : [];
        const runs: TaskRun[] = infos.map((r) => ({ runId: r.runId, status: r.status, trace: `/api/agents/${t.worker}/runs/${r.runId}`, inputTokens: r.inputTokens, outputTokens: r.outputTokens, costUsd: r.model ? costOf(r.model, r) : null }));
        reports.push({ number: t.number, name: t.name, status: t.status as TaskStatus, summary: t.summary, startedAt: t.startedAt, completedAt: t.completedAt, diff: (t.diff as DiffStats | null) ?? emptyDiff, runs, ...totalsOf(runs) });
      }
      return reports;
    },
  };
}

export type TaskStore = ReturnType<typeof makeTaskStore>;

import { asc, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../core/errors";
import {
  pricedRun,
  totalsOf,
  workerNameOf,
  type DiffStats,
  type ModelUsage,
  type TaskCommit,
  type TaskReport,
  type TaskRun,
  type TaskStatus,
} from "../../core/work";
import type { FileStore } from "./files";
import * as schema from "./schema";

export type TaskRow = typeof schema.tasks.$inferSelect;

/** A task as a caller names it: its number on the board today, or its stable key (which a re-sync that renumbers keeps). */
export type TaskRef = number | string;

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
  /** The model the run asked for. */
  model: string | null;
  /** The models that answered, with their tokens (absent on runs recorded before: priced by `model`). */
  models?: ModelUsage[];
}

/** How the feature reaches its workers' runs: injected, so the object holds no routing of its own. */
export type RunLookup = (worker: string, runIds: string[]) => Promise<WorkerRunInfo[]>;

/** A run as the report prices it: by the models that answered it. */
export function runOf(worker: string, r: WorkerRunInfo): TaskRun {
  const models =
    r.models ?? (r.model ? [{ model: r.model, inputTokens: r.inputTokens, outputTokens: r.outputTokens }] : []);
  return pricedRun({ runId: r.runId, status: r.status, trace: `/api/agents/${worker}/runs/${r.runId}`, models });
}

/** A feature's task rows: read one (or a 404 that says which exist), change one, the board, the reports. */
export function makeTaskStore(db: DrizzleSqliteDODatabase<typeof schema>, files: FileStore) {
  const all = () => db.select().from(schema.tasks).orderBy(asc(schema.tasks.number)).all();
  /** A task's report: status, summary, times, diff, question and answer, commits, its runs priced. */
  async function reportOf(t: TaskRow, lookup: RunLookup): Promise<TaskReport> {
    const infos = t.worker && (t.runIds as string[]).length ? await lookup(t.worker, t.runIds as string[]) : [];
    const runs = infos.map((r) => runOf(t.worker!, r));
    const commits = (t as { commits?: unknown }).commits;
    return {
      number: t.number,
      key: t.key,
      name: t.name,
      status: t.status as TaskStatus,
      summary: t.summary,
      startedAt: t.startedAt,
      completedAt: t.completedAt,
      diff: (t.diff as DiffStats | null) ?? emptyDiff,
      question: t.question,
      answer: t.answer,
      answeredBy: t.answeredBy,
      // The repository part records commits on the task; shown when there are some.
      commits: Array.isArray(commits) ? (commits as TaskCommit[]) : [],
      runs,
      ...totalsOf(runs),
    };
  }
  return {
    all,
    get(ref: TaskRef): TaskRow {
      const byKey = typeof ref === "string" && !/^\d+$/.test(ref);
      const row = byKey
        ? db.select().from(schema.tasks).where(eq(schema.tasks.key, ref)).get()
        : db
            .select()
            .from(schema.tasks)
            .where(eq(schema.tasks.number, Number(ref)))
            .get();
      if (!row) {
        const count = db.select({ n: schema.tasks.number }).from(schema.tasks).all().length;
        const what = byKey ? `task '${ref}'` : `task ${ref}`;
        throw new PantheonError(
          "not_found",
          `${what} does not exist${count ? ` (tasks 1–${count})` : " (sync the tasks from the approved plan first)"}`,
          { details: { task: ref } },
        );
      }
      return row;
    },
    set(number: number, patch: Partial<TaskRow>): void {
      db.update(schema.tasks)
        .set({ ...patch, updatedAt: Date.now() })
        .where(eq(schema.tasks.number, number))
        .run();
    },
    /** The board: every task in plan order with its status, diff, uncommitted files, what it waits for and where it came from. */
    board() {
      const rows = all();
      const numberOf = new Map(rows.map((t) => [t.key, t.number]));
      return rows.map((t) => ({
        number: t.number,
        key: t.key,
        name: t.name,
        description: t.description,
        status: t.status as TaskStatus,
        summary: t.summary,
        question: t.question,
        worker: t.worker,
        startedAt: t.startedAt,
        completedAt: t.completedAt,
        diff: (t.diff as DiffStats | null) ?? emptyDiff,
        overlayFiles: files.overlayOf(t.number).length,
        dependsOn: (t.dependsOn as string[]).flatMap((k) => (numberOf.has(k) ? [numberOf.get(k)!] : [])),
        origin: t.origin,
        planVersion: t.planVersion,
      }));
    },
    reportOf,
    /** The numbers of the tasks with these keys today (a key the plan dropped is left out). */
    numbersOf(keys: readonly string[]): number[] {
      if (keys.length === 0) return [];
      const numberOf = new Map(
        db
          .select({ key: schema.tasks.key, number: schema.tasks.number })
          .from(schema.tasks)
          .all()
          .map((t) => [t.key, t.number]),
      );
      return keys.flatMap((k) => (numberOf.has(k) ? [numberOf.get(k)!] : []));
    },
    /** A worker's name from the task's number when first started, unless a task numbered so before a re-sync (or since removed) has it. */
    freeWorkerName(feature: string, t: TaskRow, removed: readonly TaskRow[]): string {
      const taken = new Set([...all(), ...removed].filter((x) => x.key !== t.key && x.worker).map((x) => x.worker!));
      for (let n = 1; ; n += 1) {
        const name = n === 1 ? workerNameOf(feature, t.number) : `${workerNameOf(feature, t.number)}-${n}`;
        if (!taken.has(name)) return name;
      }
    },
    /** Each task's report, in plan order. */
    async reports(lookup: RunLookup): Promise<TaskReport[]> {
      const reports: TaskReport[] = [];
      for (const t of all()) reports.push(await reportOf(t, lookup));
      return reports;
    },
  };
}

export type TaskStore = ReturnType<typeof makeTaskStore>;

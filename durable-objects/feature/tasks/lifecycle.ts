import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError, resultOf } from "../../../core/errors";
import {
  assertTaskMove,
  authorizeWork,
  buildTaskSpec,
  withAction,
  type Principal,
  type TaskSpec,
  type TaskStatus,
  type WorkerTemplate,
} from "../../../core/work";
import type { FileStore } from "../files";
import type { PlanStore } from "../plan-store";
import { signatureOf } from "../repo/commit-task";
import type { FeatureGit } from "../repo/feature-git";
import { reconcileTasks, type Runner } from "../runner";
import * as schema from "../schema";
import { applyTaskSync } from "../sync-store";
import type { RunLookup, TaskRef, TaskRow, TaskStore } from "../task-store";

type FeatureRow = typeof schema.feature.$inferSelect;

/**
 * A task's life in its feature: synced from the approved plan, started (its spec built, its worker
 * named), blocked on a question and answered, reported, ended with its worker's run; the feature is
 * done once every task is. Each step checks who asks (core/work ownership) and throws a
 * PantheonError; FeatureDO turns it into the RPC's `Result`.
 */
export function makeTaskLifecycle(deps: {
  db: DrizzleSqliteDODatabase<typeof schema>;
  storage: DurableObjectState["storage"];
  plans: PlanStore;
  files: FileStore;
  taskRows: TaskStore;
  git: FeatureGit;
  runner: Runner;
  row: () => FeatureRow;
  touch: (patch?: Partial<FeatureRow>) => void;
}) {
  const { db, storage, plans, files, taskRows, git, runner, row, touch } = deps;

  function finishTask(t: TaskRow, status: TaskStatus, summary: string | null): void {
    if (t.status === status) return;
    assertTaskMove({ number: t.number, status: t.status as TaskStatus }, status);
    taskRows.set(t.number, {
      status,
      ...(summary !== null ? { summary } : {}),
      completedAt: status === "blocked" ? null : Date.now(),
    });
    settleFeature();
  }

  /** The feature is done once every task is done or cancelled. */
  function settleFeature(): void {
    const statuses = db
      .select({ status: schema.tasks.status })
      .from(schema.tasks)
      .all()
      .map((t) => t.status);
    const f = row();
    if (statuses.length > 0 && statuses.every((s) => s === "done" || s === "cancelled")) {
      // Every task settled: run-all has nothing left to start.
      if (f.status !== "done") touch({ status: "done", completedAt: Date.now(), runAll: null, stopped: null });
    } else if (f.status === "done") touch({ status: "in_progress", completedAt: null });
  }

  /** A worker's run ended (told by the worker, or found by a reconcile): a task still in progress is settled from it. */
  async function workerRunEnded(
    ref: TaskRef,
    run: { runId: string; status: string; error?: string | null; result?: string | null },
  ): Promise<TaskStatus> {
    let t = taskRows.get(ref);
    const number = t.number;
    const runIds = t.runIds as string[];
    // A run that ended before its start was recorded (a quick model) is this attempt's: record it now.
    if (!runIds.includes(run.runId) && t.status === "in_progress" && runIds.length < t.attempts) {
      taskRows.set(number, { runIds: [...runIds, run.runId] });
      t = taskRows.get(number);
    }
    if (!(t.runIds as string[]).includes(run.runId) || t.status !== "in_progress") return t.status as TaskStatus;
    // The pause stopped this run: the task stays in progress, and resume starts it again.
    if (run.status === "cancelled" && row().paused) return t.status as TaskStatus;
    if (run.status === "failed" || run.status === "cancelled")
      finishTask(t, "failed", `the worker's run ${run.status}: ${run.error ?? "no reason given"}`);
    // Finished without committing: the work waits in the overlay for a person to commit or discard.
    else if (run.status === "completed")
      finishTask(
        t,
        "partial",
        run.result ? `the worker finished without committing: ${run.result}` : "the worker finished without committing",
      );
    await runner.poke();
    return taskRows.get(number).status as TaskStatus;
  }

  /** Finds what a worker did that the feature was not told of (a waiting question, an ended run). */
  function reconcile(lookup: RunLookup): Promise<void> {
    return reconcileTasks(taskRows, lookup, (ref, info) => resultOf(() => workerRunEnded(ref, info)));
  }

  return {
    /** Syncs tasks to the approved plan's task list (the orchestrator only): additive, orphans removed, unchanged tasks keep their status. */
    syncTasks(by: Principal) {
      const f = row();
      authorizeWork("tasks.sync", by, { orchestrator: f.orchestrator });
      const plan = plans.latest();
      if (!plan || plan.approvedAt === null)
        throw new PantheonError(
          "conflict",
          plan
            ? `plan version ${plan.version} is not approved yet: a person approves it first`
            : "the feature has no plan yet",
        );
      const now = Date.now();
      const sync = storage.transactionSync(() => {
        const { sync, removedRows } = applyTaskSync(db, files, plan, now);
        if (removedRows.length)
          touch({
            removedTasks: [
              ...(f.removedTasks as TaskRow[]).filter((r) => !removedRows.some((x) => x.key === r.key)),
              ...removedRows,
            ],
          });
        if (f.status === "approved" && sync.tasks.length > 0) touch({ status: "in_progress" });
        else touch();
        return sync;
      });
      return {
        added: sync.added,
        changed: sync.changed,
        kept: sync.kept,
        removed: sync.removed,
        tasks: taskRows.board(),
      };
    },

    /**
     * Starts a task (orchestrator or admin): in progress, its spec generated and stored, its worker
     * named. Starting a task that is in progress but has no run yet (the caller was cut off) answers
     * the same spec again, so the caller can finish what it began.
     */
    async beginTask(ref: TaskRef, by: Principal, options: { restart?: boolean } = {}) {
      // Authorized (and not paused) before anything is written; then the task's branch is made from the feature branch (repo/).
      authorizeWork("task.start", by, { orchestrator: row().orchestrator });
      runner.assertRunning("starting a task");
      await git.ensure(() => files.everything(), signatureOf(by, Date.now()));
      await git.ensureBranch(taskRows.get(ref).key);
      const f = row();
      const plan = plans.latest();
      if (!plan?.approvedAt)
        throw new PantheonError("conflict", "the plan is not approved: tasks start only from an approved plan");
      const t = taskRows.get(ref);
      const number = t.number;
      const worker = t.worker ?? taskRows.freeWorkerName(f.name, t, f.removedTasks as TaskRow[]);
      const runIds = t.runIds as string[];
      // Started, but no run recorded: the caller was cut off; it finishes the same attempt.
      if (t.status === "in_progress" && runIds.length < t.attempts && t.spec) {
        return {
          task: number,
          key: t.key,
          worker,
          spec: t.spec as TaskSpec,
          template: f.workerTemplate as WorkerTemplate,
          orchestrator: f.orchestrator,
          attempt: t.attempts,
        };
      }
      // A task whose run a pause stopped starts again in progress (its uncommitted work is kept).
      if (!(options.restart && t.status === "in_progress"))
        assertTaskMove({ number, status: t.status as TaskStatus }, "in_progress");
      const all = taskRows.all();
      const spec = buildTaskSpec({
        feature: { name: f.name, title: f.title },
        task: { number, name: t.name, description: t.description },
        tasks: all.map((x) => ({ number: x.number, name: x.name, status: x.status as TaskStatus, summary: x.summary })),
        contextFiles: files.matching(f.contextFiles as string[]),
      });
      const now = Date.now();
      const attempt = t.attempts + 1;
      taskRows.set(number, {
        status: "in_progress",
        spec,
        worker,
        attempts: attempt,
        startedAt: t.startedAt ?? now,
        completedAt: null,
        question: null,
        answer: null,
        answeredBy: null,
        ...withAction(t.actions, "start", by, now),
      });
      if (f.status === "approved") touch({ status: "in_progress" });
      return {
        task: number,
        key: t.key,
        worker,
        spec,
        template: f.workerTemplate as WorkerTemplate,
        orchestrator: f.orchestrator,
        attempt,
      };
    },

    /** The worker's run for a task started (at most once per attempt: a repeated record is a no-op). */
    recordRun(ref: TaskRef, runId: string) {
      const t = taskRows.get(ref);
      const runIds = t.runIds as string[];
      if (!runIds.includes(runId)) taskRows.set(t.number, { runIds: [...runIds, runId] });
      return true as const;
    },

    /** The worker asks a person (its task.block call waits for an answer): the task is blocked with the question. */
    async markBlocked(ref: TaskRef, question: string, by: Principal) {
      const f = row();
      const t = taskRows.get(ref);
      authorizeWork("task.block", by, { orchestrator: f.orchestrator, worker: t.worker });
      if (t.status === "blocked" && t.question === question) return true as const;
      assertTaskMove({ number: t.number, status: t.status as TaskStatus }, "blocked");
      taskRows.set(t.number, { status: "blocked", question, answer: null, answeredBy: null });
      await runner.poke();
      return true as const;
    },

    /**
     * A person (approve scope) answers a blocked task's question: the task is in progress again, and
     * the caller resumes the worker's waiting run with the answer. Answering again the same way is a
     * no-op that answers the same (a retried request).
     */
    answerTask(ref: TaskRef, answer: string, by: Principal) {
      const f = row();
      const t = taskRows.get(ref);
      const number = t.number;
      authorizeWork("task.answer", by, { orchestrator: f.orchestrator, worker: t.worker });
      const runId = (t.runIds as string[]).at(-1) ?? null;
      if (t.status === "in_progress" && t.answer === answer)
        return { task: number, key: t.key, worker: t.worker!, runId, question: t.question };
      if (t.status !== "blocked")
        throw new PantheonError("conflict", `task ${number} is ${t.status}: only a blocked task takes an answer`, {
          details: { task: number, status: t.status },
        });
      runner.assertRunning("answering a task");
      taskRows.set(number, {
        status: "in_progress",
        answer,
        answeredBy: by.kind === "person" ? by.id : by.name,
        ...withAction(t.actions, "answer", by, Date.now()),
      });
      return { task: number, key: t.key, worker: t.worker!, runId, question: t.question };
    },

    /** What the worker's task.block call returns once a person answered. */
    answerOf(ref: TaskRef, by: Principal) {
      const f = row();
      const t = taskRows.get(ref);
      authorizeWork("task.block", by, { orchestrator: f.orchestrator, worker: t.worker });
      return { question: t.question, answer: t.answer, by: t.answeredBy };
    },

    /** The worker sets its own task's status and summary (done, partial or failed). */
    async reportTask(ref: TaskRef, report: { status: "done" | "partial" | "failed"; summary: string }, by: Principal) {
      const f = row();
      const t = taskRows.get(ref);
      authorizeWork("task.report", by, { orchestrator: f.orchestrator, worker: t.worker });
      finishTask(t, report.status, report.summary);
      await runner.poke();
      return true as const;
    },

    finishTask,
    workerRunEnded,
    reconcile,
  };
}

export type TaskLifecycle = ReturnType<typeof makeTaskLifecycle>;

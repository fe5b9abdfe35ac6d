import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../core/errors";
import { actorOf, nextStep, type Principal, type TaskStatus } from "../../core/work";
import type { RunLookup, TaskStore, WorkerRunInfo } from "./task-store";
import * as schema from "./schema";

type FeatureRow = typeof schema.feature.$inferSelect;

/** Who started run-all, kept on the feature so an alarm after an eviction starts tasks in their name. */
export interface RunAllState {
  by: Principal;
  at: number;
}

/** Why run-all stopped: what the person reads on the feature and in its `needsPerson` count. */
export interface Stopped {
  reason: string;
  task: number | null;
  key: string | null;
  at: number;
}

/** How the runner starts a task: the same path as a person's Start (feature, worker agent, its run). */
export type StartTask = (project: string, feature: string, key: string, by: Principal) => Promise<unknown>;

/** How often a running feature looks at its running task when no worker told it anything (a lost notice). */
export const runnerHeartbeatMs = 60_000;

/**
 * Run-all and the pause switch of one feature: tasks one after another (core/work nextStep), the
 * feature told as each worker ends (the object's alarm is armed at once), durable across evictions
 * (the state is in SQLite and the alarm is the storage's own), and a pause that refuses writes.
 * Each decision reads the board afresh, so a repeated alarm cannot start a task twice: a started
 * task is in progress, and the next decision waits on it.
 */
export function makeRunner(deps: {
  storage: DurableObjectState["storage"];
  db: DrizzleSqliteDODatabase<typeof schema>;
  tasks: TaskStore;
  row: () => FeatureRow;
  touch: (patch?: Partial<FeatureRow>) => void;
}) {
  const { storage, db, tasks } = deps;

  /** Wakes the runner now (a worker ended, a task was answered, run-all or resume began). */
  async function poke(delayMs = 0): Promise<void> {
    const f = deps.row();
    if (!f.runAll || f.paused) return;
    const at = Date.now() + delayMs;
    const current = await storage.getAlarm();
    if (current === null || current > at) await storage.setAlarm(at);
  }

  const sequenced = () =>
    tasks.all().map((t) => ({
      number: t.number,
      key: t.key,
      status: t.status as TaskStatus,
      dependsOn: t.dependsOn as string[],
    }));

  return {
    poke,

    /** Refuses a write while the feature is paused (409 naming the way out). */
    assertRunning(what: string): void {
      if (deps.row().paused)
        throw new PantheonError(
          "conflict",
          `the feature is paused: ${what} is refused until a person resumes it (POST …/resume, pantheon tasks resume)`,
          { details: { paused: true } },
        );
    },

    /** Starts run-all (a person who may start tasks): from here each task starts when the one before it ends. */
    async start(
      project: string,
      by: Principal,
    ): Promise<{ runAll: true; next: { task: number; key: string } | null; reason?: string }> {
      const f = deps.row();
      const plan = db.select({ approvedAt: schema.planVersions.approvedAt }).from(schema.planVersions).all().at(-1);
      if (!plan?.approvedAt)
        throw new PantheonError("conflict", "the plan is not approved: run-all starts only from an approved plan");
      if (tasks.all().length === 0)
        throw new PantheonError("conflict", "the feature has no tasks yet: sync them from the approved plan first");
      if (f.paused)
        throw new PantheonError("conflict", "the feature is paused: resume it first (POST …/resume)", {
          details: { paused: true },
        });
      const state: RunAllState = { by, at: Date.now() };
      deps.touch({ runAll: state, stopped: null, project });
      const step = nextStep(sequenced());
      await poke();
      if (step.kind === "start" || step.kind === "wait")
        return { runAll: true, next: { task: step.task.number, key: step.task.key } };
      return { runAll: true, next: null, ...(step.kind === "stop" ? { reason: step.reason } : {}) };
    },

    /**
     * One decision (the alarm's): start the next task, wait on the running one, or stop and tell the
     * person. Answers the keys it started.
     */
    async tick(startTask: StartTask): Promise<string[]> {
      const f = deps.row();
      const state = f.runAll as RunAllState | null;
      if (!state || f.paused || !f.project) return [];
      const step = nextStep(sequenced());
      if (step.kind === "finished") {
        deps.touch({ runAll: null, stopped: null });
        return [];
      }
      if (step.kind === "stop") {
        deps.touch({
          runAll: null,
          stopped: {
            reason: step.reason,
            task: step.task?.number ?? null,
            key: step.task?.key ?? null,
            at: Date.now(),
          } satisfies Stopped,
        });
        return [];
      }
      if (step.kind === "wait") {
        await poke(runnerHeartbeatMs);
        return [];
      }
      try {
        await startTask(f.project, f.name, step.task.key, state.by);
      } catch (error) {
        // A start that cannot happen (the worker cannot be made, the principal lost its rights) stops the run for a person.
        const message = error instanceof Error ? error.message : String(error);
        deps.touch({
          runAll: null,
          stopped: {
            reason: `task ${step.task.number} (${step.task.key}) could not start: ${message}`,
            task: step.task.number,
            key: step.task.key,
            at: Date.now(),
          } satisfies Stopped,
        });
        return [];
      }
      await poke(runnerHeartbeatMs);
      return [step.task.key];
    },

    /** The pause switch: writes are refused; answers the running tasks, whose workers' runs the caller stops. */
    pause(): { paused: true; running: { task: number; key: string; worker: string; runId: string }[] } {
      deps.touch({ paused: true });
      const running = tasks
        .all()
        .filter((t) => t.status === "in_progress" && t.worker && (t.runIds as string[]).length > 0);
      return {
        paused: true,
        running: running.map((t) => ({
          task: t.number,
          key: t.key,
          worker: t.worker!,
          runId: (t.runIds as string[]).at(-1)!,
        })),
      };
    },

    /** Off again: answers the tasks that were running (the caller starts again those whose run was stopped) and wakes run-all. */
    async resume(): Promise<{
      paused: false;
      running: { task: number; key: string; worker: string; runId: string }[];
    }> {
      deps.touch({ paused: false });
      await poke();
      const running = tasks
        .all()
        .filter((t) => t.status === "in_progress" && t.worker && (t.runIds as string[]).length > 0);
      return {
        paused: false,
        running: running.map((t) => ({
          task: t.number,
          key: t.key,
          worker: t.worker!,
          runId: (t.runIds as string[]).at(-1)!,
        })),
      };
    },

    /** What the summary shows: paused, run-all on, why it stopped, how many things wait for a person. */
    view(f: FeatureRow) {
      const rows = db.select({ status: schema.tasks.status }).from(schema.tasks).all();
      const questions = (f.questions as { answer: string | null }[]).filter((q) => q.answer === null).length;
      const stuck = rows.filter(
        (t) => t.status === "blocked" || t.status === "failed" || t.status === "partial",
      ).length;
      const plan = db.select({ approvedAt: schema.planVersions.approvedAt }).from(schema.planVersions).all().at(-1);
      const unapproved = plan && plan.approvedAt === null ? 1 : 0;
      return {
        paused: f.paused,
        runAll: f.runAll ? { by: actorOf((f.runAll as RunAllState).by), at: (f.runAll as RunAllState).at } : null,
        stopped: (f.stopped as Stopped | null) ?? null,
        completedAt: f.completedAt,
        needsPerson: questions + stuck + unapproved,
      };
    },
  };
}

export type Runner = ReturnType<typeof makeRunner>;

/**
 * Settles running tasks from their workers' runs when the feature was not told (a lost notice): a
 * question waiting for a person blocks the task, an ended run settles it.
 */
export async function reconcileTasks(
  tasks: TaskStore,
  lookup: RunLookup,
  ended: (ref: number, info: WorkerRunInfo) => Promise<unknown>,
): Promise<void> {
  const running = tasks
    .all()
    .filter(
      (t) => (t.status === "in_progress" || t.status === "blocked") && t.worker && (t.runIds as string[]).length > 0,
    );
  for (const t of running) {
    const runId = (t.runIds as string[]).at(-1)!;
    const [info] = await lookup(t.worker!, [runId]);
    if (!info) continue;
    const fresh = tasks.get(t.number);
    if (fresh.status === "in_progress" && info.question && !fresh.answer)
      tasks.set(t.number, { status: "blocked", question: info.question.text });
    else if (["completed", "failed", "cancelled"].includes(info.status)) await ended(t.number, info);
  }
}

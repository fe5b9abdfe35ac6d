import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../core/errors";
import {
  checkPath,
  type FeatureCreate,
  type FeaturePatch,
  type FeatureStatus,
  type WorkerTemplate,
} from "../../core/work";
import type { FileStore } from "./files";
import type { PlanStore } from "./plan-store";
import { signatureOf } from "./repo/commit-task";
import type { FeatureGit } from "./repo/feature-git";
import type { Runner } from "./runner";
import * as schema from "./schema";

type FeatureRow = typeof schema.feature.$inferSelect;

/**
 * The feature's own row (id 1): created once (with its seed files and first commit), described,
 * changed by the operator, its sessions noted, and every table emptied when the feature is deleted.
 * Errors are PantheonErrors; FeatureDO turns them into the RPC's `Result`.
 */
export function makeFeatureRecord(deps: {
  db: DrizzleSqliteDODatabase<typeof schema>;
  storage: DurableObjectState["storage"];
  plans: PlanStore;
  files: FileStore;
  git: FeatureGit;
  /** The run-all state as the feature's description shows it (the runner is made after this record). */
  runAllView: (f: FeatureRow) => ReturnType<Runner["view"]>;
}) {
  const { db, storage, plans, files, git } = deps;

  function row(): FeatureRow {
    const row = db.select().from(schema.feature).where(eq(schema.feature.id, 1)).get();
    if (!row) throw new PantheonError("not_found", "this feature does not exist");
    return row;
  }

  function touch(patch: Partial<FeatureRow> = {}): void {
    db.update(schema.feature)
      .set({ ...patch, updatedAt: Date.now() })
      .where(eq(schema.feature.id, 1))
      .run();
  }

  /** Name, title, status, orchestrator, sessions, the plan's version and approval, task counts. */
  function describe() {
    const f = row();
    const plan = plans.latest();
    const tasks = db.select({ status: schema.tasks.status }).from(schema.tasks).all();
    const byStatus: Record<string, number> = {};
    for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
    return {
      name: f.name,
      title: f.title,
      status: f.status as FeatureStatus,
      orchestrator: f.orchestrator,
      createdAt: f.createdAt,
      updatedAt: f.updatedAt,
      sessions: f.sessions as { agent: string; sessionId: string; at: number }[],
      contextFiles: f.contextFiles as string[],
      worker: f.workerTemplate as WorkerTemplate,
      plan: plan
        ? {
            version: plan.version,
            approved: plan.approvedAt !== null,
            approvedBy: plan.approvedBy,
            approvedAt: plan.approvedAt,
          }
        : null,
      tasks: { total: tasks.length, byStatus },
      /** The feature's own database (plan versions, comments, tasks, files, overlays). */
      storageBytes: storage.sql.databaseSize,
      ...deps.runAllView(f),
    };
  }

  return {
    row,
    touch,
    describe,

    async create(input: FeatureCreate, project?: string) {
      if (db.select({ id: schema.feature.id }).from(schema.feature).get())
        throw new PantheonError("conflict", `feature '${input.name}' already exists`, {
          details: { feature: input.name },
        });
      const now = Date.now();
      const seeded = Object.entries(input.files ?? {}).map(([path, content], i) => ({
        path: checkPath(path, `files.${i}`),
        content,
      }));
      storage.transactionSync(() => {
        db.insert(schema.feature)
          .values({
            id: 1,
            name: input.name,
            title: input.title,
            status: "planning",
            orchestrator: input.orchestrator,
            workerTemplate: input.worker,
            contextFiles: input.contextFiles,
            sessions: [],
            createdAt: now,
            updatedAt: now,
            project: project ?? null,
            maxQuestions: input.maxQuestions,
          })
          .run();
        files.seed(seeded, now);
      });
      // An imported feature's repository comes from its remote (repo().importFrom); any other starts with an initial commit.
      if (!input.repository)
        await git.ensure(() => files.everything(), signatureOf({ kind: "agent", name: "pantheon" }, now));
      return describe();
    },

    /** The operator changes the title, the worker template or the context files (admin, checked by the route). */
    update(patch: FeaturePatch) {
      row();
      touch({
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.worker !== undefined ? { workerTemplate: patch.worker } : {}),
        ...(patch.contextFiles !== undefined ? { contextFiles: patch.contextFiles } : {}),
        ...(patch.maxQuestions !== undefined ? { maxQuestions: patch.maxQuestions } : {}),
      });
      return describe();
    },

    /** Records that a session (an agent's run) worked on the feature; the orchestrator's runs count in the report. */
    noteSession(agent: string, sessionId: string, runId?: string) {
      const f = row();
      const sessions = f.sessions as { agent: string; sessionId: string; at: number }[];
      if (!sessions.some((s) => s.agent === agent && s.sessionId === sessionId))
        touch({ sessions: [...sessions, { agent, sessionId, at: Date.now() }] });
      const planner = f.plannerRuns as { runId: string }[];
      if (runId && agent === f.orchestrator && !planner.some((r) => r.runId === runId))
        touch({ plannerRuns: [...planner, { runId }] });
      return true as const;
    },

    /** Removes every row: the feature was deleted (the schema stays, so the object answers "does not exist", and a feature of the same name starts empty). */
    async destroy(): Promise<void> {
      await storage.deleteAlarm();
      storage.transactionSync(() => {
        for (const table of [
          schema.feature,
          schema.planVersions,
          schema.planComments,
          schema.tasks,
          schema.files,
          schema.tombstones,
          schema.overlays,
          schema.commits,
          schema.gitFiles,
          schema.repoState,
          schema.taskBranches,
          schema.pushes,
        ])
          db.delete(table).run();
      });
    },
  };
}

export type FeatureRecord = ReturnType<typeof makeFeatureRecord>;

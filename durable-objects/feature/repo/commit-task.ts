import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../../core/errors";
import {
  actorOf,
  diffStats,
  withAction,
  type DiffStats,
  type FileConflict,
  type Principal,
  type TaskStatus,
} from "../../../core/work";
import type { FileStore } from "../files";
import type { TaskRow, TaskStore } from "../task-store";
import { emptyDiff } from "../task-store";
import * as schema from "../schema";
import type { FeatureGit } from "./feature-git";
import type { Signature } from "./repository";

/** What a commit answers, stored by its key so a retried commit answers the same. */
export interface CommitOutcome {
  committed: boolean;
  conflicts: string[];
  diff: DiffStats;
  status: TaskStatus;
  /** The task's commit on its branch, and the merge commit on the feature branch. */
  commit?: string;
  merge?: string;
  /** A conflict: each file's three versions and the marked file now in the task's working tree. */
  conflict?: { files: FileConflict[] };
  hint?: string;
}

export interface CommitDeps {
  db: DrizzleSqliteDODatabase<typeof schema>;
  transact: <T>(fn: () => T) => T;
  files: FileStore;
  taskRows: TaskStore;
  git: FeatureGit;
  feature: { name: string };
  finishTask(t: TaskRow, status: TaskStatus, summary: string | null): void;
  clock: () => number;
  /** Tests only: runs after the objects are written and before any ref moves (an eviction there). */
  beforeRefMove?: () => void;
}

/** A commit's author: the worker agent, or the person whose token asked. */
export const signatureOf = (by: Principal, at: number): Signature => ({
  name: actorOf(by),
  email: `${actorOf(by).replace(/[^A-Za-z0-9._-]/g, "-")}@${by.kind === "agent" ? "agents" : "people"}.pantheon.invalid`,
  at,
});

/** The message of a task's commit: its summary, then trailers naming feature, task and run. */
export function commitMessage(input: { summary: string; feature: string; task: TaskRow }): string {
  const run = (input.task.runIds as string[]).at(-1);
  return `${input.summary.trim() || `Task ${input.task.number}: ${input.task.name}`}\n\nFeature: ${input.feature}\nTask: ${input.task.number} (${input.task.key})${run ? `\nRun: ${run}` : ""}\n`;
}

/**
 * Commits a task's working tree on its branch and merges it into the feature branch, once per `key`.
 * The objects are written first; the refs, the files table, the overlay, the task and the commit's
 * record change last in one transaction. A conflict keeps the task's work committed on its branch,
 * puts the marked merge in its working tree, and answers both sides: its worker resolves by writing
 * and committing again (the task stays in progress); a person's commit blocks the task until
 * someone resolves it (…/resolve).
 */
export async function commitTask(
  deps: CommitDeps,
  t: TaskRow,
  input: { key: string; summary?: string; status?: "done" | "partial" },
  by: Principal,
): Promise<CommitOutcome> {
  const pendingConflict = deps.git.conflictOf(t.key);
  if (!["in_progress", "partial"].includes(t.status) && !(t.status === "blocked" && pendingConflict)) {
    throw new PantheonError(
      "conflict",
      `task ${t.number} is ${t.status}: only a task in progress (or partial) is committed`,
      { details: { task: t.number, status: t.status } },
    );
  }
  const overlay = deps.files.overlayOf(t.number);
  const now = deps.clock();
  const summary = input.summary ?? t.summary ?? "";
  const base = await deps.git.worktreeBase(t.key);
  const before = new Map<string, string>();
  for (const c of overlay) {
    const text = await deps.git.readAt(base, c.path);
    if (text !== undefined) before.set(c.path, text);
  }
  const plan = await deps.git.commit({
    taskKey: t.key,
    overlay,
    message: commitMessage({ summary, feature: deps.feature.name, task: t }),
    mergeMessage: `Merge task ${t.number}: ${t.name}\n\nFeature: ${deps.feature.name}\nTask: ${t.number} (${t.key})\n`,
    author: signatureOf(by, now),
  });
  deps.beforeRefMove?.();
  return deps.transact(() => {
    const again = deps.db.select().from(schema.commits).where(eq(schema.commits.key, input.key)).get();
    if (again) return again.outcome as CommitOutcome;
    let outcome: CommitOutcome;
    const fresh = deps.taskRows.get(t.number);
    deps.git.settleCommit(t.key, plan);
    if (plan.kind === "conflict") {
      const paths = plan.conflict.files.map((f) => f.path);
      deps.files.replaceOverlay(t.number, plan.worktree, now);
      const hint = `the merge into the feature branch conflicted in ${paths.join(", ")}: your copy now holds each file with conflict markers; read it, write it as it should be, then call task.commit again`;
      const blocked = by.kind === "person";
      deps.taskRows.set(t.number, {
        ...(blocked
          ? {
              status: "blocked",
              question: `commit conflicted in ${paths.join(", ")}: resolve it (POST …/tasks/${t.number}/resolve with each file's content), or discard the task`,
              answer: null,
              answeredBy: null,
            }
          : {}),
        ...withAction(fresh.actions, "commit", by, now),
      });
      outcome = {
        committed: false,
        conflicts: paths,
        diff: (fresh.diff as DiffStats | null) ?? emptyDiff,
        status: blocked ? "blocked" : (fresh.status as TaskStatus),
        commit: plan.taskCommit,
        conflict: { files: plan.conflict.files },
        hint,
      };
    } else {
      const diff = overlay.length ? diffStats(overlay, before) : ((fresh.diff as DiffStats | null) ?? emptyDiff);
      if (plan.kind === "merged")
        deps.files.apply(
          t.number,
          plan.featureChanges.map((c) => ({ ...c, baseVersion: 0 })),
          now,
        );
      else deps.files.drop(t.number);
      const status = input.status ?? "done";
      if (fresh.status === "blocked") deps.taskRows.set(t.number, { status: "in_progress", question: null });
      deps.taskRows.set(t.number, { diff, ...withAction(fresh.actions, "commit", by, now) });
      const current = deps.taskRows.get(t.number);
      if (current.status === "partial" && status === "partial")
        deps.taskRows.set(t.number, { summary: input.summary ?? current.summary });
      else deps.finishTask({ ...current, diff }, status, input.summary ?? current.summary);
      outcome = {
        committed: true,
        conflicts: [],
        diff,
        status,
        ...(plan.kind === "merged" ? { commit: plan.taskCommit, merge: plan.mergeCommit } : {}),
      };
    }
    deps.db.insert(schema.commits).values({ key: input.key, task: t.number, outcome, at: now }).run();
    return outcome;
  });
}

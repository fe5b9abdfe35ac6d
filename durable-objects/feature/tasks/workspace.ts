import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../../core/errors";
import { authorizeWork, diffStats, unifiedDiff, withAction, type Principal, type TaskStatus } from "../../../core/work";
import type { FetchFn } from "../../../core/tools";
import type { FileStore } from "../files";
import { commitTask, type CommitOutcome } from "../repo/commit-task";
import type { FeatureGit } from "../repo/feature-git";
import { FeatureRepoApi } from "../repo/repo-api";
import type { makeWorktrees } from "../repo/worktree";
import type { Runner } from "../runner";
import * as schema from "../schema";
import { emptyDiff, type TaskRef, type TaskRow, type TaskStore } from "../task-store";

type FeatureRow = typeof schema.feature.$inferSelect;

/**
 * A task's workspace: its files as it sees them (its overlay over the feature branch), its writes,
 * commits (repo/commit-task.ts), discard, and the repository's routes (repo/repo-api.ts). Each call
 * checks who asks and throws a PantheonError; FeatureDO turns it into the RPC's `Result`.
 */
export function makeTaskWorkspace(deps: {
  env: Env;
  db: DrizzleSqliteDODatabase<typeof schema>;
  storage: DurableObjectState["storage"];
  files: FileStore;
  taskRows: TaskStore;
  git: FeatureGit;
  worktrees: ReturnType<typeof makeWorktrees>;
  runner: Runner;
  row: () => FeatureRow;
  finishTask: (t: TaskRow, status: TaskStatus, summary: string | null) => void;
  /** Tests only (FeatureDO's own fields, read at each call): faults between writing a commit's objects and moving its refs, and between recording a push and sending it. */
  faults: {
    readonly beforeRefMove?: () => void;
    readonly beforePushSend?: () => void;
    readonly remoteFetch?: FetchFn;
  };
}) {
  const { env, db, storage, files, taskRows, git, worktrees, runner, row, finishTask, faults } = deps;

  /** The worker of a task, writing: the task must be its own and in progress (or partial: its work waits uncommitted, and its worker may go on with it). */
  function writer(ref: TaskRef, by: Principal): TaskRow {
    const f = row();
    const t = taskRows.get(ref);
    authorizeWork("task.files", by, { orchestrator: f.orchestrator, worker: t.worker });
    runner.assertRunning("writing files");
    const number = t.number;
    if (t.status !== "in_progress" && t.status !== "partial")
      throw new PantheonError(
        "conflict",
        `task ${number} is ${t.status}: files change only while it is in progress (or partial)`,
        { details: { task: number, status: t.status } },
      );
    return t;
  }

  /** A commit (the worker's, a person's, a resolution): refused while the feature is paused; the runner hears of it. */
  async function committed(
    t: TaskRow,
    input: { key: string; summary?: string; status?: "done" | "partial" },
    by: Principal,
  ): Promise<CommitOutcome> {
    runner.assertRunning("committing");
    const outcome = await commitTask(commitDeps(row().name), t, input, by);
    await runner.poke();
    return outcome;
  }

  function commitDeps(feature: string) {
    return {
      db,
      transact: <T>(fn: () => T) => storage.transactionSync(fn),
      files,
      taskRows,
      git,
      feature: { name: feature },
      finishTask: (t: TaskRow, status: TaskStatus, summary: string | null) => finishTask(t, status, summary),
      clock: Date.now,
      ...(faults.beforeRefMove ? { beforeRefMove: faults.beforeRefMove } : {}),
    };
  }

  /** Some paths' contents at a commit (absent: not in its tree), as `files.contents` answers for the checkout. */
  async function contentsAt(commit: string, paths: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const path of paths) {
      const content = await git.readAt(commit, path);
      if (content !== undefined) found.set(path, content);
    }
    return found;
  }

  return {
    /** Files of the committed tree, or as a task sees them (its overlay over the tree). */
    listFiles(input: { task?: TaskRef; prefix?: string; ref?: string }) {
      row();
      return worktrees.list(
        {
          ...(input.task !== undefined ? { task: taskRows.get(input.task) } : {}),
          ...(input.ref ? { ref: input.ref } : {}),
        },
        input.prefix,
      );
    },

    readFile(input: { task?: TaskRef; path: string; ref?: string }) {
      row();
      return worktrees.read(
        {
          ...(input.task !== undefined ? { task: taskRows.get(input.task) } : {}),
          ...(input.ref ? { ref: input.ref } : {}),
        },
        input.path,
      );
    },

    /** Writes (content) or deletes (null) a file in the task's overlay; the tree is untouched until commit. */
    writeFile(input: { task: TaskRef; path: string; content: string | null }, by: Principal) {
      return files.write(writer(input.task, by).number, input.path, input.content);
    },

    /**
     * Commits a task's working tree on its branch and merges it into the feature branch, once per
     * `key` (the committing call's id: a retried commit answers what the first did). repo/commit-task.ts.
     */
    async commitTask(
      input: { task: TaskRef; key: string; summary?: string; status?: "done" | "partial" },
      by: Principal,
    ) {
      const done = db.select().from(schema.commits).where(eq(schema.commits.key, input.key)).get();
      if (done) return done.outcome as CommitOutcome;
      const f = row();
      const t = taskRows.get(input.task);
      authorizeWork("task.commit", by, { orchestrator: f.orchestrator, worker: t.worker });
      return committed(t, input, by);
    },

    committed,

    /** The repository's routes (commits, branches, diffs, resolve, push, pull request, download, git smart-HTTP): repo/repo-api.ts. */
    repo(project: string): FeatureRepoApi {
      const f = row();
      return new FeatureRepoApi({
        env,
        project,
        feature: f,
        git,
        files,
        taskRows,
        transact: (fn) => storage.transactionSync(fn),
        flush: () => storage.sync(),
        commit: (t, input, by) => committed(t, input, by),
        ...(faults.beforePushSend ? { beforePushSend: faults.beforePushSend } : {}),
        ...(faults.remoteFetch ? { remoteFetch: faults.remoteFetch } : {}),
      });
    },

    /** Drops a task's overlay and leaves nothing of it behind; the task is cancelled. */
    async discardTask(ref: TaskRef, by: Principal) {
      const f = row();
      const t = taskRows.get(ref);
      const number = t.number;
      authorizeWork("task.discard", by, { orchestrator: f.orchestrator, worker: t.worker });
      const discarded = storage.transactionSync(() => {
        const count = files.drop(number);
        git.dropBranch(t.key);
        taskRows.set(number, { diff: null, ...withAction(t.actions, "discard", by, Date.now()) });
        if (t.status !== "cancelled" && t.status !== "done") finishTask(t, "cancelled", t.summary);
        return count;
      });
      await runner.poke();
      return {
        discarded,
        status: taskRows.get(number).status as TaskStatus,
        task: number,
        key: t.key,
        worker: t.worker,
      };
    },

    /**
     * Everything about one task: its record, spec, pending changes and unified diff. The pending diff
     * is against the task's own base (its branch's tree), not the feature branch: a task begun before
     * another merged shows only its own changes.
     */
    async taskDetail(ref: TaskRef) {
      row();
      const t = taskRows.get(ref);
      const number = t.number;
      const branch = git.branchRow(t.key);
      const overlay = files.overlayOf(number);
      const base = overlay.length ? await worktrees.commitOf({ task: t }) : null;
      const committed =
        base === null
          ? files.contents(overlay.map((c) => c.path))
          : await contentsAt(
              base,
              overlay.map((c) => c.path),
            );
      return {
        ...t,
        dependsOn: taskRows.numbersOf(t.dependsOn as string[]),
        pending: overlay.length ? diffStats(overlay, committed) : emptyDiff,
        patch: unifiedDiff(overlay, committed),
        ...(branch
          ? {
              branch: branch.branch,
              baseCommit: branch.baseCommit,
              conflict: branch.conflict ? { files: (branch.conflict as { files: unknown[] }).files } : null,
            }
          : {}),
      };
    },
  };
}

export type TaskWorkspace = ReturnType<typeof makeTaskWorkspace>;

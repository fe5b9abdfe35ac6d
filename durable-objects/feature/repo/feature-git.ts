import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../../core/errors";
import {
  hasConflictMarkers,
  mergeTrees,
  pathsChangedOnBothSides,
  type FileConflict,
  type MergedFile,
  type OverlayChange,
} from "../../../core/work";
import { makeRepository, type Signature, type Snapshot } from "./repository";
import { repoState, taskBranches } from "./schema";
import { makeSqliteFs } from "./sqlite-fs";

/** A merge of a task into the feature branch that conflicted: the commits it was between and each conflicting file. */
export interface MergeConflict {
  /** The feature branch's commit the task's work met. */
  ours: string;
  /** The task's commit. */
  theirs: string;
  base: string | null;
  files: FileConflict[];
}

/** What a commit wrote, applied by `settle` inside the caller's transaction (refs move last). */
export type CommitPlan =
  | {
      kind: "merged";
      branch: string;
      taskCommit: string;
      mergeCommit: string;
      featureBranch: string;
      featureChanges: { path: string; content: string | null }[];
    }
  | {
      kind: "conflict";
      branch: string;
      taskCommit: string;
      conflict: MergeConflict;
      worktree: { path: string; content: string | null }[];
    }
  | { kind: "nothing" };

export const taskBranchOf = (taskKey: string) => `tasks/${taskKey}`;
export const defaultBranch = "main";

/**
 * A feature's git side: the repository (isomorphic-git over the object's SQLite), its feature
 * branch, and one branch per task (by the task's stable key). A task's working tree is its branch's
 * tree with its uncommitted changes on top (the overlay in files.ts). Committing writes a commit on
 * the task branch and a merge commit (three-way, core/work mergeTrees) on the feature branch; a
 * conflict keeps the task's commit and puts the merge, marked, in its working tree, like `git merge`,
 * and the resolving commit has both commits as parents, so its next merge starts from the feature
 * commit it resolved against (the base moves: a rewritten file does not conflict again).
 * Async work writes objects only; `settle*` move refs, synchronously, inside the caller's transaction.
 */
export function makeFeatureGit(
  // biome-ignore lint/suspicious/noExplicitAny: the repository reads and writes its own tables on any feature schema
  db: DrizzleSqliteDODatabase<any>,
  transact: <T>(fn: () => T) => T,
  clock: () => number = Date.now,
) {
  const fs = makeSqliteFs(db, clock);
  const repo = makeRepository(fs);
  let queue: Promise<unknown> = Promise.resolve();

  /** One repository change at a time: isomorphic-git awaits (hashing, compression), and two commits must not interleave. */
  function serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }

  const state = () => db.select().from(repoState).where(eq(repoState.id, 1)).get();
  const branchRow = (taskKey: string) => db.select().from(taskBranches).where(eq(taskBranches.taskKey, taskKey)).get();

  async function tipOf(branch: string): Promise<string> {
    const oid = await repo.resolve(branch);
    if (!oid)
      throw new PantheonError("conflict", `branch '${branch}' does not exist in the feature's repository`, {
        details: { branch },
      });
    return oid;
  }

  /**
   * The repository of a feature made before features were repositories, or just created: an initial
   * commit of its files (the tree the files table holds). Answers the feature branch's commit.
   */
  function ensure(seed: () => { path: string; content: string }[], author: Signature): Promise<string> {
    return serialized(async () => {
      const existing = state();
      if (existing) return tipOf(existing.branch);
      await repo.init(defaultBranch);
      const files = new Map<string, MergedFile>(seed().map((f) => [f.path, { text: f.content }]));
      const tree = await repo.writeTree(files, new Map());
      const commit = await repo.writeCommit({ tree, parents: [], message: "Initial commit", author });
      transact(() => {
        repo.setRef(defaultBranch, commit);
        db.insert(repoState).values({ id: 1, branch: defaultBranch, baseCommit: commit }).run();
      });
      return commit;
    });
  }

  /** A task's branch, made from the feature branch's tip the first time the task starts. */
  function ensureBranch(taskKey: string): Promise<{ branch: string; baseCommit: string }> {
    return serialized(async () => {
      const row = branchRow(taskKey);
      if (row && (await repo.resolve(row.branch))) return { branch: row.branch, baseCommit: row.baseCommit };
      const s = state();
      if (!s) throw new PantheonError("conflict", "the feature has no repository yet");
      const tip = await tipOf(s.branch);
      const branch = taskBranchOf(taskKey);
      transact(() => {
        repo.setRef(branch, tip);
        db.insert(taskBranches)
          .values({ taskKey, branch, baseCommit: tip, conflict: null, updatedAt: clock() })
          .onConflictDoUpdate({
            target: taskBranches.taskKey,
            set: { branch, baseCommit: tip, conflict: null, updatedAt: clock() },
          })
          .run();
      });
      return { branch, baseCommit: tip };
    });
  }

  /** The commit a task's working tree starts from: its branch's tip (the feature branch's when it has none). */
  async function worktreeBase(taskKey: string | undefined): Promise<string> {
    const s = state();
    if (!s) throw new PantheonError("conflict", "the feature has no repository yet");
    const row = taskKey ? branchRow(taskKey) : undefined;
    return (row && (await repo.resolve(row.branch))) ?? tipOf(s.branch);
  }

  const applyOverlay = (snap: Snapshot, overlay: readonly OverlayChange[]) => {
    const files = new Map<string, MergedFile>([...snap.files].map(([p, oid]) => [p, { oid }]));
    for (const c of overlay) {
      if (c.content === null) files.delete(c.path);
      else files.set(c.path, { text: c.content });
    }
    return files;
  };

  /** Texts of the files that differ between two flat trees (null: gone in `after`). */
  async function changesBetween(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>) {
    const out: { path: string; content: string | null }[] = [];
    for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const a = after.get(path);
      if (a === before.get(path)) continue;
      out.push({ path, content: a === undefined ? null : await repo.text(a) });
    }
    return out;
  }

  /**
   * Commits a task's working tree on its branch and merges the branch into the feature branch.
   * Writes objects only; the answer says what `settleCommit` is to move.
   */
  function commit(input: {
    taskKey: string;
    overlay: readonly OverlayChange[];
    message: string;
    author: Signature;
    mergeMessage: string;
  }): Promise<CommitPlan> {
    return serialized(async () => {
      const s = state();
      if (!s) throw new PantheonError("conflict", "the feature has no repository yet");
      const row = branchRow(input.taskKey);
      const branch = row?.branch ?? taskBranchOf(input.taskKey);
      const featureTip = await tipOf(s.branch);
      const taskTip = (row && (await repo.resolve(row.branch))) ?? featureTip;
      const pending = (row?.conflict as MergeConflict | null | undefined) ?? null;
      const snap = await repo.snapshot(taskTip);
      const files = applyOverlay(snap, input.overlay);
      if (pending) {
        const unresolved: string[] = [];
        for (const f of pending.files) {
          const now = files.get(f.path);
          if (now && hasConflictMarkers("text" in now ? now.text : await repo.text(now.oid))) unresolved.push(f.path);
        }
        if (unresolved.length) {
          throw new PantheonError(
            "conflict",
            `conflict markers remain in ${unresolved.join(", ")}: write each file as it should be (without the <<<<<<< ======= >>>>>>> lines), then commit again`,
            {
              details: {
                paths: unresolved,
                issues: unresolved.map((p) => ({ path: ["files", p], message: "still holds conflict markers" })),
              },
            },
          );
        }
      }
      let taskCommit = taskTip;
      if (input.overlay.length > 0 || pending) {
        const tree = await repo.writeTree(files, snap.modes);
        taskCommit = await repo.writeCommit({
          tree,
          parents: pending ? [taskTip, pending.ours] : [taskTip],
          message: input.message,
          author: input.author,
        });
      }
      const mergeBase = (await repo.mergeBase(featureTip, taskCommit)) ?? null;
      if (mergeBase === taskCommit) return { kind: "nothing" };
      if (mergeBase === featureTip) {
        // The feature branch has not moved since the task's work began: the merge takes the task's tree as it is.
        const [ours, theirs] = [await repo.snapshot(featureTip), await repo.snapshot(taskCommit)];
        const mergeCommit = await repo.writeCommit({
          tree: await repo.treeOf(taskCommit),
          parents: [featureTip, taskCommit],
          message: input.mergeMessage,
          author: input.author,
        });
        return {
          kind: "merged",
          branch,
          taskCommit,
          mergeCommit,
          featureBranch: s.branch,
          featureChanges: await changesBetween(ours.files, theirs.files),
        };
      }
      const [ours, theirs, base] = [
        await repo.snapshot(featureTip),
        await repo.snapshot(taskCommit),
        mergeBase
          ? await repo.snapshot(mergeBase)
          : { files: new Map<string, string>(), modes: new Map<string, string>() },
      ];
      const texts = new Map<string, string>();
      for (const path of pathsChangedOnBothSides(base.files, ours.files, theirs.files)) {
        for (const oid of [ours.files.get(path), theirs.files.get(path), base.files.get(path)])
          if (oid && !texts.has(oid)) texts.set(oid, await repo.text(oid));
      }
      const merged = mergeTrees({ base: base.files, ours: ours.files, theirs: theirs.files }, (oid) => texts.get(oid)!);
      const modes = new Map([...ours.modes, ...theirs.modes]);
      if (merged.conflicts.length > 0) {
        // The task's working tree becomes the merge, marked: what differs from its own commit.
        const worktree: { path: string; content: string | null }[] = [];
        for (const path of [...new Set([...merged.files.keys(), ...theirs.files.keys()])].sort()) {
          const m = merged.files.get(path);
          const own = theirs.files.get(path);
          if (!m) worktree.push({ path, content: null });
          else if ("text" in m) worktree.push({ path, content: m.text });
          else if (m.oid !== own) worktree.push({ path, content: await repo.text(m.oid) });
        }
        return {
          kind: "conflict",
          branch,
          taskCommit,
          conflict: { ours: featureTip, theirs: taskCommit, base: mergeBase, files: merged.conflicts },
          worktree,
        };
      }
      const tree = await repo.writeTree(merged.files, modes);
      const mergeCommit = await repo.writeCommit({
        tree,
        parents: [featureTip, taskCommit],
        message: input.mergeMessage,
        author: input.author,
      });
      const after = await repo.snapshot(mergeCommit);
      return {
        kind: "merged",
        branch,
        taskCommit,
        mergeCommit,
        featureBranch: s.branch,
        featureChanges: await changesBetween(ours.files, after.files),
      };
    });
  }

  /** Moves the refs a commit plan names and records the task branch's state. Synchronous: inside the caller's transaction. */
  function settleCommit(taskKey: string, plan: CommitPlan): void {
    if (plan.kind === "nothing") return;
    const row = branchRow(taskKey);
    const baseCommit = row?.baseCommit ?? (plan.kind === "merged" ? plan.taskCommit : plan.conflict.ours);
    repo.setRef(plan.branch, plan.taskCommit);
    if (plan.kind === "merged") repo.setRef(plan.featureBranch, plan.mergeCommit);
    const conflict = plan.kind === "conflict" ? plan.conflict : null;
    db.insert(taskBranches)
      .values({ taskKey, branch: plan.branch, baseCommit, conflict, updatedAt: clock() })
      .onConflictDoUpdate({ target: taskBranches.taskKey, set: { conflict, updatedAt: clock() } })
      .run();
  }

  /** Drops a task's branch (discarded). Synchronous: inside the caller's transaction. */
  function dropBranch(taskKey: string): void {
    const row = branchRow(taskKey);
    if (!row) return;
    repo.deleteRef(row.branch);
    db.delete(taskBranches).where(eq(taskBranches.taskKey, taskKey)).run();
  }

  /** A task's file as its working tree's base has it (its branch), or undefined. */
  async function readAt(commit: string, path: string): Promise<string | undefined> {
    const oid = (await repo.snapshot(commit)).files.get(path);
    return oid === undefined ? undefined : repo.text(oid);
  }

  return {
    db,
    fs,
    repo,
    serialized,
    state,
    branchRow,
    conflictOf: (taskKey: string) => (branchRow(taskKey)?.conflict as MergeConflict | null | undefined) ?? null,
    tipOf,
    ensure,
    ensureBranch,
    worktreeBase,
    commit,
    settleCommit,
    dropBranch,
    readAt,
  };
}

export type FeatureGit = ReturnType<typeof makeFeatureGit>;

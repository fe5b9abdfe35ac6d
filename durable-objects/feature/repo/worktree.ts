import { PantheonError } from "../../../core/errors";
import { checkPath, checkPrefix } from "../../../core/work";
import type { FileStore } from "../files";
import type { FeatureGit } from "./feature-git";

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** Where a read looks: a task's working tree (its branch and its uncommitted changes), a ref or commit, or the feature branch. */
export interface TreeSelector {
  task?: { number: number; key: string };
  ref?: string;
}

/**
 * Reads of the feature's files as a task, a branch or a commit sees them. The feature branch's tip is
 * checked out in the files table (a read there touches no git object); a task whose branch is at
 * that tip reads the table under its overlay, and one whose branch is elsewhere reads its branch's
 * tree from the repository under its overlay.
 */
export function makeWorktrees(files: FileStore, git: FeatureGit) {
  /** The commit to read, or null for the checked-out feature branch. */
  async function commitOf(at: TreeSelector): Promise<string | null> {
    const s = git.state();
    if (!s) return null;
    const featureTip = await git.tipOf(s.branch);
    if (at.ref !== undefined) {
      const oid = await git.repo.resolve(at.ref);
      if (!oid)
        throw new PantheonError(
          "not_found",
          `ref '${at.ref}' is not a branch or commit of this feature (GET …/branches lists them)`,
          { details: { ref: at.ref } },
        );
      return oid === featureTip ? null : oid;
    }
    if (!at.task) return null;
    const base = await git.worktreeBase(at.task.key);
    return base === featureTip ? null : base;
  }

  async function list(at: TreeSelector, prefixInput: string | undefined) {
    const commit = await commitOf(at);
    if (commit === null) return files.list(at.ref === undefined ? at.task?.number : undefined, prefixInput);
    const prefix = checkPrefix(prefixInput);
    const snap = await git.repo.snapshot(commit);
    const tree = new Map<string, { bytes: number; version: number; changed: boolean }>();
    for (const [path, oid] of snap.files)
      tree.set(path, { bytes: bytes(await git.repo.text(oid)), version: files.versionOf(path), changed: false });
    if (at.task && at.ref === undefined) {
      for (const c of files.overlayOf(at.task.number)) {
        if (c.content === null) tree.delete(c.path);
        else tree.set(c.path, { bytes: bytes(c.content), version: files.versionOf(c.path), changed: true });
      }
    }
    return [...tree]
      .filter(([path]) => path.startsWith(prefix))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, info]) => ({ path, ...info }));
  }

  async function read(
    at: TreeSelector,
    pathInput: string,
  ): Promise<{ path: string; content: string; version: number; changed: boolean }> {
    const commit = await commitOf(at);
    if (commit === null) return files.read(at.ref === undefined ? at.task?.number : undefined, pathInput);
    const path = checkPath(pathInput);
    if (at.task && at.ref === undefined) {
      const change = files.overlayOf(at.task.number).find((c) => c.path === path);
      if (change) {
        if (change.content === null)
          throw new PantheonError("not_found", `file '${path}' was deleted in task ${at.task.number}`, {
            details: { path },
          });
        return { path, content: change.content, version: files.versionOf(path), changed: true };
      }
    }
    const content = await git.readAt(commit, path);
    if (content === undefined)
      throw new PantheonError("not_found", `file '${path}' does not exist${at.ref ? ` at '${at.ref}'` : ""}`, {
        details: { path },
      });
    return { path, content, version: files.versionOf(path), changed: false };
  }

  return { list, read, commitOf };
}

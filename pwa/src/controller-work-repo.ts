import { unlessMissing, type WorkApi } from "./api-work";
import type { WorkState } from "./state";
import type { Loadable } from "./types";

export interface RepoViewDeps {
  work: WorkApi;
  setWork: (update: (w: WorkState) => WorkState) => void;
  settle: <T>(promise: Promise<T>) => Promise<Loadable<T>>;
}

/** What a view shows for a route this server does not have yet. */
const MISSING = "This server keeps no git history for features yet.";

/**
 * The feature's code as committed: its commits on a ref, one commit's diff, its files at a ref and
 * one file's content. Commits and branches come from the repository routes; where the server has
 * none yet (404), `has.repo` turns false and the views hide their links instead of failing.
 */
export function makeRepoViews({ work, setWork, settle }: RepoViewDeps) {
  const known = new Map<string, boolean>();

  return {
    work,

    /** Learns once per feature whether the server answers its commits (the link to them shows only then). */
    async probe(feature: string): Promise<void> {
      if (!known.has(feature)) {
        const answer = await unlessMissing(work.listCommits(feature, { limit: 1 })).catch(() => undefined);
        if (answer === undefined) return;
        known.set(feature, answer !== null);
      }
      setWork((w) => ({ ...w, has: { ...w.has, repo: known.get(feature) ?? null } }));
    },

    async loadCommits(feature: string, ref?: string): Promise<void> {
      setWork((w) => ({ ...w, commits: { status: "loading" } }));
      const [commits, branches] = await Promise.all([
        settle(unlessMissing(work.listCommits(feature, { ...(ref ? { ref } : {}), limit: 100 }))),
        unlessMissing(work.listBranches(feature)).catch(() => null),
      ]);
      if (commits.status === "ready" && commits.data === null) {
        known.set(feature, false);
        return setWork((w) => ({ ...w, has: { ...w.has, repo: false }, commits: { status: "error", error: MISSING } }));
      }
      setWork((w) => ({
        ...w,
        has: { ...w.has, repo: commits.status === "ready" ? true : w.has.repo },
        commits:
          commits.status === "ready"
            ? { status: "ready", data: { commits: commits.data!.commits, branches } }
            : commits.status === "error"
              ? { status: "error", error: commits.error }
              : { status: "loading" },
      }));
    },

    async loadCommit(feature: string, sha: string): Promise<void> {
      setWork((w) => ({ ...w, commit: { status: "loading" } }));
      const [diff, list] = await Promise.all([
        settle(unlessMissing(work.commitDiff(feature, sha))),
        unlessMissing(work.listCommits(feature, { ref: sha, limit: 1 })).catch(() => null),
      ]);
      const info = list?.commits.find((c) => c.sha.startsWith(sha) || sha.startsWith(c.sha)) ?? null;
      setWork((w) => ({
        ...w,
        commit:
          diff.status === "ready"
            ? diff.data === null
              ? { status: "error", error: MISSING }
              : { status: "ready", data: { sha, files: diff.data.files, info } }
            : diff.status === "error"
              ? { status: "error", error: diff.error }
              : { status: "loading" },
      }));
    },

    /** The files at a ref (the feature branch by default), and one file's content when a path is named. */
    async loadFiles(feature: string, ref?: string, path?: string): Promise<void> {
      setWork((w) => ({
        ...w,
        files: { status: "loading", ...("data" in w.files && w.files.data ? { data: w.files.data } : {}) },
        file: path ? { status: "loading" } : { status: "idle" },
      }));
      const [files, file] = await Promise.all([
        settle(work.listFiles(feature, ref ? { ref } : {})),
        path ? settle(work.readFile(feature, path, ref)) : Promise.resolve({ status: "idle" } as const),
      ]);
      setWork((w) => ({ ...w, files, file }));
    },
  };
}

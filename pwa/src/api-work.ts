import type { Api } from "./api";
import { isApiError } from "./errors";

// The Work routes of issue 28 (/work/brief/work-api.md) that the worker's route type does not name
// yet: the feature's git history and the unattended run. They are called by path with the shapes
// the contract gives; once the routes are merged these can be read from `ApiRoutes` like the rest.

export interface CommitInfo {
  sha: string;
  message: string;
  author: { name: string; email: string };
  /** ISO time or epoch ms, as the server sends it. */
  date: string | number;
  parents: string[];
  task?: number;
  taskKey?: string;
  run?: string;
}

export interface BranchInfo {
  name: string;
  sha: string;
  task?: number;
}

export interface Branches {
  base: { sha: string; remote?: string; ref?: string };
  branches: BranchInfo[];
}

export interface CommitFileDiff {
  path: string;
  status: string;
  additions: number;
  deletions: number;
  patch: string;
}

export interface FileEntry {
  path: string;
  bytes?: number;
}

export interface FileContent {
  path: string;
  content: string;
}

const enc = encodeURIComponent;
const query = (q: Record<string, string | number | undefined>) => {
  const s = new URLSearchParams(
    Object.entries(q)
      .filter(([, v]) => v !== undefined && v !== "")
      .map(([k, v]) => [k, String(v)]),
  ).toString();
  return s ? `?${s}` : "";
};

/**
 * What a route not merged yet answers: its value, or `null` when the server has no such route
 * (404), so the view hides the control instead of failing. Other errors are thrown as usual.
 */
export async function unlessMissing<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (error) {
    if (isApiError(error) && error.status === 404 && /^no route for |not available/i.test(error.message)) return null;
    throw error;
  }
}

/** The feature's git history, its files at a ref, and the unattended run (pause, resume, run all). */
export function makeWorkApi(api: Pick<Api, "request">) {
  const base = (feature: string) => `/api/features/${enc(feature)}`;
  return {
    listCommits: (feature: string, q: { ref?: string; limit?: number } = {}) =>
      api.request<{ commits: CommitInfo[] }>("GET", `${base(feature)}/commits${query(q)}`),
    commitDiff: (feature: string, sha: string) =>
      api.request<{ files: CommitFileDiff[] }>("GET", `${base(feature)}/commits/${enc(sha)}/diff`),
    listBranches: (feature: string) => api.request<Branches>("GET", `${base(feature)}/branches`),
    /** The committed tree (the feature branch, a task's branch or any ref once the repository is git). */
    listFiles: async (feature: string, q: { ref?: string; prefix?: string } = {}) => {
      const { files } = await api.request<{ files: (FileEntry | string)[] }>(
        "GET",
        `${base(feature)}/files${query(q)}`,
      );
      return files.map((f) => (typeof f === "string" ? { path: f } : f));
    },
    readFile: (feature: string, path: string, ref?: string) =>
      api.request<FileContent>("GET", `${base(feature)}/files/content${query({ path, ref })}`),
    /** Commits a person's resolution of a task's merge conflict. */
    resolve: (feature: string, task: number | string, files: { path: string; content: string }[]) =>
      api.request<unknown>("POST", `${base(feature)}/tasks/${enc(String(task))}/resolve`, { files }),
    /** Answers the planner's question about the plan (clarify). */
    answerQuestion: (feature: string, id: string, answer: string) =>
      api.request<unknown>("POST", `${base(feature)}/questions/${enc(id)}/answer`, { answer }),
    runAll: (feature: string) => api.request<{ started: unknown[] }>("POST", `${base(feature)}/run-all`, {}),
    pause: (feature: string) => api.request<unknown>("POST", `${base(feature)}/pause`, {}),
    /** Makes a feature, imported from a git remote when `repository` is given (its token a project secret, by name). */
    createFeature: (input: {
      name: string;
      title: string;
      orchestrator: string;
      repository?: { url: string; ref?: string; tokenSecret?: string };
    }) => api.request<{ name: string }>("POST", "/api/features", input),
    /** The project's secrets by name (an admin's read; values never leave the server). */
    secretNames: async (project: string) => {
      const { secrets } = await api.request<{ secrets: { name: string }[] }>(
        "GET",
        `/api/projects/${enc(project)}/secrets`,
      );
      return secrets.map((s) => s.name);
    },
    push: (feature: string) =>
      api.request<{ pushed: boolean; remote: string; branch: string; commit: string }>(
        "POST",
        `${base(feature)}/push`,
        {},
      ),
    pullRequest: (feature: string) =>
      api.request<{ url: string | null; number: number | null; head: string; base: string }>(
        "POST",
        `${base(feature)}/pr`,
        {},
      ),
    resume: (feature: string) => api.request<unknown>("POST", `${base(feature)}/resume`, {}),
  };
}

export type WorkApi = ReturnType<typeof makeWorkApi>;

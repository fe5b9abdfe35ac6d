import { api, uniqueName } from "../../api/client";
import { askedQuestion, blockedTask, featurePlan, freshFeature, json, taskInProgress } from "./fixture";
import type { RouteEntry } from "./types";

/** Features, plans and tasks, and a feature's repository for plain git. */
export const featureRoutes: readonly RouteEntry[] = [
  // ---- features, plans and tasks ---------------------------------------------------------------
  { method: "GET", path: "/api/features", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  { method: "POST", path: "/api/features", family: "api", scope: "admin", expect: 201, sample: (f) => ({ params: {}, body: { json: { name: uniqueName("made").replace(/[^a-z0-9-]/g, "").slice(0, 40), title: "Made by a sample", orchestrator: f.planner, contextFiles: ["context/"] } } }) },
  { method: "GET", path: "/api/features/:feature", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "PATCH", path: "/api/features/:feature", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { feature: f.feature }, body: { json: { title: "Renamed by a sample" } } }) },
  { method: "DELETE", path: "/api/features/:feature", family: "api", scope: "admin", expect: 204, sample: async (f) => ({ params: { feature: await freshFeature(f, "created") } }) },
  { method: "GET", path: "/api/features/:feature/plan", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { version: "1" } }) },
  { method: "PUT", path: "/api/features/:feature/plan", family: "api", scope: "admin", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f, "created") }, body: { json: { markdown: featurePlan } } }) },
  { method: "POST", path: "/api/features/:feature/plan/comments", family: "api", scope: "chat", expect: 201, sample: (f) => ({ params: { feature: f.feature }, body: { json: { line: 5, body: "Is this small enough?" } } }) },
  { method: "POST", path: "/api/features/:feature/plan/approve", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f, "planned") }, body: { json: { version: 1 } } }) },
  { method: "POST", path: "/api/features/:feature/tasks/sync", family: "api", scope: "admin", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/tasks", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/tasks/:task", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature, task: "1" } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/start", family: "api", scope: "admin", expect: 202, sample: async (f) => ({ params: { feature: await freshFeature(f), task: "1" } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/answer", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await blockedTask(f), task: "2" }, body: { json: { answer: "Keep task 1's version." } } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/commit", family: "api", scope: "admin", expect: 200, sample: async (f) => ({ params: { feature: await taskInProgress(f), task: "1" }, body: { json: { summary: "Committed by a sample" } } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/discard", family: "api", scope: "admin", expect: 200, sample: async (f) => ({ params: { feature: await taskInProgress(f), task: "1" } }) },
  { method: "GET", path: "/api/features/:feature/files", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { prefix: "context" } }) },
  { method: "GET", path: "/api/features/:feature/files/content", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { path: "context/brief.md" } }) },
  { method: "GET", path: "/api/features/:feature/report", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/commits", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { limit: "5" } }) },
  {
    method: "GET", path: "/api/features/:feature/commits/:sha/diff", family: "api", scope: "chat", expect: 200,
    sample: async (f) => ({ params: { feature: f.feature, sha: (await json<{ commits: { sha: string }[] }>(await api(`/api/features/${f.feature}/commits`), "commits")).commits[0]!.sha } }),
  },
  { method: "GET", path: "/api/features/:feature/branches", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/download", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature }, query: { format: "tar" } }) },
  // The feature has no remote: a push or pull request names what is missing.
  { method: "POST", path: "/api/features/:feature/push", family: "api", scope: "admin", expect: 400, sample: (f) => ({ params: { feature: f.feature }, body: { json: {} } }) },
  { method: "POST", path: "/api/features/:feature/pr", family: "api", scope: "admin", expect: 409, sample: (f) => ({ params: { feature: f.feature }, body: { json: {} } }) },
  { method: "POST", path: "/api/features/:feature/tasks/:task/resolve", family: "api", scope: "admin", expect: 409, sample: async (f) => ({ params: { feature: await taskInProgress(f), task: "1" }, body: { json: { files: [{ path: "a.txt", content: "x\n" }] } } }) },
  // A feature's repository for plain git (workers/git-http.ts): the token of the path's project.
  { method: "GET", path: "/git/:project/:repo/info/refs", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { project: "default", repo: `${f.feature}.git` }, query: { service: "git-upload-pack" } }) },
  { method: "POST", path: "/git/:project/:repo/git-upload-pack", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { project: "default", repo: `${f.feature}.git` }, body: { text: "0000", contentType: "application/x-git-upload-pack-request" } }) },
  { method: "POST", path: "/git/:project/:repo/git-receive-pack", family: "api", scope: "chat", expect: 403, sample: (f) => ({ params: { project: "default", repo: `${f.feature}.git` }, body: { text: "0000", contentType: "application/x-git-receive-pack-request" } }) },
  { method: "ALL", path: "/git/*", family: "api", scope: "public", expect: 404, sample: () => ({ method: "GET", params: { "*": "nothing-here" } }) },
  { method: "GET", path: "/api/features/:feature/report.md", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/tasks/:task/report.md", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature, task: "1" } }) },
  { method: "GET", path: "/api/features/:feature/plan/analysis", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "GET", path: "/api/features/:feature/questions", family: "api", scope: "chat", expect: 200, sample: (f) => ({ params: { feature: f.feature } }) },
  { method: "POST", path: "/api/features/:feature/questions/:id/answer", family: "api", scope: "approve", expect: 200, sample: async (f) => askedQuestion(f) },
  { method: "POST", path: "/api/features/:feature/run-all", family: "api", scope: "admin", expect: 202, sample: async (f) => ({ params: { feature: await freshFeature(f) } }) },
  { method: "POST", path: "/api/features/:feature/pause", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f) } }) },
  { method: "POST", path: "/api/features/:feature/resume", family: "api", scope: "approve", expect: 200, sample: async (f) => ({ params: { feature: await freshFeature(f) } }) },
];

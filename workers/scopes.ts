import type { Hono } from "hono";
import type { Scope } from "../core/auth";
import { checkScope, requireScope } from "./auth";
import type { AppEnv } from "./env";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * The scope each API route needs below `admin`. One table, so the whole policy reads in one place;
 * any `/api` route not listed here needs `admin` (a new route is closed until someone opens it).
 * `/v1`, `/mcp`, `/mcp/agents/:name`, `/agui`, `/a2a` and the agent sockets need `chat` (see workers/app.ts,
 * workers/sockets.ts and workers/doors/); answering an AG-UI approval interrupt or an A2A approval
 * wait needs `approve`.
 */
export const routeScopes: readonly (readonly [Method, string, Scope])[] = [
  // Talking to agents and reading what they said and did.
  ["GET", "/api/agents", "chat"],
  ["GET", "/api/agents/:name", "chat"],
  ["POST", "/api/agents/:name/messages", "chat"],
  ["GET", "/api/agents/:name/messages", "chat"],
  // Pictures sent with messages: stored and read back within the token's project.
  ["POST", "/api/agents/:name/images", "chat"],
  ["GET", "/api/agents/:name/images/:id", "chat"],
  ["GET", "/api/agents/:name/sessions", "chat"],
  ["POST", "/api/agents/:name/sessions", "chat"],
  ["PATCH", "/api/agents/:name/sessions/:id", "chat"],
  ["POST", "/api/agents/:name/sessions/:id/fork", "chat"],
  ["DELETE", "/api/agents/:name/sessions/:id", "chat"],
  ["GET", "/api/agents/:name/runs", "chat"],
  ["GET", "/api/agents/:name/runs/:id", "chat"],
  ["POST", "/api/agents/:name/runs/:id/cancel", "chat"],
  ["GET", "/api/agents/:name/tools", "chat"],
  // How an agent did on its evals (running one is the operator's: admin).
  ["GET", "/api/agents/:name/evals", "chat"],
  ["GET", "/api/agents/:name/evals/:id", "chat"],
  ["GET", "/api/conversations/:id", "chat"],
  // Fan-outs: the agent asks its connections, as a chat's model could; reading them and workflows is
  // talking. Starting a workflow (its tool steps run the agent's tools) is the operator's (admin, the default).
  ["POST", "/api/agents/:name/fanouts", "chat"],
  ["GET", "/api/agents/:name/fanouts/:id", "chat"],
  ["GET", "/api/agents/:name/workflows", "chat"],
  ["GET", "/api/agents/:name/workflows/:id", "chat"],
  // A bare round trip through a Durable Object (the benchmarks' baseline); it reads nothing.
  ["GET", "/api/health/echo", "chat"],
  // Features, plans and tasks: reading and commenting is talking; starting, committing, discarding,
  // creating and deleting are the operator's (admin, the default); plan writes and syncs go through
  // the orchestrating agent (admin).
  ["GET", "/api/features", "chat"],
  ["GET", "/api/features/:feature", "chat"],
  ["GET", "/api/features/:feature/plan", "chat"],
  ["POST", "/api/features/:feature/plan/comments", "chat"],
  ["GET", "/api/features/:feature/tasks", "chat"],
  ["GET", "/api/features/:feature/tasks/:task", "chat"],
  ["GET", "/api/features/:feature/files", "chat"],
  ["GET", "/api/features/:feature/files/content", "chat"],
  ["GET", "/api/features/:feature/report", "chat"],
  // The feature's repository: reading its history and downloading its code is reading its files.
  ["GET", "/api/features/:feature/commits", "chat"],
  ["GET", "/api/features/:feature/commits/:sha/diff", "chat"],
  ["GET", "/api/features/:feature/branches", "chat"],
  ["GET", "/api/features/:feature/download", "chat"],
  ["GET", "/api/features/:feature/report.md", "chat"],
  ["GET", "/api/features/:feature/tasks/:task/report.md", "chat"],
  ["GET", "/api/features/:feature/plan/analysis", "chat"],
  ["GET", "/api/features/:feature/questions", "chat"],
  // Deciding what waits for a person.
  ["GET", "/api/approvals", "approve"],
  ["POST", "/api/agents/:name/runs/:id/approval", "approve"],
  ["POST", "/api/features/:feature/plan/approve", "approve"],
  ["POST", "/api/features/:feature/tasks/:task/answer", "approve"],
  ["POST", "/api/features/:feature/questions/:id/answer", "approve"],
  // The pause switch is a person's brake: whoever may decide approvals may pull it and release it.
  ["POST", "/api/features/:feature/pause", "approve"],
  ["POST", "/api/features/:feature/resume", "approve"],
  // Operator-only (admin is also the default), listed so the table names every route of the doctor
  // and the messaging gateways. The gateways' own webhooks (/gateways/*) are not under /api: they
  // authenticate per gateway (workers/doors/gateways/).
  ["GET", "/api/health", "admin"],
  ["PUT", "/api/agents/:name/gateways/telegram", "admin"],
  ["GET", "/api/agents/:name/gateways/telegram", "admin"],
  ["DELETE", "/api/agents/:name/gateways/telegram", "admin"],
  ["POST", "/api/agents/:name/gateways/telegram/webhook", "admin"],
  ["PUT", "/api/agents/:name/gateways/email", "admin"],
  ["GET", "/api/agents/:name/gateways/email", "admin"],
  ["DELETE", "/api/agents/:name/gateways/email", "admin"],
  // Projects (workers/api/projects.ts). Creating and deleting one also needs the deployment's admin
  // token, and a project's own token reaches only its project: checked in the routes.
  ["GET", "/api/projects", "admin"],
  ["POST", "/api/projects", "admin"],
  ["DELETE", "/api/projects/:slug", "admin"],
  ["POST", "/api/projects/:slug/import", "admin"],
  ["POST", "/api/agents/:name/tools/import", "admin"],
  ["GET", "/api/agents/:name/export", "admin"],
  ["POST", "/api/agents/import", "admin"],
  ["GET", "/api/projects/:slug/export", "admin"],
  // Project secrets (workers/api/secrets.ts): that project's admin or the deployment admin; grants of
  // the deployment's own secrets and the list of which project owns which bot: the deployment admin only.
  ["GET", "/api/projects/:slug/secrets", "admin"],
  ["PUT", "/api/projects/:slug/secrets/:name", "admin"],
  ["DELETE", "/api/projects/:slug/secrets/:name", "admin"],
  ["PUT", "/api/projects/:slug/grants/:name", "admin"],
  ["DELETE", "/api/projects/:slug/grants/:name", "admin"],
  ["GET", "/api/gateways/telegram", "admin"],
  // Named model providers (workers/api/providers.ts): that project's admin or the deployment admin.
  ["GET", "/api/projects/:slug/providers", "admin"],
  ["GET", "/api/projects/:slug/providers/:name", "admin"],
  ["PUT", "/api/projects/:slug/providers/:name", "admin"],
  ["DELETE", "/api/projects/:slug/providers/:name", "admin"],
  // Daily caps (workers/api/quotas.ts): anyone who talks may see today's spend; setting caps is the
  // project admin's, within a ceiling only the deployment admin sets (checked in the route), as is the test clock.
  ["GET", "/api/quotas", "chat"],
  ["PUT", "/api/quotas", "admin"],
  ["PUT", "/api/quotas/agents/:name", "admin"],
  ["PUT", "/api/projects/:slug/quota-ceiling", "admin"],
  ["PUT", "/api/projects/:slug/test-clock", "admin"],
];

/** Installs the policy on the app: call after auth and before the routes. */
export function enforceScopes(app: Hono<AppEnv>): void {
  for (const [method, path, scope] of routeScopes) app.on(method, path, requireScope(scope));
  app.use("/api/*", async (c, next) => {
    if (!c.get("scopeChecked")) checkScope(c, "admin");
    await next();
  });
}

import type { MiddlewareHandler } from "hono";
import { PantheonError } from "../core/errors";
import { defaultProject, projectIndexName, type ProjectRecord } from "../core/projects";
import { agentStub, featureStub, registryStub } from "../durable-objects/stubs";
import type { AppContext, AppEnv } from "./env";
import { forgetGateways } from "./doors/gateways/index-store";
import { imageStoreOf } from "./images/ingest";

/** The project's record, or the 404 naming it. An adopted project (from before creation was explicit) joins the index. */
export async function projectRecord(env: Env, slug: string): Promise<ProjectRecord> {
  const info = await registryStub(env, slug).projectInfo(slug);
  if (!info)
    throw new PantheonError("project_not_found", `project '${slug}' does not exist`, { details: { project: slug } });
  if (info.adopted && slug !== defaultProject)
    await registryStub(env, projectIndexName).projectIndexPut(slug, info.record);
  return info.record;
}

/**
 * After auth: the request's project must have been created (`POST /api/projects`); `default` always
 * exists. Checked after the token, so an unauthenticated caller learns nothing about which projects
 * exist. `/api/projects…` names its projects in the path and checks them itself.
 */
export const requireProject: MiddlewareHandler<AppEnv> = async (c, next) => {
  const project = c.get("project");
  const path = new URL(c.req.url).pathname;
  const projectsRoute = path === "/api/projects" || path.startsWith("/api/projects/");
  if (project !== defaultProject && !projectsRoute) await projectRecord(c.env, project);
  await next();
};

/** Creating and deleting projects is the deployment's business: only its admin secret, never a project's own token. */
export function checkDeploymentAdmin(c: AppContext, what: string): void {
  if (c.get("principal") !== "admin") {
    throw new PantheonError(
      "forbidden",
      `only the deployment's admin token (PANTHEON_ADMIN_TOKEN) can ${what}; this is a token of project '${c.get("project")}'`,
      { details: { needed: "deployment admin", project: c.get("project") } },
    );
  }
}

/** A project's token reaches only its own project (named by X-Pantheon-Project); the admin secret reaches every one. */
export function checkReach(c: AppContext, slug: string): void {
  if (c.get("principal") !== "admin" && slug !== c.get("project")) {
    throw new PantheonError("forbidden", `a token of project '${c.get("project")}' cannot reach project '${slug}'`, {
      details: { project: slug },
    });
  }
}

/**
 * Deletes a project with its agents (each agent's Durable Object ends its sockets, SSE streams and
 * pending approvals, then forgets everything, as `DELETE /api/agents/:name` does), its tokens and
 * its bus log, before the caller's answer. The registry draws new incarnations for agents made again
 * under the same names, so a socket the deletion missed still hears nothing of them. Safe to repeat: the record goes
 * last, so a delete cut short leaves a project that can be deleted again.
 */
export async function deleteProject(env: Env, slug: string): Promise<void> {
  const registry = registryStub(env, slug);
  for (const agent of await registry.listAgents()) {
    await (await agentStub(env, slug, agent.name)).forget({
      by: `the deletion of project '${slug}'`,
      closeReason: `project '${slug}' was deleted`,
    });
    await forgetGateways(env, slug, agent.name);
    await imageStoreOf(env).removeAll({ project: slug, agent: agent.name });
  }
  // Features live in objects of their own: each is emptied, then the index that lists them.
  for (const feature of await registry.featureIndex()) {
    await featureStub(env, slug, feature.name).destroy();
    await registry.featureIndexPut(feature.name, null);
  }
  await registry.projectWipe();
  await registryStub(env, projectIndexName).projectIndexPut(slug, null);
}

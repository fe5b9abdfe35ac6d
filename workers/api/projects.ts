import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { createProjectSchema, defaultProject, projectIndexName, type ProjectRecord } from "../../core/projects";
import { call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { checkDeploymentAdmin, checkReach, deleteProject, projectRecord } from "../projects";
import { valid } from "../validation";

export const slugParam = z.object({ slug: projectNameSchema });

async function withCount(env: Env, record: ProjectRecord) {
  return { ...record, agents: await registryStub(env, record.slug).agentCount() };
}

/**
 * Projects are tenants, created explicitly: `POST /api/projects` (the deployment's admin token),
 * `GET /api/projects` (with agent counts; a project's own token sees only its project), `DELETE
 * /api/projects/:slug` with its agents. An unknown project is a 404 naming it on every route.
 */
export const projectRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const own = c.get("principal") !== "admin";
    const indexed = own ? [] : await registryStub(c.env, projectIndexName).projectIndexList();
    const records = own ? [await projectRecord(c.env, c.get("project"))] : [await projectRecord(c.env, defaultProject), ...indexed.filter((p) => p.slug !== defaultProject)];
    records.sort((a, b) => (a.slug === defaultProject ? -1 : b.slug === defaultProject ? 1 : a.slug.localeCompare(b.slug)));
    return c.json({ projects: await Promise.all(records.map((r) => withCount(c.env, r))) });
  })
  .post("/", valid("json", createProjectSchema), async (c) => {
    checkDeploymentAdmin(c, "create projects");
    const { slug, title } = c.req.valid("json");
    if (slug === defaultProject) throw new PantheonError("conflict", `a project named '${slug}' already exists`, { details: { project: slug } });
    const record = await call(registryStub(c.env, slug).projectCreate({ slug, title: title ?? slug, createdAt: Date.now() }));
    await registryStub(c.env, projectIndexName).projectIndexPut(slug, record);
    return c.json({ project: { ...record, agents: 0 } }, 201);
  })
  .delete("/:slug", valid("param", slugParam), async (c) => {
    checkDeploymentAdmin(c, "delete projects");
    const { slug } = c.req.valid("param");
    if (slug === defaultProject) throw new PantheonError("bad_request", "the default project cannot be deleted; delete its agents instead", { details: { project: slug } });
    await projectRecord(c.env, slug);
    await deleteProject(c.env, slug);
    return c.body(null, 204);
  });

import { runPrincipal } from "../auth";
import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { projectNameSchema } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { createProjectSchema, defaultProject, projectIndexName, type ProjectRecord } from "../../core/projects";
import { defaultModelFrom } from "../../core/models";
import { modelSettingsSchema } from "../../core/run/limits";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { everyAgentsTools } from "./scripts";
import { compileFileScripts } from "./script-tools";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { projectOutbound } from "../project-secrets";
import { checkDeploymentAdmin, checkReach, deleteProject, projectRecord } from "../projects";
import { valid } from "../validation";
import { exportRedactor } from "../export-redaction";
import { handOut } from "./mcp-project";

export const slugParam = lazySchema(() => z.object({ slug: projectNameSchema }));
/** A project file, read by the import itself (its own checks name the path of each problem). */
const anyJson = lazySchema(() => z.unknown());

/** Pushes changed agents, and the agents connected to them (their `ask_<agent>` tool describes them), to their Durable Objects, once each. */
export async function pushProfiles(env: Env, project: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const registry = registryStub(env, project);
  const profiles = await registry.listAgents();
  const wanted = new Set(names);
  for (const profile of profiles) if (profile.connections.some((c) => wanted.has(c))) wanted.add(profile.name);
  await Promise.all(
    profiles.filter((p) => wanted.has(p.name)).map(async (p) => (await agentStub(env, project, p.name)).configure(p)),
  );
}

async function withCount(env: Env, record: ProjectRecord) {
  return { ...record, agents: await registryStub(env, record.slug).agentCount() };
}

/**
 * Projects are tenants, created explicitly: `POST /api/projects` (the deployment's admin token),
 * `GET /api/projects` (with agent counts; a project's own token sees only its project), `DELETE
 * /api/projects/:slug` with its agents. An unknown project is a 404 naming it on every route.
 */
export const projectRoutes = new Hono<AppEnv>()
  .get("/", scope("admin"), async (c) => {
    const own = c.get("principal") !== "admin";
    const indexed = own ? [] : await registryStub(c.env, projectIndexName).projectIndexList();
    const records = own
      ? [await projectRecord(c.env, c.get("project"))]
      : [await projectRecord(c.env, defaultProject), ...indexed.filter((p) => p.slug !== defaultProject)];
    records.sort((a, b) =>
      a.slug === defaultProject ? -1 : b.slug === defaultProject ? 1 : a.slug.localeCompare(b.slug),
    );
    return c.json({ projects: await Promise.all(records.map((r) => withCount(c.env, r))) });
  })
  .post("/", scope("admin"), valid("json", createProjectSchema), async (c) => {
    checkDeploymentAdmin(c, "create projects");
    const { slug, title } = c.req.valid("json");
    if (slug === defaultProject)
      throw new PantheonError("conflict", `a project named '${slug}' already exists`, { details: { project: slug } });
    const record = await call(
      registryStub(c.env, slug).projectCreate({ slug, title: title ?? slug, createdAt: Date.now() }),
    );
    await registryStub(c.env, projectIndexName).projectIndexPut(slug, record);
    return c.json({ project: { ...record, agents: 0 } }, 201);
  })
  .delete("/:slug", scope("admin"), valid("param", slugParam), async (c) => {
    checkDeploymentAdmin(c, "delete projects");
    const { slug } = c.req.valid("param");
    if (slug === defaultProject)
      throw new PantheonError("bad_request", "the default project cannot be deleted; delete its agents instead", {
        details: { project: slug },
      });
    await projectRecord(c.env, slug);
    await deleteProject(c.env, slug);
    return c.body(null, 204);
  })
  /**
   * A project file in: every agent created or updated, then every connection, in one go. A bad file
   * is refused whole (400 `invalid_project_file`, each problem at its JSON path); tools Pantheon does
   * not provide are kept as declared names and come back as warnings.
   */
  .post("/:slug/import", scope("admin"), valid("param", slugParam), valid("json", anyJson), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const registry = registryStub(c.env, slug);
    const body = c.req.valid("json");
    const named =
      body && typeof body === "object" && "agents" in body && body.agents && typeof body.agents === "object"
        ? Object.keys(body.agents)
        : [];
    const existing = new Set((await registry.listAgents()).map((a) => a.name));
    // Tools an existing agent has from its MCP servers are provided too.
    const agentTools: Record<string, string[]> = {};
    for (const name of named.filter((n) => existing.has(n)).slice(0, 100)) {
      const listed = await (await agentStub(c.env, slug, name)).listTools();
      if (listed.ok) agentTools[name] = listed.value.map((t) => t.name);
    }
    const defaultModel = modelSettingsSchema.parse(defaultModelFrom(c.env.PANTHEON_DEFAULT_PROVIDER));
    // The file's script tools are compiled here (core/sandbox); they and the project's own are tools the agents may list.
    const { scripts, issues } = await compileFileScripts(c.env, slug, body);
    const scriptNames = [
      ...(await registry.scriptToolList()).map((t) => t.name),
      ...scripts.map((t) => t.declaration.name),
    ];
    const result = issues.length
      ? ({
          ok: false,
          code: "invalid_project_file",
          message: `the project file is not valid: ${issues[0]?.path}: ${issues[0]?.message}`,
          details: { issues },
        } as const)
      : await registry.importProjectFile(body, {
          defaultModel,
          builtinTools: new Set([...everyAgentsTools, ...scriptNames]),
          scripts,
          agentTools,
          outbound: await projectOutbound(c.env, slug),
          configuredBy: runPrincipal(c),
        });
    if (!result.ok && result.code === "invalid_project_file") {
      return c.json(
        {
          error: {
            code: result.code,
            message: result.message,
            requestId: c.get("requestId"),
            issues: (result.details?.issues ?? []) as { path: string; message: string }[],
          },
        },
        400,
      );
    }
    const { report, touched, mcpServers } = await call(result);
    // The file declared MCP servers for all the agents: each connects them before its next turn.
    if (mcpServers) await handOut(c.env, slug, mcpServers);
    // Every agent of the file is pushed, changed or not: an import cut off after the registry's
    // transaction and before the pushes is healed by importing again (which then says changed: false).
    await pushProfiles(c.env, slug, [...touched, ...report.agents.unchanged]);
    return c.json(report, 200);
  })
  /** The project as a project file: what import reads, with Pantheon's own fields under `pantheon`. */
  .get("/:slug/export", scope("admin"), valid("param", slugParam), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    return c.json(exportRedactor(c.env).redactDeep(await registryStub(c.env, slug).exportProjectFile()), 200);
  });

import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import { addSpend, applyQuotaPatch, capsOf, noSpend, quotaPatchSchema } from "../../core/quotas";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { checkDeploymentAdmin, checkReach, projectRecord } from "../projects";
import { valid } from "../validation";
import { nameParam } from "./agents";

const slugOnly = lazySchema(() => z.object({ slug: projectNameSchema }));
const clockSchema = lazySchema(() =>
  z.strictObject({
    offsetMs: z
      .number()
      .int()
      .min(-366 * 86_400_000)
      .max(366 * 86_400_000),
  }),
);

/**
 * The project's caps and today's spend: the project's (the sum of its agents' own counters, which
 * count every call as it ends) and each agent's, with the caps that hold.
 */
export async function quotaReport(env: Env, project: string) {
  const registry = registryStub(env, project);
  const [view, profiles] = await Promise.all([registry.quotaView(), registry.listAgents()]);
  const agents = await Promise.all(
    profiles.map(async (profile) => {
      const spend = (await (await agentStub(env, project, profile.name)).status()).spend;
      return { name: profile.name, limits: capsOf(profile.runtime.limits), used: spend?.used ?? noSpend };
    }),
  );
  return {
    project: { name: project, ...view, used: agents.reduce((sum, a) => addSpend(sum, a.used), noSpend) },
    agents,
  };
}

/** Every agent of the project gets its profile again: it carries the project's caps and test clock. */
async function pushToAgents(env: Env, project: string): Promise<void> {
  const profiles = await registryStub(env, project).listAgents();
  await Promise.all(profiles.map(async (profile) => (await agentStub(env, project, profile.name)).configure(profile)));
}

/**
 * Daily caps (tokens and US dollars per UTC day) of the request's project and its agents:
 * `GET /api/quotas` (chat: what was spent today, against which caps), `PUT /api/quotas` (the
 * project's admin, within the deployment's ceiling), `PUT /api/quotas/agents/:name` (an agent's own,
 * kept in its runtime limits as a script's `(limits :tokens-per-day …)` sets them).
 */
export const quotaRoutes = new Hono<AppEnv>()
  .get("/", scope("chat"), async (c) => c.json(await quotaReport(c.env, c.get("project"))))
  .put("/", scope("admin"), valid("json", quotaPatchSchema), async (c) => {
    const project = c.get("project");
    await call(registryStub(c.env, project).quotaSetOwn(c.req.valid("json")));
    await pushToAgents(c.env, project);
    return c.json(await quotaReport(c.env, project));
  })
  .put("/agents/:name", scope("admin"), valid("param", nameParam), valid("json", quotaPatchSchema), async (c) => {
    const project = c.get("project");
    const registry = registryStub(c.env, project);
    const current = await call(registry.getAgent(c.req.valid("param").name));
    const limits = {
      ...current.runtime.limits,
      ...applyQuotaPatch(capsOf(current.runtime.limits), c.req.valid("json")),
    };
    for (const key of ["tokensPerDay", "usdPerDay"] as const) if (c.req.valid("json")[key] === null) delete limits[key];
    const profile = await call(registry.updateAgent(current.name, { runtime: { ...current.runtime, limits } }));
    await (await agentStub(c.env, project, profile.name)).configure(profile);
    return c.json({ name: profile.name, limits: capsOf(profile.runtime.limits) });
  });

/**
 * The deployment's side: `PUT /api/projects/:slug/quota-ceiling` sets caps the project's admin cannot
 * raise (deployment admin only); `PUT /api/projects/:slug/test-clock` moves the project's quota clock,
 * only on a deployment with `PANTHEON_TEST_CLOCK=1` and only for its admin (tests of the day boundary).
 */
export const quotaDeploymentRoutes = new Hono<AppEnv>()
  .put("/:slug/quota-ceiling", scope("admin"), valid("param", slugOnly), valid("json", quotaPatchSchema), async (c) => {
    checkDeploymentAdmin(c, "set a project's quota ceiling");
    const { slug } = c.req.valid("param");
    await projectRecord(c.env, slug);
    await registryStub(c.env, slug).quotaSetCeiling(c.req.valid("json"));
    await pushToAgents(c.env, slug);
    return c.json(await quotaReport(c.env, slug));
  })
  .put("/:slug/test-clock", scope("admin"), valid("param", slugOnly), valid("json", clockSchema), async (c) => {
    if (c.env.PANTHEON_TEST_CLOCK !== "1")
      throw new PantheonError("not_found", "this deployment has no test clock (PANTHEON_TEST_CLOCK is not set)", {
        details: { route: "test-clock" },
      });
    checkDeploymentAdmin(c, "move a project's quota clock");
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    await call(registryStub(c.env, slug).quotaSetClock(c.req.valid("json").offsetMs));
    await pushToAgents(c.env, slug);
    return c.json({ project: slug, offsetMs: c.req.valid("json").offsetMs });
  });

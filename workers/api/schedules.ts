import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { agentNameSchema } from "../../core/agents";
import { namePattern } from "../../core/dsl";
import { cronIndexName, cronMatches } from "../../core/schedule";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";

export { cronIndexName } from "../../core/schedule";

/**
 * The worker's `scheduled` handler: wakes each agent that has a cron behavior matching the minute
 * of `scheduledTime`. The agent runs each due behavior at most once per minute, so a repeated
 * trigger for the same minute runs nothing twice. Agents deleted since are dropped from the index.
 * @example
 * export default { scheduled: (controller, env, ctx) => ctx.waitUntil(wakeCronBehaviors(env, controller.scheduledTime)) };
 */
export async function wakeCronBehaviors(
  env: Env,
  scheduledTime: number,
): Promise<{ project: string; agent: string; ran: string[] }[]> {
  const index = await registryStub(env, cronIndexName).cronBehaviors();
  const due = index.filter((entry) => entry.crons.some((c) => cronMatches(c.cron, scheduledTime)));
  const results = await Promise.allSettled(
    due.map(async ({ project, agent }) => {
      const outcome = await (await agentStub(env, project, agent)).runCronBehaviors(scheduledTime);
      if (!outcome.ok && outcome.code === "not_found")
        await registryStub(env, cronIndexName).indexCronBehaviors(project, agent, []);
      return { project, agent, ran: outcome.ok ? outcome.value : [] };
    }),
  );
  return results.flatMap((r) => {
    if (r.status === "fulfilled") return [r.value];
    console.error(
      JSON.stringify({
        level: "error",
        event: "cron_wake_failed",
        message: r.reason instanceof Error ? r.reason.message : String(r.reason),
      }),
    );
    return [];
  });
}

const behaviorParam = lazySchema(() =>
  z.object({
    name: agentNameSchema,
    behavior: z.string().regex(namePattern, "a behavior name from the agent's script"),
  }),
);

/** `GET /api/agents/:name/schedules`: what will run when; `POST …/schedules/:behavior/pause|resume`. */
export const scheduleRoutes = new Hono<AppEnv>()
  .get("/:name/schedules", scope("admin"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ schedules: await call(agent.behaviorSchedules()) });
  })
  .post("/:name/schedules/:behavior/pause", scope("admin"), valid("param", behaviorParam), async (c) => {
    const { name, behavior } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json(await call(agent.pauseBehavior(behavior, true)));
  })
  .post("/:name/schedules/:behavior/resume", scope("admin"), valid("param", behaviorParam), async (c) => {
    const { name, behavior } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json(await call(agent.pauseBehavior(behavior, false)));
  });

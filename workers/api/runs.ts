import { Hono } from "hono";
import { z } from "zod";
import { agentNameSchema } from "../../core/agents";
import type { AppEnv } from "../env";
import { agentStub, call } from "../stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";

export const runParam = z.object({ name: agentNameSchema, id: z.string().min(1).max(64) });

export const runRoutes = new Hono<AppEnv>()
  .get("/:name/runs", valid("param", nameParam), valid("query", z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) })), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ runs: await call(agent.listRuns(c.req.valid("query").limit)) });
  })
  .get("/:name/runs/:id", valid("param", runParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json(await call(agent.getRun(id)));
  });

import { Hono } from "hono";
import { z } from "zod";
import { agentNameSchema } from "../../core/agents";
import { toolNamePattern } from "../../core/tools";
import type { AppEnv } from "../env";
import { agentStub, call } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";

const toolParam = z.object({ name: agentNameSchema, tool: z.string().regex(toolNamePattern, "a tool name") });

export const toolRoutes = new Hono<AppEnv>()
  .get("/:name/tools", valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ tools: await call(agent.listTools()) });
  })
  /**
   * A person calls a tool by hand: a traced run (trigger `manual`) through every gate. 200 with the
   * output (or the tool's error), 202 while it waits (a pending approval, or another agent's answer),
 * 422 when a gate refused it.
   */
  .post("/:name/tools/:tool/invoke", valid("param", toolParam), valid("json", z.strictObject({ arguments: z.record(z.string(), z.unknown()).default({}) })), async (c) => {
    const { name, tool } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    const result = await call(agent.invokeTool(tool, c.req.valid("json").arguments, c.get("principal")));
    return "pending" in result || "waiting" in result ? c.json(result, 202) : c.json(result, 200);
  });

import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { agentNameSchema } from "../../core/agents";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";
import { sessionIdSchema } from "./messages";

const sessionParam = lazySchema(() => z.object({ name: agentNameSchema, id: sessionIdSchema }));
const title = lazySchema(() => z.string().trim().min(1, "a title cannot be empty").max(200, "at most 200 characters"));

export const sessionRoutes = new Hono<AppEnv>()
  .get("/:name/sessions", scope("chat"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json({ sessions: await call(agent.listSessions()) });
  })
  .post(
    "/:name/sessions",
    scope("chat"),
    valid("param", nameParam),
    valid(
      "json",
      lazySchema(() => z.strictObject({ title: title.optional() })),
    ),
    async (c) => {
      const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
      return c.json(await call(agent.createSession(c.req.valid("json").title)), 201);
    },
  )
  .patch(
    "/:name/sessions/:id",
    scope("chat"),
    valid("param", sessionParam),
    valid(
      "json",
      lazySchema(() => z.strictObject({ title })),
    ),
    async (c) => {
      const { name, id } = c.req.valid("param");
      const agent = await agentStub(c.env, c.get("project"), name);
      return c.json(await call(agent.renameSession(id, c.req.valid("json").title)));
    },
  )
  .post(
    "/:name/sessions/:id/fork",
    scope("chat"),
    valid("param", sessionParam),
    valid(
      "json",
      lazySchema(() =>
        z.strictObject({ fromMessageId: z.string().min(1).max(64).optional(), title: title.optional() }),
      ),
    ),
    async (c) => {
      const { name, id } = c.req.valid("param");
      const agent = await agentStub(c.env, c.get("project"), name);
      return c.json(await call(agent.forkSession(id, c.req.valid("json"))), 201);
    },
  )
  .delete("/:name/sessions/:id", scope("chat"), valid("param", sessionParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    await call(agent.deleteSession(id));
    return c.body(null, 204);
  });

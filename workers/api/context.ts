import { Hono } from "hono";
import { z } from "zod";
import { maxItemsLimit } from "../../core/context";
import { lazySchema } from "../../core/lazy-schema";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";
import { sessionIdSchema } from "./messages";

const previewQuery = lazySchema(() =>
  z.object({
    q: z.string().trim().min(1, "q is the message to compile a context for").max(32_000),
    session: sessionIdSchema.optional(),
    /** A smaller prompt budget than the agent's, to see what would be dropped. */
    maxTokens: z.coerce.number().int().min(1).max(200_000).optional(),
    /** How many ranked memories the compile may include (within the token budget); 12 when absent. */
    k: z.coerce
      .number({ message: "k is a whole number of memories" })
      .int("k is a whole number of memories")
      .min(1, "k is at least 1")
      .max(maxItemsLimit, `k is at most ${maxItemsLimit}`)
      .optional(),
  }),
);

const sourceParam = lazySchema(() =>
  nameParam.extend({
    source: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a source name: a lower-case slug")
      .refine((s) => s !== "memory", "'memory' is the agent's own memory, not a document source"),
  }),
);

const documentBody = lazySchema(() =>
  z.strictObject({
    title: z.string().trim().min(1).max(300),
    text: z.string().trim().min(1, "the document is empty").max(60_000),
  }),
);

/** What the model would see for a message, and documents added to an agent's context sources. */
export const contextRoutes = new Hono<AppEnv>()
  .get("/:name/context", scope("admin"), valid("param", nameParam), valid("query", previewQuery), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    const { q, session, maxTokens, k } = c.req.valid("query");
    return c.json(
      await call(
        agent.previewContext({
          q,
          ...(session ? { session } : {}),
          ...(maxTokens ? { maxTokens } : {}),
          ...(k ? { k } : {}),
        }),
      ),
    );
  })
  .post(
    "/:name/sources/:source/documents",
    scope("admin"),
    valid("param", sourceParam),
    valid("json", documentBody),
    async (c) => {
      const { name, source } = c.req.valid("param");
      const agent = await agentStub(c.env, c.get("project"), name);
      return c.json(await call(agent.addDocument(source, c.req.valid("json"))), 201);
    },
  );

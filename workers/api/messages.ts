import { runPrincipal } from "../auth";
import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { runLimitOverridesSchema } from "../../core/run/limits";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { nameParam } from "./agents";
import { imageIdPattern, maxImagesPerMessage } from "../../core/images";
import { imageStoreOf, refsOfIds } from "../images";

export const sessionIdSchema = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9-]+$/, "a session id as returned by the sessions API"),
);

/** Structured input: a JSON object of at most 64 fields and 32,000 characters, read by behaviors as `input`. */
export const structuredInput = lazySchema(() =>
  z
    .record(
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[A-Za-z_][\w.-]*$/, "a field name: letters, digits, '_', '.', '-'"),
      z.json(),
    )
    .refine((value) => Object.keys(value).length <= 64, "at most 64 fields")
    .refine((value) => JSON.stringify(value).length <= 32_000, "at most 32,000 characters of JSON"),
);

const messageBody = lazySchema(() =>
  z
    .strictObject({
      content: z
        .string()
        .trim()
        .min(1, "write something: content cannot be empty")
        .max(32_000, "at most 32,000 characters")
        .optional(),
      /** Beside or instead of `content`: behaviors see its fields as `(get input "…")`. */
      input: structuredInput.optional(),
      session: sessionIdSchema.optional(),
      /**
       * The sender's own id for this message (the PWA's outbox keeps one with each): sent again by the
       * same token, it is the same message — the first send's run and reply, no second message.
       */
      clientId: z
        .string()
        .regex(/^[A-Za-z0-9_-]{8,64}$/, "a client message id: 8 to 64 letters, digits, '-' or '_' (a UUID fits)")
        .optional(),
      /** Lower this run's limits (clamped to the agent's own; never raised). */
      limits: runLimitOverridesSchema.optional(),
      /** Another of the agent's allowed models for this request, as `provider/model` (the agent checks it). */
      model: z
        .string()
        .min(3)
        .max(161)
        .regex(/^[a-z][a-z0-9-]*\/.+$/, 'a model as "provider/model", e.g. "groq/llama-3.1-70b"')
        .optional(),
      /** Narrow the agent's tools for this session (kept for its later turns); null gives all of them back. */
      tools: z.array(z.string().min(1).max(64)).max(100).nullable().optional(),
      /** Images uploaded to this agent (POST …/images), by id: the model sees them with the text. */
      images: z
        .array(z.string().regex(imageIdPattern, "an image id as POST /api/agents/:name/images answered"))
        .max(maxImagesPerMessage, `at most ${maxImagesPerMessage} images per message`)
        .optional(),
    })
    .refine((body) => body.content !== undefined || body.input !== undefined || !!body.images?.length, {
      message: "send content, input, images, or some of them",
      path: ["content"],
    })
    // Without text, the request as the history and a plain model turn see it is the input itself.
    .transform(({ content, ...rest }) => ({
      ...rest,
      content: content ?? (rest.input ? JSON.stringify(rest.input) : ""),
    })),
);

const historyQuery = lazySchema(() =>
  z.object({
    session: sessionIdSchema.optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  }),
);

export const messageRoutes = new Hono<AppEnv>()
  .post("/:name/messages", scope("chat"), valid("param", nameParam), valid("json", messageBody), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    // A person's device writes in their name (the history shows who said it); other tokens do not.
    // The run acts with this token's rights: a tool beyond them waits for a holder (core/gates scope.ts).
    const person = c.get("person");
    const { images: imageIds, ...body } = c.req.valid("json");
    const images = imageIds?.length
      ? await refsOfIds(imageStoreOf(c.env), { project: c.get("project"), agent: c.req.valid("param").name }, imageIds)
      : undefined;
    const input = {
      ...body,
      ...(images ? { images } : {}),
      ...(person ? { name: person } : {}),
      principal: runPrincipal(c),
    };
    if ((c.req.header("accept") ?? "").includes("text/event-stream")) {
      const stream = await call(agent.chatStream(input));
      // `c.body` (not a bare Response) keeps the JSON answer's type in the route's contract.
      return c.body(stream, 200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "x-request-id": c.get("requestId"),
      });
    }
    return c.json(await call(agent.chat(input)));
  })
  .get("/:name/messages", scope("chat"), valid("param", nameParam), valid("query", historyQuery), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(await call(agent.listMessages(c.req.valid("query"))));
  });

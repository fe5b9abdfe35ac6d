import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { memoryKinds, occurredAtSchema, type MemoryKind } from "../../core/context";
import { PantheonError } from "../../core/errors";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call } from "../../durable-objects/stubs";
import { checkJsonLines, valid } from "../validation";
import { nameParam } from "./agents";

const kind = lazySchema(() => z.enum(memoryKinds as [MemoryKind, ...MemoryKind[]]));
const idParam = lazySchema(() =>
  nameParam.extend({
    id: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, "a memory id as returned by the memories API"),
  }),
);

const listQuery = lazySchema(() =>
  z.object({
    q: z.string().max(1000).optional(),
    kind: kind.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  }),
);

const memoryBody = lazySchema(() =>
  z.strictObject({
    text: z.string().trim().min(1, "write something to remember").max(8000),
    kind: kind.exclude(["summary", "chunk"]).default("fact"),
    importance: z.number().min(0).max(1).optional(),
    entities: z.array(z.string().min(1).max(200)).max(50).optional(),
    /** When the thing happened, if not now: an ISO 8601 date or date-time, or epoch milliseconds. */
    occurredAt: occurredAtSchema.optional(),
  }),
);

/**
 * An agent's memory: list and search, read, add, delete, status, JSONL export and import,
 * re-embedding after an embedder change, and consolidation on demand.
 */
export const memoryRoutes = new Hono<AppEnv>()
  .get("/:name/memories/status", scope("admin"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(await call(agent.memoryStatus()));
  })
  .get("/:name/memories/export", scope("admin"), valid("param", nameParam), async (c) => {
    const { name } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    const text = await call(agent.exportMemories());
    return c.body(text, 200, {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${name}-memories.jsonl"`,
    });
  })
  .post("/:name/memories/import", scope("admin"), valid("param", nameParam), async (c) => {
    if (!(c.req.header("content-type") ?? "").includes("application/x-ndjson")) {
      throw new PantheonError(
        "unsupported_media_type",
        "send the memories as JSON lines with 'Content-Type: application/x-ndjson'",
      );
    }
    const text = await c.req.text();
    checkJsonLines(text);
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(await call(agent.importMemories(text)));
  })
  .post("/:name/memories/reembed", scope("admin"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(await call(agent.reembedMemories()));
  })
  .post("/:name/memories/consolidate", scope("admin"), valid("param", nameParam), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(await call(agent.consolidateMemories()));
  })
  .get("/:name/memories", scope("admin"), valid("param", nameParam), valid("query", listQuery), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(await call(agent.listMemories(c.req.valid("query"))));
  })
  .post("/:name/memories", scope("admin"), valid("param", nameParam), valid("json", memoryBody), async (c) => {
    const agent = await agentStub(c.env, c.get("project"), c.req.valid("param").name);
    return c.json(await call(agent.createMemory(c.req.valid("json"))), 201);
  })
  .get("/:name/memories/:id", scope("admin"), valid("param", idParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    return c.json(await call(agent.getMemory(id)));
  })
  .delete("/:name/memories/:id", scope("admin"), valid("param", idParam), async (c) => {
    const { name, id } = c.req.valid("param");
    const agent = await agentStub(c.env, c.get("project"), name);
    await call(agent.deleteMemory(id));
    return c.body(null, 204);
  });

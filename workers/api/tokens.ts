import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../env";
import { call, registryStub } from "../stubs";
import { valid } from "../validation";

export const tokenRoutes = new Hono<AppEnv>()
  .get("/", async (c) => c.json({ tokens: await registryStub(c.env, c.get("project")).listTokens() }))
  .post("/", valid("json", z.strictObject({ name: z.string().trim().min(1, "name the token (who or what uses it)").max(100) })), async (c) => {
    const created = await registryStub(c.env, c.get("project")).createToken(c.req.valid("json").name);
    return c.json(created, 201);
  })
  .delete("/:id", valid("param", z.object({ id: z.string().uuid("a token id as returned by GET /api/tokens") })), async (c) => {
    await call(registryStub(c.env, c.get("project")).deleteToken(c.req.valid("param").id));
    return c.body(null, 204);
  });

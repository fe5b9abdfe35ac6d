import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import { scopeSchema } from "../../core/auth";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { pushAudienceChanged } from "../push-audience";
import { valid } from "../validation";

const tokenBody = lazySchema(() =>
  z.strictObject({
    name: z.string().trim().min(1, "name the token (who or what uses it)").max(100),
    /** Least privilege by default: a token for a phone or a chat client. */
    scope: scopeSchema.default("chat"),
  }),
);

/** Tokens of the project (admin scope). A revoked token stops working at once and its open sockets are closed. */
export const tokenRoutes = new Hono<AppEnv>()
  .get("/", scope("admin"), async (c) => c.json({ tokens: await registryStub(c.env, c.get("project")).listTokens() }))
  .post("/", scope("admin"), valid("json", tokenBody), async (c) => {
    const { name, scope } = c.req.valid("json");
    const created = await registryStub(c.env, c.get("project")).createToken(name, scope);
    return c.json(created, 201);
  })
  .delete(
    "/:id",
    scope("admin"),
    valid(
      "param",
      lazySchema(() => z.object({ id: z.string().uuid("a token id as returned by GET /api/tokens") })),
    ),
    async (c) => {
      const project = c.get("project");
      const { id } = c.req.valid("param");
      const registry = registryStub(c.env, project);
      await call(registry.deleteToken(id));
      // Every agent of the project closes the sockets opened with this token, and forgets its devices.
      const agents = await registry.listAgents();
      await Promise.allSettled([
        ...agents.map(async (agent) => (await agentStub(c.env, project, agent.name)).closeSocketsOf(id)),
        pushAudienceChanged(c.env, project),
      ]);
      return c.body(null, 204);
    },
  );

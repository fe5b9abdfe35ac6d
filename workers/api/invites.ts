import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { newToken, sha256Hex } from "../../core/auth";
import { inviteCreateSchema, inviteRedeemSchema, joinLink, newInviteCode } from "../../core/invites";
import { call, registryStub } from "../../durable-objects/stubs";
import { projectMiddleware } from "../auth";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { valid } from "../validation";
import { lazySchema } from "../../core/lazy-schema";

/**
 * Invites of the project (admin scope, like tokens): a one-time sign-in link for a person by name.
 * The code is shown once, in the link; only its SHA-256 is stored.
 */
export const inviteRoutes = new Hono<AppEnv>()
  .get("/", scope("admin"), async (c) => c.json({ invites: await registryStub(c.env, c.get("project")).listInvites() }))
  .post("/", scope("admin"), valid("json", inviteCreateSchema), async (c) => {
    const { name, scope, expiresIn } = c.req.valid("json");
    const project = c.get("project");
    const code = newInviteCode();
    const invite = await registryStub(c.env, project).createInvite({
      name,
      scope,
      hash: await sha256Hex(code),
      seconds: expiresIn,
    });
    return c.json({ ...invite, project, code, link: joinLink(new URL(c.req.url).origin, code, project) }, 201);
  })
  .delete(
    "/:id",
    scope("admin"),
    valid(
      "param",
      lazySchema(() => z.object({ id: z.string().uuid("an invite id as returned by GET /api/invites") })),
    ),
    async (c) => {
      await call(registryStub(c.env, c.get("project")).deleteInvite(c.req.valid("param").id));
      return c.body(null, 204);
    },
  );

/**
 * `POST /api/invites/redeem` {code, device?}: no bearer token, the code is the credential. Signs one
 * device in as the invited person: makes its own token (revocable in `/api/tokens`) and answers it
 * once. The code is looked up by its SHA-256, so the time taken says nothing about how much of a
 * guess was right; a code is 256 random bits, so guessing is hopeless anyway. One use: a second
 * redeem (or one after expiry) answers 410 saying which.
 */
export const inviteRedeemRoutes = new Hono<AppEnv>().post(
  "/api/invites/redeem",
  projectMiddleware,
  bodyLimit({
    maxSize: 4 * 1024,
    onError: () => {
      throw new HTTPException(413);
    },
  }),
  valid("json", inviteRedeemSchema),
  async (c) => {
    const { code, device } = c.req.valid("json");
    const project = c.get("project");
    const token = newToken();
    const [codeHash, tokenHash] = await Promise.all([sha256Hex(code), sha256Hex(token)]);
    const created = await call(registryStub(c.env, project).redeemInvite(codeHash, tokenHash, device ?? null));
    c.header("cache-control", "no-store");
    return c.json({ ...created, project, token }, 201);
  },
);

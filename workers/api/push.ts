import { Hono } from "hono";
import { z } from "zod";
import { agentNameSchema } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import { pushEndpointRefusal, pushSubscriptionSchema } from "../../core/push";
import { outboundSettingsFrom } from "../../core/tools";
import { call, registryStub } from "../../durable-objects/stubs";
import type { AppContext, AppEnv } from "../env";
import { scope } from "../scopes";
import { valid } from "../validation";
import { pushAudienceChanged } from "../push-audience";
import { type PushEnv, vapidOf } from "../../adapters/web-push";

/** A person's device token, or a refusal saying who may: only a person's device has notifications. */
function deviceOf(c: AppContext): { person: string; tokenId: string } {
  const person = c.get("person");
  const tokenId = c.get("tokenId");
  if (!person || !tokenId)
    throw new PantheonError("forbidden", "only a person's device (signed in by an invite) has push notifications", {
      details: { principal: c.get("principal") },
    });
  return { person, tokenId };
}

const idParam = lazySchema(() =>
  z.object({ id: z.string().uuid("a subscription id as GET /api/push/subscriptions lists it") }),
);
const agentParam = lazySchema(() => z.object({ agent: agentNameSchema }));

/**
 * Web Push (docs/push.md). The VAPID public key for the browser; a person's device subscribes,
 * lists and revokes its subscriptions and mutes agents; the admin lists and revokes anyone's.
 */
export const pushRoutes = new Hono<AppEnv>()
  .get("/key", scope("chat"), async (c) => {
    const vapid = await vapidOf(c.env as PushEnv);
    return c.json({ enabled: vapid !== null, publicKey: vapid?.key.publicKey ?? null });
  })
  .post("/subscriptions", scope("chat"), valid("json", pushSubscriptionSchema), async (c) => {
    const { tokenId } = deviceOf(c);
    const sub = c.req.valid("json");
    const refused = pushEndpointRefusal(sub.endpoint, outboundSettingsFrom(c.env).allowLoopback);
    if (refused)
      throw new PantheonError("validation_failed", refused, {
        details: { issues: [{ path: ["endpoint"], message: refused }] },
      });
    if ((await vapidOf(c.env as PushEnv)) === null)
      throw new PantheonError("conflict", "push is not set up on this deployment: PANTHEON_VAPID_KEY is missing", {
        details: { secret: "PANTHEON_VAPID_KEY" },
      });
    const info = await registryStub(c.env, c.get("project")).pushSubscribe(tokenId, sub);
    // Before the answer: the device's next notice must not be skipped by an agent's old copy.
    await pushAudienceChanged(c.env, c.get("project"));
    return c.json(info, 201);
  })
  .get("/subscriptions", scope("chat"), async (c) => {
    const registry = registryStub(c.env, c.get("project"));
    // The admin (a token of admin scope that is no person's) sees every device; a person their own.
    if (c.get("scope") === "admin" && !c.get("person")) return c.json({ subscriptions: await registry.pushList() });
    // A plain token is no one's device: it has no subscriptions.
    const person = c.get("person");
    return c.json({ subscriptions: person ? await registry.pushList(person) : [] });
  })
  .delete("/subscriptions/:id", scope("chat"), valid("param", idParam), async (c) => {
    const registry = registryStub(c.env, c.get("project"));
    // A person removes their own; a plain token none (its answer is the missing one's, so ids say nothing).
    const person = c.get("scope") === "admin" && !c.get("person") ? undefined : (c.get("person") ?? "\u0000");
    await call(registry.pushRemove(c.req.valid("param").id, person));
    await pushAudienceChanged(c.env, c.get("project"));
    return c.body(null, 204);
  })
  .get("/mutes", scope("chat"), async (c) =>
    c.json({ agents: await registryStub(c.env, c.get("project")).pushMutes(deviceOf(c).person) }),
  )
  .put("/mutes/:agent", scope("chat"), valid("param", agentParam), async (c) => {
    await registryStub(c.env, c.get("project")).pushMute(deviceOf(c).person, c.req.valid("param").agent, true);
    return c.body(null, 204);
  })
  .delete("/mutes/:agent", scope("chat"), valid("param", agentParam), async (c) => {
    await registryStub(c.env, c.get("project")).pushMute(deviceOf(c).person, c.req.valid("param").agent, false);
    return c.body(null, 204);
  });

import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import { providerInputSchema, providerNameSchema, type ModelProvider } from "../../core/models";
import { modelBaseUrlRefusal } from "../../core/secrets";
import { outboundSettingsFrom } from "../../core/tools";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { checkReach, projectRecord } from "../projects";
import { valid } from "../validation";

const slugOnly = lazySchema(() => z.object({ slug: projectNameSchema }));
const providerParam = lazySchema(() => z.object({ slug: projectNameSchema, name: providerNameSchema }));

/** Pushes the profiles of the agents whose model names `users`' provider: they build their cascade from the profile. */
async function reconfigure(env: Env, slug: string, users: string[]): Promise<void> {
  if (users.length === 0) return;
  const registry = registryStub(env, slug);
  const profiles = (await registry.listAgents()).filter((agent) => users.includes(agent.name));
  await Promise.all(profiles.map(async (profile) => (await agentStub(env, slug, profile.name)).configure(profile)));
}

/**
 * A project's named model providers (admin of that project, or the deployment admin):
 * `PUT /:slug/providers/:name` `{ kind, baseUrl, keySecret? }` names an OpenAI-compatible server (or
 * OpenAI/Anthropic at a URL) whose key is one of the project's own secrets — the base URL passes the
 * outbound guard, as every URL the project names does; agents then name its models `name/model`.
 * The list shows the secret's name, never a value. `DELETE` refuses while an agent's model names it.
 */
export const providerRoutes = new Hono<AppEnv>()
  .get("/:slug/providers", scope("admin"), valid("param", slugOnly), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    return c.json({ providers: await registryStub(c.env, slug).providerList() });
  })
  .get("/:slug/providers/:name", scope("admin"), valid("param", providerParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const provider = (await registryStub(c.env, slug).providerList()).find((p) => p.name === name);
    if (!provider)
      throw new PantheonError("not_found", `no provider '${name}' in project '${slug}'`, {
        details: { provider: name },
      });
    return c.json({ provider });
  })
  .put(
    "/:slug/providers/:name",
    scope("admin"),
    valid("param", providerParam),
    valid("json", providerInputSchema),
    async (c) => {
      const { slug, name } = c.req.valid("param");
      checkReach(c, slug);
      await projectRecord(c.env, slug);
      const input = c.req.valid("json");
      const refused = modelBaseUrlRefusal(input.baseUrl, outboundSettingsFrom(c.env));
      if (refused) {
        throw new PantheonError("validation_failed", `baseUrl: ${refused}`, {
          details: { issues: [{ path: ["baseUrl"], message: `an http(s) URL of a public model server; ${refused}` }] },
        });
      }
      const provider: ModelProvider = {
        name,
        kind: input.kind,
        baseUrl: input.baseUrl,
        ...(input.keySecret ? { keySecret: input.keySecret } : {}),
      };
      const stored = await call(registryStub(c.env, slug).providerPut(provider));
      await reconfigure(c.env, slug, stored.users);
      return c.json({ provider: stored.provider, agents: stored.users });
    },
  )
  .delete("/:slug/providers/:name", scope("admin"), valid("param", providerParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    await call(registryStub(c.env, slug).providerDelete(name));
    return c.body(null, 204);
  });

import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import {
  grantNameSchema,
  modelBaseUrlRefusal,
  projectSecretNameSchema,
  readDeploymentSecret,
  secretValueInputSchema,
} from "../../core/secrets";
import { outboundSettingsFrom } from "../../core/tools";
import { call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { botSecretOfProject, cipherOf, secretsChanged } from "../project-secrets";
import { assertBotFree } from "../doors/gateways/admin-routes";
import { checkDeploymentAdmin, checkReach, projectRecord } from "../projects";
import { valid } from "../validation";

const secretParam = lazySchema(() => z.object({ slug: projectNameSchema, name: projectSecretNameSchema }));
const grantParam = lazySchema(() => z.object({ slug: projectNameSchema, name: grantNameSchema }));
const slugOnly = lazySchema(() => z.object({ slug: projectNameSchema }));

/**
 * A project's secrets (admin of that project, or the deployment admin): `PUT /:slug/secrets/:name`
 * seals the value under the deployment key and stores only that; the list shows names, update times
 * and short keyed fingerprints, never a value; `DELETE` removes one. `PUT`/`DELETE /:slug/grants/:name`
 * grant a deployment (worker) secret to the project by name: the deployment admin only. Every
 * change tells the project's agents that name the secret to forget the values they opened.
 */
export const secretRoutes = new Hono<AppEnv>()
  .get("/:slug/secrets", scope("admin"), valid("param", slugOnly), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    return c.json(await registryStub(c.env, slug).secretList());
  })
  .put(
    "/:slug/secrets/:name",
    scope("admin"),
    valid("param", secretParam),
    valid("json", secretValueInputSchema),
    async (c) => {
      const { slug, name } = c.req.valid("param");
      checkReach(c, slug);
      await projectRecord(c.env, slug);
      const { value } = c.req.valid("json");
      // The project's model server is an outbound URL its admin names: the HTTP tools' guard applies.
      const baseUrlRefused =
        name === "OPENAI_BASE_URL" ? modelBaseUrlRefusal(value, outboundSettingsFrom(c.env)) : undefined;
      if (baseUrlRefused) {
        throw new PantheonError("validation_failed", `OPENAI_BASE_URL: ${baseUrlRefused}`, {
          details: {
            issues: [
              { path: ["value"], message: `an http(s) URL of a public OpenAI-compatible server; ${baseUrlRefused}` },
            ],
          },
        });
      }
      const sealed = await (await cipherOf(c.env)).seal(slug, name, value);
      // A secret this project's Telegram gateway names may not become another project's bot.
      if (await botSecretOfProject(c.env, slug, name)) await assertBotFree(c.env, slug, name, sealed.fingerprint);
      const secret = await call(registryStub(c.env, slug).secretPut(sealed));
      await secretsChanged(c.env, slug, name);
      return c.json({ secret });
    },
  )
  .delete("/:slug/secrets/:name", scope("admin"), valid("param", secretParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    await call(registryStub(c.env, slug).secretDelete(name));
    await secretsChanged(c.env, slug, name);
    return c.body(null, 204);
  })
  .put("/:slug/grants/:name", scope("admin"), valid("param", grantParam), async (c) => {
    checkDeploymentAdmin(c, "grant deployment secrets to a project");
    const { slug, name } = c.req.valid("param");
    await projectRecord(c.env, slug);
    if (!(await readDeploymentSecret(c.env as unknown as Record<string, unknown>, name))) {
      throw new PantheonError(
        "validation_failed",
        `the deployment has no worker secret ${name}: set it first (\`npx wrangler secret put ${name}\`, or .dev.vars locally)`,
        {
          details: { issues: [{ path: ["name"], message: `a worker secret of this deployment; ${name} is not set` }] },
        },
      );
    }
    const grant = await call(registryStub(c.env, slug).secretGrant(name));
    await secretsChanged(c.env, slug, name);
    return c.json({ grant });
  })
  .delete("/:slug/grants/:name", scope("admin"), valid("param", grantParam), async (c) => {
    checkDeploymentAdmin(c, "revoke deployment secrets from a project");
    const { slug, name } = c.req.valid("param");
    await projectRecord(c.env, slug);
    await call(registryStub(c.env, slug).secretRevoke(name));
    await secretsChanged(c.env, slug, name);
    return c.body(null, 204);
  });

import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { PantheonError } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import { checkOutboundUrl, outboundSettingsFrom } from "../../core/tools";
import { defaultForge, forgeSettingSchema } from "../../core/work";
import { registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { checkReach, projectRecord } from "../projects";
import { valid } from "../validation";

const slugOnly = lazySchema(() => z.object({ slug: projectNameSchema }));

/**
 * A project's forge: the API its pull requests open through (GitHub, GitHub Enterprise, Gitea,
 * GitLab), so one project uses GitHub Enterprise while another uses github.com. `GET` answers it (or
 * the deployment's default, `configured: false`); `PUT` sets it once its URL passes the outbound
 * guard (a private host only when the deployment names it in PANTHEON_OUTBOUND_PRIVATE_HOSTS);
 * `DELETE` goes back to the default. That project's admin, or the deployment's.
 */
export const forgeRoutes = new Hono<AppEnv>()
  .get("/:slug/forge", scope("admin"), valid("param", slugOnly), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const forge = await registryStub(c.env, slug).forgeGet();
    return c.json(forge ? { ...forge, configured: true } : { ...defaultForgeOf(c.env), configured: false });
  })
  .put("/:slug/forge", scope("admin"), valid("param", slugOnly), valid("json", forgeSettingSchema), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const forge = c.req.valid("json");
    const host = new URL(forge.apiBase).hostname;
    const check = checkOutboundUrl(forge.apiBase, [host], outboundSettingsFrom(c.env));
    if (!check.ok)
      throw new PantheonError("validation_failed", `apiBase: ${check.reason}`, {
        details: {
          issues: [
            {
              path: ["apiBase"],
              message: `a public forge API (a private host only when the deployment names it in PANTHEON_OUTBOUND_PRIVATE_HOSTS); ${check.reason}`,
            },
          ],
        },
      });
    await registryStub(c.env, slug).forgeSet(forge);
    return c.json({ ...forge, configured: true });
  })
  .delete("/:slug/forge", scope("admin"), valid("param", slugOnly), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    await registryStub(c.env, slug).forgeSet(null);
    return c.body(null, 204);
  });

const defaultForgeOf = (env: Env) =>
  defaultForge((env as unknown as Record<string, string | undefined>).PANTHEON_GITHUB_API_BASE);

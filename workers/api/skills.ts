import { Hono } from "hono";
import { z } from "zod";
import { projectNameSchema } from "../../core/agents";
import { notFound } from "../../core/errors";
import { lazySchema } from "../../core/lazy-schema";
import { maxSkillBytes, readSkillFolder } from "../../core/skills";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { checkReach, projectRecord } from "../projects";
import { valid } from "../validation";

const slugOnly = lazySchema(() => z.object({ slug: projectNameSchema }));
const skillParam = lazySchema(() =>
  z.object({
    slug: projectNameSchema,
    name: z
      .string()
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "a skill name: lowercase letters, digits and '-'")
      .max(64),
  }),
);
/** Skill folders by their name, each its files by their path in the folder (what `pantheon skills add` sends). */
const skillFolders = lazySchema(() =>
  z.strictObject({
    skills: z
      .record(
        z.string().min(1).max(64),
        z.record(z.string().min(1).max(300), z.string().max(maxSkillBytes, `at most ${maxSkillBytes} characters`)),
      )
      .refine((skills) => Object.keys(skills).length >= 1, "at least one skill folder")
      .refine((skills) => Object.keys(skills).length <= 50, "at most 50 skill folders at once"),
  }),
);

/** Pushes the profiles of the agents that use skills: each carries the library its skills name. */
async function reconfigure(env: Env, slug: string): Promise<void> {
  const users = (await registryStub(env, slug).listAgents()).filter((agent) => agent.runtime.skills?.length);
  await Promise.all(users.map(async (profile) => (await agentStub(env, slug, profile.name)).configure(profile)));
}

/**
 * A project's skill library (admin of that project): `POST /:slug/skills` imports skill folders in
 * the Agent Skills format (`SKILL.md` with `name` and `description` front matter, then instructions,
 * and its other files), each path kept inside its folder; the library they make is checked whole (a
 * required skill it lacks, a cycle of `requires`) before anything is saved. `GET …/:name/load` answers
 * the skill with the ones it requires, each after what it requires: what loading it reads.
 */
export const skillRoutes = new Hono<AppEnv>()
  .get("/:slug/skills", scope("admin"), valid("param", slugOnly), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    return c.json({ skills: await registryStub(c.env, slug).skillList() });
  })
  .get("/:slug/skills/:name", scope("admin"), valid("param", skillParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const skill = await registryStub(c.env, slug).skillGet(name);
    if (!skill) throw notFound("skill", name);
    return c.json({ skill });
  })
  .get("/:slug/skills/:name/load", scope("admin"), valid("param", skillParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const skills = await call(registryStub(c.env, slug).skillLoad(name));
    return c.json({ skills: skills.map(({ name, description, body }) => ({ name, description, body })) });
  })
  .post("/:slug/skills", scope("admin"), valid("param", slugOnly), valid("json", skillFolders), async (c) => {
    const { slug } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    const { skills } = c.req.valid("json");
    const read = Object.entries(skills).map(([folder, files]) => readSkillFolder(files, folder, "$.skills"));
    const saved = await call(registryStub(c.env, slug).skillPut(read));
    await reconfigure(c.env, slug);
    return c.json(saved, 201);
  })
  .delete("/:slug/skills/:name", scope("admin"), valid("param", skillParam), async (c) => {
    const { slug, name } = c.req.valid("param");
    checkReach(c, slug);
    await projectRecord(c.env, slug);
    await call(registryStub(c.env, slug).skillDelete(name));
    await reconfigure(c.env, slug);
    return c.body(null, 204);
  });

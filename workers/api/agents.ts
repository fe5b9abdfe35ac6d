import { Hono } from "hono";
import { z } from "zod";
import { lazySchema } from "../../core/lazy-schema";
import {
  agentInputSchema,
  agentNameSchema,
  agentPatchSchema,
  assertRuntimeOutbound,
  type AgentProfile,
} from "../../core/agents";
import { defaultModelFrom } from "../../core/models";
import { modelChoiceSchema, modelSettingsSchema } from "../../core/run/limits";
import { modelSecretNamesOf, resolvedModelOf } from "../../durable-objects/agent/runs/models";
import type { AppEnv } from "../env";
import { scope } from "../scopes";
import { projectOutbound } from "../project-secrets";
import { agentStub, call, registryStub } from "../../durable-objects/stubs";
import { valid } from "../validation";
import { runPrincipal } from "../auth";
import { forgetGateways } from "../doors/gateways/index-store";
import { imageStoreOf } from "../images/ingest";

export const nameParam = lazySchema(() => z.object({ name: agentNameSchema }));

/**
 * The names of the project's own secrets when one of `profiles` reads a model setting (whose key
 * answers it, core/models project-keys); no registry round trip otherwise.
 */
export async function ownSecretNamesFor(
  env: Env,
  project: string,
  profiles: Pick<AgentProfile, "model">[],
): Promise<string[]> {
  return profiles.some((p) => modelSecretNamesOf(p).length) ? (await registryStub(env, project).secretNames()).own : [];
}

/** The API's view of an agent: its profile, its live status, and what its model resolves to here, why, and whose key it calls with. */
async function withStatus(env: Env, project: string, profile: AgentProfile, ownSecrets?: string[]) {
  const [live, own] = await Promise.all([
    (await agentStub(env, project, profile.name)).status(),
    ownSecrets ?? ownSecretNamesFor(env, project, [profile]),
  ]);
  return {
    ...profile,
    status: live.status,
    lastActivityAt: live.lastActivityAt,
    spend: live.spend,
    resolvedModel: resolvedModelOf(profile, env, own),
  };
}

/** `POST …/tick`: optionally the session its reply goes to (the default one otherwise). */
const tickSchema = lazySchema(() =>
  z
    .strictObject({
      session: z
        .string()
        .min(1)
        .max(64)
        .regex(/^[A-Za-z0-9-]+$/, "a session id as returned by the sessions API")
        .optional(),
    })
    .default({}),
);

/** Creating an agent: without a `model`, it gets the deployment's default (`PANTHEON_DEFAULT_PROVIDER`). */
const createAgentSchema = lazySchema(() => agentInputSchema.extend({ model: modelChoiceSchema.optional() }));

/**
 * Pushes a changed profile to its Durable Object, and re-pushes the agents connected to it: their
 * `ask_<agent>` tool carries its description.
 */
export async function pushProfile(env: Env, project: string, profile: AgentProfile): Promise<void> {
  await (await agentStub(env, project, profile.name)).configure(profile);
  const dependents = await registryStub(env, project).dependentsOf(profile.name);
  await Promise.all(dependents.map(async (other) => (await agentStub(env, project, other.name)).configure(other)));
}

export const agentRoutes = new Hono<AppEnv>()
  .get("/", scope("chat"), async (c) => {
    const profiles = await registryStub(c.env, c.get("project")).listAgents();
    const own = await ownSecretNamesFor(c.env, c.get("project"), profiles);
    return c.json({ agents: await Promise.all(profiles.map((p) => withStatus(c.env, c.get("project"), p, own))) });
  })
  .post("/", scope("admin"), valid("json", createAgentSchema), async (c) => {
    const project = c.get("project");
    const input = c.req.valid("json");
    // Tool secrets must be declared and endpoints reachable under the guard, before anything is stored.
    assertRuntimeOutbound(input.runtime, await projectOutbound(c.env, c.get("project"), input.runtime));
    const model = input.model ?? modelSettingsSchema.parse(defaultModelFrom(c.env.PANTHEON_DEFAULT_PROVIDER));
    const profile = await call(registryStub(c.env, project).createAgent({ ...input, model }));
    await pushProfile(c.env, project, profile);
    return c.json(await withStatus(c.env, project, profile), 201);
  })
  .get("/:name", scope("chat"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const profile = await call(registryStub(c.env, project).getAgent(c.req.valid("param").name));
    return c.json(await withStatus(c.env, project, profile));
  })
  .patch("/:name", scope("admin"), valid("param", nameParam), valid("json", agentPatchSchema), async (c) => {
    const project = c.get("project");
    const { runtime } = c.req.valid("json");
    if (runtime) assertRuntimeOutbound(runtime, await projectOutbound(c.env, c.get("project"), runtime));
    const profile = await call(
      registryStub(c.env, project).updateAgent(c.req.valid("param").name, c.req.valid("json")),
    );
    await pushProfile(c.env, project, profile);
    return c.json(await withStatus(c.env, project, profile));
  })
  /** One run toward the agent's standing goals: its reply is stored, the goals are its request (never in the history). */
  .post("/:name/tick", scope("admin"), valid("param", nameParam), valid("json", tickSchema), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    await call(registryStub(c.env, project).getAgent(name));
    const { session } = c.req.valid("json");
    const outcome = await call((await agentStub(c.env, project, name)).tick(runPrincipal(c), session));
    return c.json({
      runId: outcome.runId,
      sessionId: outcome.sessionId,
      status: outcome.status,
      reply: outcome.reply,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
  })
  .delete("/:name", scope("admin"), valid("param", nameParam), async (c) => {
    const project = c.get("project");
    const { name } = c.req.valid("param");
    const registry = registryStub(c.env, project);
    await call(registry.getAgent(name));
    // The agent first (its sockets, streams and pending approvals end, then its storage), the
    // registry's row last: a deletion cut off midway leaves an agent that can be deleted again.
    await (await agentStub(c.env, project, name)).forget({
      by: `the deletion of agent '${name}'`,
      closeReason: `agent '${name}' was deleted`,
    });
    await forgetGateways(c.env, project, name);
    await imageStoreOf(c.env).removeAll({ project, agent: name });
    await call(registry.deleteAgent(name));
    return c.body(null, 204);
  });

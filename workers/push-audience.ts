import { agentStub, registryStub } from "../durable-objects/stubs";

/**
 * A subscription came or went (a device subscribed, was removed, its token revoked, or its push
 * service said it is gone): every agent of the project is handed the registry's new copy of who
 * has a subscribed device, so a turn whose notice no device could get queues nothing (docs/push.md).
 * Rare next to turns, so waking each agent for it is cheap; an agent that misses it (asleep in a
 * failed call) reads the registry's copy at its next notice only if it kept none.
 */
export async function pushAudienceChanged(env: Env, project: string): Promise<void> {
  const registry = registryStub(env, project);
  const [audience, agents] = await Promise.all([registry.pushAudience(), registry.listAgents()]);
  await Promise.allSettled(agents.map((agent) => agentStub(env, project, agent.name).pushAudience(audience)));
}

import { unwrap, type Result } from "../core/errors";

/**
 * A Durable Object's public methods as the caller sees them over RPC (every call async).
 * Used instead of the runtime's `Rpc.Provider` mapping, whose recursive types give up
 * ("excessively deep") on JSON-valued fields; the values themselves are plain data.
 */
export type Remote<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/**
 * The calls a binding's class answers, typed from the binding's declaration on `Env` (wrangler's
 * worker-configuration.d.ts; pwa/worker-names.d.ts for the PWA's and the CLI's programs) rather than
 * by importing the class: an object's features reach their registry or another agent through here
 * without importing the object that builds them, so no import circle, not even of types, runs
 * through an agent.
 */
export type RemoteOf<Binding> = Binding extends DurableObjectNamespace<infer T> ? Remote<T> : never;
type RegistryDO = RemoteOf<Env["REGISTRY"]>;
type AgentDO = RemoteOf<Env["AGENT_DO"]>;
type FeatureDO = RemoteOf<Env["FEATURE_DO"]>;

/** The registry of a project (one Durable Object per project). */
export function registryStub(env: Env, project: string): RegistryDO {
  return env.REGISTRY.get(env.REGISTRY.idFromName(project)) as unknown as RegistryDO;
}

/** Durable Object name of an agent: project and agent slugs cannot contain '.', so this is unambiguous. */
export const agentObjectName = (project: string, agent: string) => `${project}.${agent}`;

/**
 * An agent's object. A plain stub, not the SDK's `getAgentByName`: that makes an extra round trip
 * (`__unsafe_ensureInitialized`) before every call, and an AgentDO starts its lifecycle from its own
 * constructor before any call is delivered (agent-object.ts), so the wait is already on the other side.
 */
export function agentStub(env: Env, project: string, agent: string): AgentDO {
  return env.AGENT_DO.get(env.AGENT_DO.idFromName(agentObjectName(project, agent))) as unknown as AgentDO;
}

/** A feature's own Durable Object (named `<project>.<feature>`, like an agent's). */
export function featureStub(env: Env, project: string, feature: string): FeatureDO {
  return env.FEATURE_DO.get(env.FEATURE_DO.idFromName(agentObjectName(project, feature))) as unknown as FeatureDO;
}

/** Awaits an RPC call that returns a Result and rebuilds the domain error on this side. */
export async function call<T>(result: Promise<Result<T>> | Result<T>): Promise<T> {
  return unwrap(await result);
}

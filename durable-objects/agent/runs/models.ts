import type { AgentProfile } from "../../../core/agents";
import { deploymentOf, resolveModel, type ResolvedModel } from "../../../core/models";
import type { LlmPort } from "../../../core/ports";
import { chooseLlm, providerFacts, type LlmConfig } from "../../../adapters/llm-choice";

/** What the model choice reads from the worker's env: keys and bindings (presence decides), and where it runs. */
export function llmConfigFromEnv(env: Env): LlmConfig {
  return {
    openaiApiKey: env.OPENAI_API_KEY,
    openaiBaseUrl: env.OPENAI_BASE_URL,
    anthropicApiKey: env.ANTHROPIC_API_KEY,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL,
    ai: env.AI,
    deployment: deploymentOf(env.PANTHEON_ENV),
  };
}

/**
 * The agent's model port, chosen by configuration: a key or binding present → that provider; none →
 * locally the offline stand-in, in production a port whose every call fails naming the missing secret.
 * Kept per model settings and env: building a provider's SDK client (the OpenAI client makes every
 * resource object of its API) cost a turn about as much as parsing the model's answer.
 */
export function llmForProfile(profile: AgentProfile, env: Env, options: { timeoutMs?: number } = {}): LlmPort {
  let ports = portsByEnv.get(env);
  if (!ports) portsByEnv.set(env, (ports = new Map()));
  const key = JSON.stringify([profile.model, options.timeoutMs ?? null]);
  let port = ports.get(key);
  if (!port) {
    // Settings change rarely; a bound keeps an agent whose model keeps changing from holding them all.
    if (ports.size >= maxPortsPerEnv) ports.clear();
    port = chooseLlm(profile.model, { ...llmConfigFromEnv(env), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }).llm;
    ports.set(key, port);
  }
  return port;
}
const portsByEnv = new WeakMap<Env, Map<string, LlmPort>>();
const maxPortsPerEnv = 16;

/** What the agent's model resolves to here, and why (the API's `resolvedModel`, the doctor). */
export function resolvedModelOf(profile: Pick<AgentProfile, "model">, env: Env): ResolvedModel {
  const config = llmConfigFromEnv(env);
  return resolveModel(profile.model, providerFacts(config), config.deployment ?? "local");
}

/**
 * The model of a manual tool call: the run loop never calls it (a manual run ends with its call),
 * so no provider client is built for one; a call that reached it would be a bug, and says so.
 */
export const manualRunModel: LlmPort = {
  provider: "none",
  complete: () => Promise.reject(new Error("a manual tool call does not call a model")),
  stream: () => ({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("a manual tool call does not call a model")) }),
  }),
};

import type { AgentProfile } from "../../core/agents";
import type { LlmPort } from "../../core/ports";
import { chooseLlm } from "../../adapters/llm-choice";

/** The agent's model port, chosen by configuration: a key or binding present → that provider, none → offline. */
export function llmForProfile(profile: AgentProfile, env: Env, options: { timeoutMs?: number } = {}): LlmPort {
  return chooseLlm(profile.model, {
    openaiApiKey: env.OPENAI_API_KEY,
    openaiBaseUrl: env.OPENAI_BASE_URL,
    anthropicApiKey: env.ANTHROPIC_API_KEY,
    anthropicBaseUrl: env.ANTHROPIC_BASE_URL,
    ai: env.AI,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  }).llm;
}

import type { LlmPort } from "../../core/ports";
import type { ModelSettings } from "../../core/run/limits";
import { makeAnthropicLlm } from "../llm-anthropic";
import { makeOfflineLlm } from "../llm-offline";
import { makeOpenAiLlm } from "../llm-openai";
import { type WorkersAiBinding, makeWorkersAiLlm } from "../llm-workers-ai";
import { makeResilientLlm } from "../../core/models";

export interface LlmConfig {
  openaiApiKey?: string | undefined;
  /** An OpenAI-compatible server (e.g. a local model server); enough on its own, no key needed. */
  openaiBaseUrl?: string | undefined;
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  ai?: WorkersAiBinding | undefined;
  fetch?: ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) | undefined;
  /** Resilience knobs, passed to makeResilientLlm (its defaults when absent). */
  retries?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface ChosenLlm {
  llm: LlmPort;
  /** The provider that will answer first: "openai" | "anthropic" | "workers-ai" | "offline". */
  provider: string;
  /** The model id it will be asked for. */
  model: string;
  /** Why, in a sentence for logs and the operator ("openai: OPENAI_API_KEY is set; …"). */
  reason: string;
}

type Built = { ok: true; port: LlmPort; why: string } | { ok: false; why: string };

function build(provider: string, config: LlmConfig): Built {
  const fetch = config.fetch ? { fetch: config.fetch } : {};
  switch (provider) {
    case "openai":
      if (config.openaiApiKey) {
        return { ok: true, port: makeOpenAiLlm({ apiKey: config.openaiApiKey, ...(config.openaiBaseUrl ? { baseURL: config.openaiBaseUrl } : {}), ...fetch }), why: "OPENAI_API_KEY is set" };
      }
      if (config.openaiBaseUrl) {
        // Local OpenAI-compatible servers ignore the key, but the SDK insists on one.
        return { ok: true, port: makeOpenAiLlm({ apiKey: "no-key", baseURL: config.openaiBaseUrl, ...fetch }), why: `OPENAI_BASE_URL is set (${config.openaiBaseUrl})` };
      }
      return { ok: false, why: "OPENAI_API_KEY is not set" };
    case "anthropic":
      if (config.anthropicApiKey) {
        return { ok: true, port: makeAnthropicLlm({ apiKey: config.anthropicApiKey, ...(config.anthropicBaseUrl ? { baseURL: config.anthropicBaseUrl } : {}), ...fetch }), why: "ANTHROPIC_API_KEY is set" };
      }
      return { ok: false, why: "ANTHROPIC_API_KEY is not set" };
    case "workers-ai":
      if (config.ai) return { ok: true, port: makeWorkersAiLlm({ ai: config.ai }), why: "the AI binding is present" };
      return { ok: false, why: "the AI binding is absent (it exists only in production)" };
    case "offline":
      return { ok: true, port: makeOfflineLlm(), why: "the agent asks for the offline model" };
    default:
      return { ok: false, why: `"${provider}" is not a known provider (openai, anthropic, workers-ai, offline)` };
  }
}

/** Asks `port` for `model` whatever the request says: the caller's model id belongs to another provider. */
function pinModel(port: LlmPort, model: string): LlmPort {
  return {
    provider: port.provider,
    complete: (request) => port.complete({ ...request, model }),
    stream: (request) => port.stream({ ...request, model }),
  };
}

/**
 * Picks the agent's LlmPort from its model settings and what this deployment has: a provider is used
 * when its key or binding is present, its fallback next, else the offline model. Real providers come
 * wrapped in makeResilientLlm (retries, then the settings' fallback).
 * @example
 * const { llm, reason } = chooseLlm({ provider: "openai", name: "gpt-4o-mini" }, { openaiApiKey: env.OPENAI_API_KEY });
 * // without a key: llm.provider === "offline", reason === "openai is unavailable (OPENAI_API_KEY is not set); using the offline model"
 */
export function chooseLlm(settings: ModelSettings, config: LlmConfig = {}): ChosenLlm {
  const resilience = {
    ...(config.retries === undefined ? {} : { retries: config.retries }),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.sleep ? { sleep: config.sleep } : {}),
    ...(config.random ? { random: config.random } : {}),
  };
  const wanted = settings.provider;
  const primary = build(wanted, config);
  const fallbackSettings = settings.fallback;
  const fallback = fallbackSettings ? build(fallbackSettings.provider, config) : undefined;

  if (primary.ok && wanted === "offline") {
    return { llm: primary.port, provider: "offline", model: "offline", reason: `offline: ${primary.why}` };
  }
  if (primary.ok) {
    let reason = `${wanted}: ${primary.why}`;
    let fallbackPort: LlmPort | undefined;
    if (fallbackSettings && fallback) {
      if (fallback.ok) {
        fallbackPort = fallback.port;
        reason += `; falls back to ${fallbackSettings.provider} (${fallbackSettings.name})`;
      } else {
        reason += `; no fallback: ${fallbackSettings.provider} is unavailable (${fallback.why})`;
      }
    }
    const llm = makeResilientLlm({
      primary: primary.port,
      ...(fallbackPort && fallbackSettings ? { fallback: fallbackPort, fallbackModel: fallbackSettings.name } : {}),
      ...resilience,
    });
    return { llm, provider: wanted, model: settings.name, reason };
  }
  if (fallbackSettings && fallback?.ok) {
    const port = fallbackSettings.provider === "offline" ? fallback.port : makeResilientLlm({ primary: fallback.port, ...resilience });
    return {
      llm: pinModel(port, fallbackSettings.name),
      provider: fallbackSettings.provider,
      model: fallbackSettings.name,
      reason: `${wanted} is unavailable (${primary.why}); using the fallback ${fallbackSettings.provider} (${fallbackSettings.name})`,
    };
  }
  return { llm: makeOfflineLlm(), provider: "offline", model: "offline", reason: `${wanted} is unavailable (${primary.why}); using the offline model` };
}

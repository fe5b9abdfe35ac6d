import type { LlmPort, LlmResponse } from "../../core/ports";
import type { ModelSettings } from "../../core/run/limits";
import { makeAnthropicLlm } from "../llm-anthropic";
import { makeOfflineLlm } from "../llm-offline";
import { makeOpenAiLlm } from "../llm-openai";
import { type WorkersAiBinding, makeWorkersAiLlm } from "../llm-workers-ai";
import {
  LlmError,
  knownProviders,
  makeCascadeLlm,
  makeResilientLlm,
  modelCascadeOf,
  namedProvidersOf,
  resolveModel,
  type BreakerStore,
  type CascadeStep,
  type Deployment,
  type ModelProvider,
  type ProjectModelFacts,
  type ProviderFacts,
  type ResolvedModel,
} from "../../core/models";

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A project's named provider as a run calls it: its config, the key opened from the project's secret, and the guarded transport to its URL. */
export interface NamedProviderConfig extends ModelProvider {
  apiKey?: string | undefined;
  fetch?: Fetch | undefined;
}

export interface LlmConfig {
  openaiApiKey?: string | undefined;
  /** An OpenAI-compatible server (e.g. a local model server); enough on its own, no key needed. */
  openaiBaseUrl?: string | undefined;
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  ai?: WorkersAiBinding | undefined;
  /** `production`: a provider without its key fails the run (no stand-in). Default `local`. */
  deployment?: Deployment | undefined;
  fetch?: ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) | undefined;
  /** The OpenAI client's fetch when it differs (a project's own server, behind the outbound guard). */
  openaiFetch?: ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) | undefined;
  /** Which providers answer with the project's own settings (core/models project-keys). */
  project?: ProjectModelFacts | undefined;
  /** The project's named providers (core/models providers), by name. */
  providers?: Record<string, NamedProviderConfig> | undefined;
  /** Where each provider's circuit breaker is kept (a cascade consults it before each call). */
  breakers?: BreakerStore | undefined;
  now?: (() => number) | undefined;
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
  /** The whole resolution (core/models resolveModel): status, fallback, what is missing. */
  resolved: ResolvedModel;
}

/** Presence of each provider's key or binding in the config (never the values). */
export function providerFacts(config: LlmConfig): ProviderFacts {
  return {
    openaiApiKey: Boolean(config.openaiApiKey),
    openaiBaseUrl: Boolean(config.openaiBaseUrl),
    anthropicApiKey: Boolean(config.anthropicApiKey),
    workersAi: Boolean(config.ai),
    ...(config.project ? { project: config.project } : {}),
  };
}

/** The port of a provider resolveModel found available. */
function build(provider: string, config: LlmConfig): LlmPort {
  const fetch = config.fetch ? { fetch: config.fetch } : {};
  switch (provider) {
    case "openai":
      // Local OpenAI-compatible servers ignore the key, but the SDK insists on one.
      return makeOpenAiLlm({
        apiKey: config.openaiApiKey || "no-key",
        ...(config.openaiBaseUrl ? { baseURL: config.openaiBaseUrl } : {}),
        ...(config.openaiFetch ? { fetch: config.openaiFetch } : fetch),
      });
    case "anthropic":
      return makeAnthropicLlm({
        apiKey: config.anthropicApiKey ?? "",
        ...(config.anthropicBaseUrl ? { baseURL: config.anthropicBaseUrl } : {}),
        ...fetch,
      });
    case "workers-ai":
      return makeWorkersAiLlm({ ai: config.ai! });
    default:
      return makeOfflineLlm();
  }
}

/** Marks every answer with the provider that gave it, so a fallback shows as itself in the trace. */
function tagged(port: LlmPort): LlmPort {
  const tag = (response: LlmResponse): LlmResponse => ({ ...response, provider: response.provider ?? port.provider });
  return {
    provider: port.provider,
    complete: async (request) => tag(await port.complete(request)),
    async *stream(request) {
      for await (const event of port.stream(request))
        yield event.type === "done" ? { ...event, response: tag(event.response) } : event;
    },
  };
}

/** Asks `port` for `model` whatever the request says: the caller's model id belongs to another provider. */
function pinModel(port: LlmPort, model: string): LlmPort {
  return {
    provider: port.provider,
    complete: (request) => port.complete({ ...request, model }),
    stream: (request) => port.stream({ ...request, model }),
  };
}

/** A port for a provider that cannot answer here (production, no key): every call fails with what to set. */
function unavailable(provider: string, message: string): LlmPort {
  const error = () => new LlmError({ provider, message, retryable: false });
  return {
    provider,
    complete: async () => {
      throw error();
    },
    // biome-ignore lint/correctness/useYield: a stream that fails before its first chunk
    async *stream() {
      throw error();
    },
  };
}

/**
 * Picks the agent's LlmPort from its model settings and what this deployment has (the policy is
 * core/models `resolveModel`): a provider is used when its key or binding is present, its fallback
 * next; then locally the offline stand-in, and in production a port that fails every call naming
 * the missing secret. Real providers come wrapped in makeResilientLlm (retries, then the fallback).
 * @example
 * const { llm, reason } = chooseLlm({ provider: "openai", name: "gpt-4o-mini" }, { openaiApiKey: env.OPENAI_API_KEY });
 * // without a key, locally: llm.provider === "offline", reason === "no OPENAI_API_KEY; offline stand-in (local only)"
 */
export function chooseLlm(settings: ModelSettings, config: LlmConfig = {}): ChosenLlm {
  if (settings.cascade?.length || namedProvidersOf(settings).length) return chooseCascade(settings, config);
  const resilience = {
    ...(config.retries === undefined ? {} : { retries: config.retries }),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.sleep ? { sleep: config.sleep } : {}),
    ...(config.random ? { random: config.random } : {}),
  };
  const resolved = resolveModel(settings, providerFacts(config), config.deployment ?? "local");
  const chosen = (llm: LlmPort): ChosenLlm => ({
    llm,
    provider: resolved.provider,
    model: resolved.name,
    reason: resolved.reason,
    resolved,
  });
  const fallback = resolved.fallback?.available ? resolved.fallback : undefined;

  switch (resolved.status) {
    case "unavailable":
      return chosen(unavailable(resolved.provider, resolved.reason));
    case "stand-in":
      return chosen(tagged(makeOfflineLlm()));
    case "fallback": {
      const port = tagged(build(resolved.provider, config));
      return chosen(
        pinModel(
          resolved.provider === "offline" ? port : makeResilientLlm({ primary: port, ...resilience }),
          resolved.name,
        ),
      );
    }
    case "ok": {
      const primary = tagged(build(resolved.provider, config));
      if (resolved.provider === "offline" && !fallback) return chosen(primary);
      return chosen(
        makeResilientLlm({
          primary,
          ...(fallback ? { fallback: tagged(build(fallback.provider, config)), fallbackModel: fallback.name } : {}),
          ...resilience,
        }),
      );
    }
  }
}

function resilienceOf(config: LlmConfig) {
  return {
    ...(config.retries === undefined ? {} : { retries: config.retries }),
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    ...(config.sleep ? { sleep: config.sleep } : {}),
    ...(config.random ? { random: config.random } : {}),
  };
}

/** The port of a project's named provider: its kind's adapter at its URL, its key, its guarded transport. */
function buildNamed(provider: NamedProviderConfig): LlmPort {
  const fetch = provider.fetch ? { fetch: provider.fetch } : {};
  if (provider.kind === "anthropic")
    return makeAnthropicLlm({ apiKey: provider.apiKey ?? "", baseURL: provider.baseUrl, ...fetch });
  // A server that needs no key (a local Ollama) still gets one: the SDK insists.
  return makeOpenAiLlm({
    apiKey: provider.apiKey || "no-key",
    baseURL: provider.baseUrl,
    provider: provider.name,
    ...fetch,
  });
}

/**
 * An agent whose model is a cascade, or names a project's provider: each model of the cascade in
 * order (core/models makeCascadeLlm), each provider with its own retries and its circuit breaker. A
 * model that cannot be called here (no key, a provider the project does not name) is a step passed
 * over with its reason; locally, when none can be called, the offline stand-in answers, as for a
 * single model.
 */
function chooseCascade(settings: ModelSettings, config: LlmConfig): ChosenLlm {
  const deployment = config.deployment ?? "local";
  const facts = providerFacts(config);
  const steps: CascadeStep[] = modelCascadeOf(settings).map((ref) => {
    const named = config.providers?.[ref.provider];
    if (named) {
      if (named.kind === "anthropic" && !named.apiKey)
        return {
          provider: ref.provider,
          model: ref.name,
          unavailable: `provider '${ref.provider}' needs its key${named.keySecret ? ` (the project secret ${named.keySecret} is not set)` : ": set keySecret"}`,
        };
      return {
        provider: ref.provider,
        model: ref.name,
        port: tagged(makeResilientLlm({ primary: buildNamed(named), ...resilienceOf(config) })),
      };
    }
    const resolved = resolveModel({ provider: ref.provider, name: ref.name }, facts, deployment);
    if (resolved.status !== "ok") {
      const builtin = (knownProviders as readonly string[]).includes(ref.provider);
      return {
        provider: ref.provider,
        model: ref.name,
        unavailable: builtin
          ? (resolved.missing?.message ?? resolved.reason)
          : `provider '${ref.provider}' is not one of the project's providers`,
      };
    }
    const port = tagged(build(ref.provider, config));
    return {
      provider: ref.provider,
      model: ref.name,
      port: ref.provider === "offline" ? port : makeResilientLlm({ primary: port, ...resilienceOf(config) }),
    };
  });
  const first = steps.find((step) => step.port);
  const chain = steps.map((s) => `${s.provider}/${s.model}${s.port ? "" : ` (skipped: ${s.unavailable})`}`).join(" → ");
  const requested = { provider: settings.provider, name: settings.name };
  if (!first && deployment === "local") {
    const resolved: ResolvedModel = {
      requested,
      provider: "offline",
      name: "offline",
      status: "stand-in",
      reason: `no model of the cascade can be called: ${chain}; offline stand-in (local only)`,
    };
    return { llm: tagged(makeOfflineLlm()), provider: "offline", model: "offline", reason: resolved.reason, resolved };
  }
  const llm = makeCascadeLlm({
    steps,
    ...(config.breakers ? { breakers: config.breakers } : {}),
    ...(settings.breaker ? { policy: settings.breaker } : {}),
    now: config.now ?? (() => Date.now()),
  });
  const status = !first ? "unavailable" : first === steps[0] ? "ok" : "fallback";
  const answering = first ?? steps[0]!;
  const resolved: ResolvedModel = {
    requested,
    provider: answering.provider,
    name: answering.model,
    status,
    reason: `cascade ${chain}`,
  };
  return { llm, provider: answering.provider, model: answering.model, reason: resolved.reason, resolved };
}

import type { AgentProfile } from "../../../core/agents";
import {
  deploymentOf,
  isModelSetting,
  modelSettingsOf,
  projectModelFacts,
  resolveModel,
  type BreakerRecord,
  type BreakerStore,
  type ModelProvider,
  type ResolvedModel,
} from "../../../core/models";
import type { LlmPort } from "../../../core/ports";
import { hostOf } from "../../../core/secrets";
import { makeGuardedFetch, outboundSettingsFrom } from "../../../core/tools";
import { chooseLlm, providerFacts, type LlmConfig, type NamedProviderConfig } from "../../../adapters/llm-choice";

/** The project's own model settings (project secrets named in core/models project-keys), by name. */
export type ProjectModelValues = Readonly<Record<string, string>>;

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
 * The config of a project's agents: where the project sets its own OpenAI key or base URL, both are
 * the project's — the deployment's key never travels to a server the project named, and a project
 * key alone goes to the deployment's server (or OpenAI's). The project's server is called through
 * the outbound guard, its own host the allowlist, on every request and redirect.
 * @example
 * llmConfigOf(env, { OPENAI_API_KEY: "sk-b…" }); // { openaiApiKey: "sk-b…", openaiBaseUrl: env.OPENAI_BASE_URL, project: { openai: true, anthropic: false }, … }
 */
export function llmConfigOf(
  env: Env,
  own: ProjectModelValues = {},
  providers: Readonly<Record<string, ModelProvider>> = {},
): LlmConfig {
  const config = llmConfigFromEnv(env);
  const names = Object.keys(providers);
  if (names.length) {
    const { allowLoopback } = outboundSettingsFrom(env);
    // Each provider's server is called through the outbound guard, its own host the allowlist; its key is the project's secret it names.
    config.providers = Object.fromEntries(
      names.map((name): [string, NamedProviderConfig] => {
        const provider = providers[name]!;
        const fetchVia = makeGuardedFetch(
          (input, init) => fetch(input, init),
          () => ({ allowHosts: [hostOf(provider.baseUrl)], allowLoopback }),
        );
        return [
          name,
          { ...provider, apiKey: provider.keySecret ? own[provider.keySecret] : undefined, fetch: fetchVia },
        ];
      }),
    );
  }
  const project = projectModelFacts(Object.keys(own));
  if (project.openai) {
    config.openaiApiKey = own.OPENAI_API_KEY;
    if (own.OPENAI_BASE_URL) {
      const baseUrl = own.OPENAI_BASE_URL;
      const { allowLoopback } = outboundSettingsFrom(env);
      config.openaiBaseUrl = baseUrl;
      config.openaiFetch = makeGuardedFetch(
        (input, init) => fetch(input, init),
        () => ({ allowHosts: [hostOf(baseUrl)], allowLoopback }),
      );
    }
  }
  if (project.anthropic) config.anthropicApiKey = own.ANTHROPIC_API_KEY;
  config.project = project;
  return config;
}

/**
 * The agent's model port, chosen by configuration: a key or binding present → that provider; none →
 * locally the offline stand-in, in production a port whose every call fails naming the missing secret.
 * Kept per model settings and env: building a provider's SDK client (the OpenAI client makes every
 * resource object of its API) cost a turn about as much as parsing the model's answer.
 */
export function llmForProfile(
  profile: Pick<AgentProfile, "model" | "providers">,
  env: Env,
  options: { timeoutMs?: number; breakers?: BreakerStore; now?: () => number } = {},
  own: ProjectModelValues = {},
): LlmPort {
  // A cascade's port holds its agent's breakers: kept per breaker store (per agent), not shared by the agents of an isolate.
  const owner: object = options.breakers ?? env;
  let ports = portsByEnv.get(owner);
  if (!ports) portsByEnv.set(owner, (ports = new Map()));
  // The project's settings are part of the key: a changed or deleted project key builds a new port.
  const key = JSON.stringify([profile.model, options.timeoutMs ?? null, own, profile.providers ?? null]);
  let port = ports.get(key);
  if (!port) {
    // Settings change rarely; a bound keeps an agent whose model keeps changing from holding them all.
    if (ports.size >= maxPortsPerEnv) ports.clear();
    port = chooseLlm(profile.model, {
      ...llmConfigOf(env, own, profile.providers),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.breakers ? { breakers: options.breakers } : {}),
      ...(options.now ? { now: options.now } : {}),
    }).llm;
    ports.set(key, port);
  }
  return port;
}
const portsByEnv = new WeakMap<object, Map<string, LlmPort>>();

/**
 * The agent's circuit breakers, one record per provider in its own storage (key-value, SQLite
 * backed): an eviction keeps an open breaker open. Read synchronously, written only when a record
 * changes (a closed breaker with no failures writes nothing on a success).
 */
export function makeBreakerStore(kv: AgentKv): BreakerStore & { wipe(): void } {
  return {
    get: (provider) => kv.get<BreakerRecord>(`breaker/${provider}`),
    set: (provider, record) => kv.put(`breaker/${provider}`, record),
    /** The agent is deleted: a later agent of the same name starts with every breaker closed. */
    wipe: () => {
      for (const [key] of kv.list({ prefix: "breaker/" })) kv.delete(key);
    },
  };
}

/** The agent's key-value storage (SQLite-backed), as far as its breakers and sessions' tools use it. */
export interface AgentKv {
  get<T>(key: string): T | undefined;
  put(key: string, value: unknown): void;
  delete(key: string): unknown;
  list(options: { prefix: string }): Iterable<[string, unknown]>;
}

/**
 * The project secrets an agent's model reads: its built-in providers' settings (core/models
 * project-keys) and the keys of the project's providers it names. What the agent opens for `model`,
 * and whose change it must hear of.
 */
export function modelSecretNamesOf(profile: Pick<AgentProfile, "model" | "providers">): string[] {
  const keys = Object.values(profile.providers ?? {}).flatMap((p) => (p.keySecret ? [p.keySecret] : []));
  return [...new Set([...modelSettingsOf(profile.model), ...keys])];
}
const maxPortsPerEnv = 16;

/** The config as far as presence goes, from the names of the project's own secrets (a stand-in value marks each model setting it has). */
export function llmConfigOfNames(env: Env, projectSecretNames: readonly string[]): LlmConfig {
  return llmConfigOf(env, Object.fromEntries(projectSecretNames.filter(isModelSetting).map((name) => [name, "set"])));
}

/**
 * What the agent's model resolves to here, and why (the API's `resolvedModel`, the doctor), given the
 * names of the project's own secrets (presence only: the model settings among them say whose key answers).
 */
export function resolvedModelOf(
  profile: Pick<AgentProfile, "model" | "providers">,
  env: Env,
  projectSecretNames: readonly string[] = [],
): ResolvedModel {
  if (profile.model.cascade?.length || profile.providers) {
    // A cascade says which of its models answers first and which are passed over (a stand-in value marks each key the project has).
    const keys = Object.fromEntries(
      modelSecretNamesOf(profile)
        .filter((name) => projectSecretNames.includes(name))
        .map((name) => [name, "set"]),
    );
    return chooseLlm(
      profile.model,
      llmConfigOf(
        env,
        { ...Object.fromEntries(projectSecretNames.filter(isModelSetting).map((name) => [name, "set"])), ...keys },
        profile.providers,
      ),
    ).resolved;
  }
  const config = llmConfigOfNames(env, projectSecretNames);
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
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.reject(new Error("a manual tool call does not call a model")),
    }),
  }),
};

/** The project's model keys among its model settings (a base URL is not a secret): what redaction keeps out. */
export function modelKeysOf(own: ProjectModelValues): Record<string, string> {
  // Every model value but a base URL is a key: the project's own provider keys and its named providers' (any name).
  return Object.fromEntries(Object.entries(own).filter(([name]) => !name.endsWith("_BASE_URL")));
}

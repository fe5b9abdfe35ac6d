/**
 * Which model answers an agent, and why: a pure policy over what the deployment has (keys and
 * bindings present or not, never their values) and where it runs. The adapters' `chooseLlm` builds
 * ports from the answer; the API, the PWA and the doctor show it.
 *
 * The rule that matters: locally a provider without its key is replaced by the offline stand-in and
 * says so; in production nothing is replaced silently — the run fails naming the missing secret and
 * the command that sets it.
 */

import type { ProjectModelFacts } from "./project-keys";

/** Where the worker runs: `PANTHEON_ENV` ("production" on Cloudflare, anything else is local). */
export type Deployment = "production" | "local";

/** What the deployment has for each provider: presence only. */
export interface ProviderFacts {
  openaiApiKey: boolean;
  /** An OpenAI-compatible server (e.g. a local model server) is enough on its own. */
  openaiBaseUrl: boolean;
  anthropicApiKey: boolean;
  /** The Workers AI binding `AI` (production only). */
  workersAi: boolean;
  /**
   * Which providers answer with the project's own settings (core/models project-keys): the facts
   * above are then the project's, and the deployment's key for that provider is not used.
   */
  project?: ProjectModelFacts | undefined;
}

/** Whose key a provider calls with: the project's own (a project secret) or the deployment's (a worker secret). */
export type KeySource = "project" | "deployment";

export interface ModelRef {
  provider: string;
  name: string;
}

/** What a provider needs when it is unavailable: a secret to set, a binding to add, or a valid name. */
export interface MissingRequirement {
  provider: string;
  /** The secret or binding name (`OPENAI_API_KEY`, `AI`), absent for an unknown provider. */
  secret?: string;
  /** The exact command or edit that fixes it. */
  fix: string;
  /** One sentence naming the provider, what it needs and the fix. */
  message: string;
}

export interface ResolvedModel {
  /** What the agent's settings ask for. */
  requested: ModelRef;
  /** Who answers first (for `unavailable`: the requested provider, which will fail the run). */
  provider: string;
  name: string;
  /**
   * `ok`: the requested provider; `fallback`: the settings' fallback stands in for a provider without
   * its key; `stand-in`: the offline model stands in (local only); `unavailable`: runs fail (production).
   */
  status: "ok" | "fallback" | "stand-in" | "unavailable";
  /** Why, in one sentence for the operator. */
  reason: string;
  /** The settings' fallback (tried after the primary's retries) and whether it can answer. */
  fallback?: ModelRef & { available: boolean; reason: string };
  /** Present when the requested provider cannot answer: what to set. */
  missing?: MissingRequirement;
  /** Whose key the answering provider calls with (openai and anthropic only; never the value). */
  key?: KeySource;
}

/** The key source of a provider that uses one, from the facts. */
export function keySourceOf(provider: string, facts: ProviderFacts): KeySource | undefined {
  if (provider !== "openai" && provider !== "anthropic") return undefined;
  return facts.project?.[provider] ? "project" : "deployment";
}

/**
 * The answering model as the API, the CLI and the doctor show it, with whose key it calls.
 * @example
 * answeringModelLabel({ provider: "openai", name: "gpt-4o", key: "project" }); // "openai:gpt-4o (project key)"
 * answeringModelLabel({ provider: "offline", name: "offline" });               // "offline:offline"
 */
export function answeringModelLabel(resolved: Pick<ResolvedModel, "provider" | "name" | "key">): string {
  return `${resolved.provider}:${resolved.name}${resolved.key ? ` (${resolved.key} key)` : ""}`;
}

export const knownProviders = ["openai", "anthropic", "workers-ai", "offline"] as const;

/** Default model id per provider, for `PANTHEON_DEFAULT_PROVIDER` given without a model name. */
export const defaultModelNames: Record<string, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-haiku-4-5",
  "workers-ai": "@cf/meta/llama-3.1-8b-instruct",
  offline: "offline",
};

/** `PANTHEON_ENV` → the deployment kind. */
export function deploymentOf(pantheonEnv: string | undefined): Deployment {
  return pantheonEnv === "production" ? "production" : "local";
}

/**
 * The command that sets a worker secret in this deployment.
 * @example
 * secretFix("OPENAI_API_KEY", "production"); // "npx wrangler secret put OPENAI_API_KEY --env production"
 * secretFix("OPENAI_API_KEY", "local");      // "add OPENAI_API_KEY=… to .dev.vars and restart npm start"
 */
export function secretFix(secret: string, deployment: Deployment): string {
  return deployment === "production"
    ? `npx wrangler secret put ${secret} --env production`
    : `add ${secret}=… to .dev.vars and restart npm start`;
}

type Availability = { ok: true; why: string } | { ok: false; why: string; missing: MissingRequirement };

/** Whether `provider` can answer here, and if not, what it needs. */
export function providerAvailability(provider: string, facts: ProviderFacts, deployment: Deployment): Availability {
  const needsSecret = (secret: string): Availability => {
    const fix = secretFix(secret, deployment);
    return {
      ok: false,
      why: `no ${secret}`,
      missing: { provider, secret, fix, message: `provider '${provider}' needs the secret ${secret}: ${fix}` },
    };
  };
  // The project's own settings say so; the deployment's read as they always have.
  const whose = (p: "openai" | "anthropic") => (facts.project?.[p] ? "the project's " : "");
  switch (provider) {
    case "openai":
      if (facts.openaiApiKey) return { ok: true, why: `${whose("openai")}OPENAI_API_KEY is set` };
      if (facts.openaiBaseUrl)
        return {
          ok: true,
          why: `${whose("openai")}OPENAI_BASE_URL is set (an OpenAI-compatible server, no key needed)`,
        };
      return needsSecret("OPENAI_API_KEY");
    case "anthropic":
      return facts.anthropicApiKey
        ? { ok: true, why: `${whose("anthropic")}ANTHROPIC_API_KEY is set` }
        : needsSecret("ANTHROPIC_API_KEY");
    case "workers-ai": {
      if (facts.workersAi) return { ok: true, why: "the AI binding is present" };
      const fix =
        deployment === "production"
          ? 'add [env.production.ai] binding = "AI" to wrangler.toml, then npm run deploy'
          : "Workers AI exists only in production (wrangler deploy --env production)";
      return {
        ok: false,
        why: "no AI binding",
        missing: { provider, secret: "AI", fix, message: `provider 'workers-ai' needs the AI binding: ${fix}` },
      };
    }
    case "offline":
      return { ok: true, why: "the agent asks for the offline model (a deterministic stand-in, not a language model)" };
    default: {
      const fix = `set the agent's model.provider to one of ${knownProviders.join(", ")}`;
      return {
        ok: false,
        why: `'${provider}' is not a known provider`,
        missing: { provider, fix, message: `provider '${provider}' is not known: ${fix}` },
      };
    }
  }
}

/**
 * Resolves an agent's model settings against the deployment.
 * @example
 * resolveModel({ provider: "openai", name: "gpt-4o-mini" }, noKeys, "local");
 * // { provider: "offline", status: "stand-in", reason: "no OPENAI_API_KEY; offline stand-in (local only)", ... }
 * resolveModel({ provider: "openai", name: "gpt-4o-mini" }, noKeys, "production");
 * // { provider: "openai", status: "unavailable",
 * //   reason: "provider 'openai' needs the secret OPENAI_API_KEY: npx wrangler secret put OPENAI_API_KEY --env production", ... }
 */
export function resolveModel(
  settings: ModelRef & { fallback?: ModelRef | undefined },
  facts: ProviderFacts,
  deployment: Deployment,
): ResolvedModel {
  const requested = { provider: settings.provider, name: settings.name };
  const primary = providerAvailability(settings.provider, facts, deployment);
  const fb = settings.fallback ? providerAvailability(settings.fallback.provider, facts, deployment) : undefined;
  const fallback =
    settings.fallback && fb
      ? { provider: settings.fallback.provider, name: settings.fallback.name, available: fb.ok, reason: fb.why }
      : undefined;
  const withFallback = fallback ? { fallback } : {};
  const keyOf = (provider: string) => {
    const key = keySourceOf(provider, facts);
    return key ? { key } : {};
  };

  if (primary.ok) {
    const behind = fallback
      ? fallback.available
        ? `; falls back to ${fallback.provider} (${fallback.name})`
        : `; its fallback ${fallback.provider} is unavailable (${fallback.reason})`
      : "";
    return {
      requested,
      provider: requested.provider,
      name: requested.name,
      status: "ok",
      reason: `${requested.provider}: ${primary.why}${behind}`,
      ...withFallback,
      ...keyOf(requested.provider),
    };
  }
  if (fallback?.available) {
    return {
      requested,
      provider: fallback.provider,
      name: fallback.name,
      status: "fallback",
      reason: `${primary.why}; the fallback ${fallback.provider} (${fallback.name}) answers`,
      fallback,
      missing: primary.missing,
      ...keyOf(fallback.provider),
    };
  }
  if (deployment === "local") {
    return {
      requested,
      provider: "offline",
      name: "offline",
      status: "stand-in",
      reason: `${primary.why}; offline stand-in (local only)`,
      ...withFallback,
      missing: primary.missing,
    };
  }
  return {
    requested,
    provider: requested.provider,
    name: requested.name,
    status: "unavailable",
    reason: primary.missing.message,
    ...withFallback,
    missing: primary.missing,
  };
}

/**
 * The model an agent created without one gets: `PANTHEON_DEFAULT_PROVIDER` as `provider` or
 * `provider:model` (e.g. `openai` or `anthropic:claude-sonnet-4-5`); absent or empty → offline.
 * An unknown provider is kept as written: resolving it names the problem.
 * @example
 * defaultModelFrom("openai");                  // { provider: "openai", name: "gpt-4o-mini" }
 * defaultModelFrom("openai:gpt-4.1");          // { provider: "openai", name: "gpt-4.1" }
 * defaultModelFrom(undefined);                 // { provider: "offline", name: "offline" }
 */
export function defaultModelFrom(raw: string | undefined): ModelRef {
  const value = (raw ?? "").trim();
  if (!value) return { provider: "offline", name: "offline" };
  const colon = value.indexOf(":");
  const provider = (colon < 0 ? value : value.slice(0, colon)).trim().toLowerCase();
  const name = colon < 0 ? "" : value.slice(colon + 1).trim();
  return { provider, name: name || defaultModelNames[provider] || provider };
}

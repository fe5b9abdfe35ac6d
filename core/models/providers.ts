import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { isReservedName, reservedNameMessage } from "../reserved-names";
import { knownProviders, type ModelRef } from "./resolve";

/**
 * A project's named model provider: an OpenAI-compatible server (OpenRouter, Groq, DeepSeek, Ollama,
 * vLLM…) or OpenAI/Anthropic at a URL of the project's choosing, called with a key the project keeps
 * as one of its own secrets (`keySecret`, a name: the value is opened only inside the agent). Agents
 * name its models `name/model` (`groq/llama-3.1-70b`).
 */
export interface ModelProvider {
  name: string;
  kind: ProviderKind;
  /** The API's base URL (e.g. `https://api.groq.com/openai/v1`); every call to it passes the outbound guard. */
  baseUrl: string;
  /** The project secret holding the API key; absent for a server that needs none (a local Ollama). */
  keySecret?: string;
}

export const providerKinds = ["openai-compatible", "openai", "anthropic"] as const;
export type ProviderKind = (typeof providerKinds)[number];

/** Names the built-in providers keep: a project's provider may not shadow one. */
export const providerNamePattern = /^[a-z][a-z0-9-]{0,31}$/;

export const providerNameSchema = lazySchema(() =>
  z
    .string()
    .regex(providerNamePattern, "a lower-case slug: a letter, then letters, digits or '-', at most 32 characters")
    .refine((name) => !isReservedName(name), reservedNameMessage)
    .refine((name) => !(knownProviders as readonly string[]).includes(name), {
      error: (issue) =>
        `'${String(issue.input)}' is a built-in provider (${knownProviders.join(", ")}); name yours otherwise`,
    }),
);

/** What `PUT /api/projects/:slug/providers/:name` takes (the name comes from the path). */
export const providerInputSchema = lazySchema(() =>
  z.strictObject({
    kind: z.enum(providerKinds, { error: `one of ${providerKinds.join(", ")}` }).default("openai-compatible"),
    baseUrl: z
      .url({ protocol: /^https?$/, error: "an http(s) URL of the provider's API, e.g. https://api.groq.com/openai/v1" })
      .max(2000),
    keySecret: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "the name of a project secret holding the key (UPPER_SNAKE), e.g. GROQ_API_KEY")
      .optional(),
  }),
);
export type ProviderInput = z.infer<typeof providerInputSchema>;

/** At most this many named providers per project. */
export const maxProjectProviders = 32;

/**
 * Every model of a model setting, in the order a run tries them: the model, its cascade, its fallback.
 * @example
 * modelCascadeOf({ provider: "groq", name: "llama", cascade: [{ provider: "openai", name: "gpt-4o-mini" }] });
 * // [{ provider: "groq", name: "llama" }, { provider: "openai", name: "gpt-4o-mini" }]
 */
export function modelCascadeOf(
  model: ModelRef & { cascade?: ModelRef[] | undefined; fallback?: ModelRef | undefined },
): ModelRef[] {
  const refs = [
    { provider: model.provider, name: model.name },
    ...(model.cascade ?? []),
    ...(model.fallback ? [model.fallback] : []),
  ];
  const seen = new Set<string>();
  return refs.filter((ref) => {
    const key = `${ref.provider}/${ref.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The providers of a model setting that are not built in: the project must name each. */
export function namedProvidersOf(model: Parameters<typeof modelCascadeOf>[0]): string[] {
  return [
    ...new Set(
      modelCascadeOf(model)
        .map((ref) => ref.provider)
        .filter((p) => !(knownProviders as readonly string[]).includes(p)),
    ),
  ];
}

/**
 * The models a request may ask for instead of the agent's own (`provider/model`): its cascade's and
 * those it lists as `allowed`.
 */
export function allowedModelsOf(
  model: Parameters<typeof modelCascadeOf>[0] & { allowed?: string[] | undefined },
): string[] {
  return [...new Set([...modelCascadeOf(model).map((ref) => `${ref.provider}/${ref.name}`), ...(model.allowed ?? [])])];
}

/**
 * Why a model setting may not be stored in a project with `providers`, or undefined: every provider
 * it names (its own, its fallback's, its cascade's, its allowed models') is built in or one of the
 * project's. The message names what the project has; `path` is the field's, under `model`.
 * @example
 * unknownProviderIn({ provider: "groq", name: "llama" }, [], "acme");
 * // { provider: "groq", path: ["provider"], message: "'groq' is not a known provider: use one of …" }
 */
export function unknownProviderIn(
  model: Parameters<typeof modelCascadeOf>[0] & { allowed?: string[] | undefined },
  providers: readonly string[],
  project: string,
): { provider: string; path: (string | number)[]; message: string } | undefined {
  const builtin = (p: string) => (knownProviders as readonly string[]).includes(p);
  const named: { provider: string; path: (string | number)[] }[] = [
    { provider: model.provider, path: ["provider"] },
    ...(model.fallback ? [{ provider: model.fallback.provider, path: ["fallback", "provider"] }] : []),
    ...(model.cascade ?? []).map((ref, i) => ({ provider: ref.provider, path: ["cascade", i, "provider"] })),
    ...(model.allowed ?? []).map((ref, i) => ({
      provider: ref.slice(0, Math.max(0, ref.indexOf("/"))),
      path: ["allowed", i],
    })),
  ];
  const missing = named.find((ref) => !builtin(ref.provider) && !providers.includes(ref.provider));
  if (!missing) return undefined;
  const has = providers.length ? `its providers: ${providers.join(", ")}` : "it names none";
  return {
    ...missing,
    message: `'${missing.provider}' is not a known provider: use one of ${knownProviders.join(", ")} or a provider of project '${project}' (${has}; add one with PUT /api/projects/${project}/providers/${missing.provider})`,
  };
}

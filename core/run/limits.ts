import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { knownProviders } from "../models/resolve";

/**
 * Limits of an agent's runs. The agent's values are ceilings: a request may lower them, never raise them.
 */
export const runLimitsSchema = lazySchema(() =>
  z.object({
    maxSteps: z.number().int().min(1).max(100).default(10),
    maxHistory: z.number().int().min(0).max(500).default(20),
    modelTimeoutMs: z.number().int().min(100).max(600_000).default(60_000),
    toolTimeoutMs: z.number().int().min(100).max(300_000).default(15_000),
    maxTokensPerRun: z.number().int().min(1).max(10_000_000).default(200_000),
    /** Wall time of a whole run (approval waits excluded). */
    maxRunMs: z.number().int().min(1000).max(3_600_000).default(300_000),
    /** Gate rejections fed back to the model before the run fails. */
    maxRejections: z.number().int().min(0).max(10).default(3),
    /** How long a person may take to decide an approval before the run fails; none when absent. */
    maxApprovalWaitMs: z
      .number()
      .int()
      .min(1000)
      .max(90 * 24 * 3_600_000)
      .optional(),
    /** The agent's daily caps (core/quotas), per UTC day across all its runs; none when absent. */
    tokensPerDay: z.number().int().min(1).max(1e12).optional(),
    usdPerDay: z.number().min(0).max(1_000_000).optional(),
  }),
);

export type RunLimits = z.infer<typeof runLimitsSchema>;
/** `runLimitsSchema.parse({})`, written out so it needs no schema at startup (a test holds them equal). */
export const defaultRunLimits: RunLimits = {
  maxSteps: 10,
  maxHistory: 20,
  modelTimeoutMs: 60_000,
  toolTimeoutMs: 15_000,
  maxTokensPerRun: 200_000,
  maxRunMs: 300_000,
  maxRejections: 3,
};

/**
 * An agent's limits: its own settings over the platform defaults. The one place they are merged;
 * a request then lowers them with `effectiveLimits`.
 * @example
 * limitsOf({ maxSteps: 4 }).maxSteps; // 4, and every other limit its default
 */
export function limitsOf(agentSettings: Partial<RunLimits>): RunLimits {
  return { ...defaultRunLimits, ...agentSettings };
}

/** One model of a cascade: a provider (built-in or one of the project's named providers) and its model id. */
const modelRefSchema = () => z.object({ provider: z.string().min(1).max(32), name: z.string().min(1).max(128) });

/** Model choice of an agent: provider + model name, optional temperature and fallback. */
export const modelSettingsSchema = lazySchema(() =>
  z.object({
    provider: z.string().min(1).max(32).default("offline"),
    name: z.string().min(1).max(128).default("offline"),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().min(1).max(200_000).optional(),
    fallback: modelRefSchema().optional(),
    /** Nucleus sampling (`top_p`), sent to the provider as is. */
    topP: z.number().gt(0, "above 0").max(1).optional(),
    /** The models tried after this one, in order, when it fails or its provider's circuit breaker is open (core/models cascade). */
    cascade: z.array(modelRefSchema()).max(8).optional(),
    /** Models a request may pick instead (`model` on a message, `provider/model`), besides the cascade's own. */
    allowed: z.array(z.string().min(3).max(161)).max(32).optional(),
    /** The circuit breaker of each provider this agent calls (core/models breaker): failures that open it, and how long it stays open. */
    breaker: z
      .object({ threshold: z.number().int().min(1).max(100), cooldownMs: z.number().int().min(100).max(3_600_000) })
      .optional(),
  }),
);

export type ModelSettings = z.infer<typeof modelSettingsSchema>;

/** A provider name: a built-in one, or a project's named provider (a lower-case slug, checked against the project where it is stored). */
const providerNamePattern = /^[a-z][a-z0-9-]{0,31}$/;
const knownProvider = () =>
  z
    .string()
    .min(1)
    .max(32)
    .refine(
      (provider) => (knownProviders as readonly string[]).includes(provider) || providerNamePattern.test(provider),
      {
        error: (issue) =>
          `'${String(issue.input)}' is not a known provider: use one of ${knownProviders.join(", ")} or a provider the project names (a lower-case slug)`,
      },
    );

/**
 * `provider/model` (the first '/' splits: `openrouter/meta-llama/llama-3.1-70b`) as a model reference.
 * @example
 * splitModelRef("groq/llama-3.1-70b"); // { provider: "groq", name: "llama-3.1-70b" }
 * splitModelRef("gpt-4o");            // undefined
 */
export function splitModelRef(ref: string): { provider: string; name: string } | undefined {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/** The shorthands an operator may write: `"groq/llama"`, a list of them (a cascade), or refs written as strings inside the object. */
function expandModelShorthand(value: unknown): unknown {
  const ref = (item: unknown) => (typeof item === "string" ? (splitModelRef(item) ?? item) : item);
  if (typeof value === "string") return ref(value);
  if (Array.isArray(value)) {
    const [first, ...rest] = value.map(ref);
    return typeof first === "object" && first !== null
      ? { ...first, ...(rest.length ? { cascade: rest } : {}) }
      : value;
  }
  if (typeof value === "object" && value !== null && Array.isArray((value as { cascade?: unknown }).cascade)) {
    return { ...value, cascade: (value as { cascade: unknown[] }).cascade.map(ref) };
  }
  return value;
}

/**
 * A model choice as an operator sends it (the API, a project file, a script): its provider, and its
 * fallback's and cascade's, must be one Pantheon knows or a slug naming one of the project's
 * providers (the registry checks the project has it); a typo of a built-in was accepted and ran on
 * the offline stand-in. `"provider/model"` and a list of them (a cascade) are accepted too.
 * Stored profiles are still read with the lenient {@link modelSettingsSchema}, so an agent saved
 * before this rule loads (and its resolved model says the provider is unknown).
 */
export const modelChoiceSchema = lazySchema(() =>
  z.preprocess(
    expandModelShorthand,
    modelSettingsSchema.extend({
      provider: knownProvider().default("offline"),
      fallback: z.object({ provider: knownProvider(), name: z.string().min(1).max(128) }).optional(),
      cascade: z
        .array(
          z.object(
            { provider: knownProvider(), name: z.string().min(1).max(128) },
            { error: 'a model such as "groq/llama-3.1-70b" or { provider, name }' },
          ),
        )
        .max(8)
        .optional(),
      allowed: z
        .array(
          z
            .string()
            .max(161)
            .refine((ref) => splitModelRef(ref) !== undefined, 'a model as "provider/model"'),
        )
        .max(32)
        .optional(),
    }),
  ),
);

const limitFloors: Record<keyof RunLimits, number> = {
  maxSteps: 1,
  maxHistory: 0,
  modelTimeoutMs: 100,
  toolTimeoutMs: 100,
  maxTokensPerRun: 1,
  maxRunMs: 1000,
  maxRejections: 0,
  maxApprovalWaitMs: 1000,
  tokensPerDay: 1,
  usdPerDay: 0,
};
/** Caps of the whole day, not of one run: a request cannot move them (core/quotas checks them). */
const dailyKeys = new Set<keyof RunLimits>(["tokensPerDay", "usdPerDay"]);

/** Every limit's name, in the schema's order (what `Object.keys(runLimitsSchema.shape)` gives, without building it). */
export const runLimitKeys = Object.keys(limitFloors) as (keyof RunLimits)[];

const modelSettingFields: Record<keyof ModelSettings, true> = {
  provider: true,
  name: true,
  temperature: true,
  maxTokens: true,
  fallback: true,
  topP: true,
  cascade: true,
  allowed: true,
  breaker: true,
};
/** Every model setting's name, in the schema's order. */
export const modelSettingKeys = Object.keys(modelSettingFields) as (keyof ModelSettings)[];

/**
 * The limits of one run: a request may lower the agent's limits, never raise them.
 * @example
 * effectiveLimits({ ...defaultRunLimits, maxSteps: 10 }, { maxSteps: 50 }).maxSteps; // 10
 * effectiveLimits({ ...defaultRunLimits, maxSteps: 10 }, { maxSteps: 3 }).maxSteps; // 3
 */
export function effectiveLimits(agentLimits: RunLimits, requestOverrides: Partial<RunLimits> = {}): RunLimits {
  const limits = { ...agentLimits };
  for (const key of Object.keys(limitFloors) as (keyof RunLimits)[]) {
    const wanted = requestOverrides[key];
    if (dailyKeys.has(key)) continue;
    if (typeof wanted !== "number" || !Number.isFinite(wanted)) continue;
    // An absent ceiling (no approval deadline) is the highest: a request may still set one.
    limits[key] = Math.min(agentLimits[key] ?? Infinity, Math.max(limitFloors[key], Math.floor(wanted)));
  }
  return limits;
}

/**
 * Some of the limits, with no defaults filled in: what an agent's settings or one request set.
 * (zod's `.partial()` would keep the defaults and so override everything.)
 */
export const runLimitOverridesSchema = lazySchema(() =>
  z.strictObject(
    Object.fromEntries(
      Object.entries(runLimitsSchema.shape).map(([key, schema]) => [
        key,
        (schema as z.ZodDefault<z.ZodNumber>).unwrap().optional(),
      ]),
    ) as { [K in keyof RunLimits]-?: z.ZodOptional<z.ZodNumber> },
  ),
);
export type RunLimitOverrides = z.infer<typeof runLimitOverridesSchema>;

import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { knownProviders } from "../models/resolve";

/**
 * Limits of an agent's runs. The agent's values are ceilings: a request may lower them, never raise them.
 */
export const runLimitsSchema = lazySchema(() => z.object({
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
  maxApprovalWaitMs: z.number().int().min(1000).max(90 * 24 * 3_600_000).optional(),
  /** The agent's daily caps (core/quotas), per UTC day across all its runs; none when absent. */
  tokensPerDay: z.number().int().min(1).max(1e12).optional(),
  usdPerDay: z.number().min(0).max(1_000_000).optional(),
}));

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

/** Model choice of an agent: provider + model name, optional temperature and fallback. */
export const modelSettingsSchema = lazySchema(() => z.object({
  provider: z.string().min(1).max(32).default("offline"),
  name: z.string().min(1).max(128).default("offline"),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).max(200_000).optional(),
  fallback: z.object({ provider: z.string().min(1).max(32), name: z.string().min(1).max(128) }).optional(),
}));

export type ModelSettings = z.infer<typeof modelSettingsSchema>;

const knownProvider = () =>
  z
    .string()
    .min(1)
    .max(32)
    .refine((provider) => (knownProviders as readonly string[]).includes(provider), { error: (issue) => `'${String(issue.input)}' is not a known provider: use one of ${knownProviders.join(", ")}` });

/**
 * A model choice as an operator sends it (the API, a project file, a script): its provider, and its
 * fallback's, must be one Pantheon knows; a typo was accepted and ran on the offline stand-in.
 * Stored profiles are still read with the lenient {@link modelSettingsSchema}, so an agent saved
 * before this rule loads (and its resolved model says the provider is unknown).
 */
export const modelChoiceSchema = lazySchema(() =>
  modelSettingsSchema.extend({
    provider: knownProvider().default("offline"),
    fallback: z.object({ provider: knownProvider(), name: z.string().min(1).max(128) }).optional(),
  }),
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

const modelSettingFields: Record<keyof ModelSettings, true> = { provider: true, name: true, temperature: true, maxTokens: true, fallback: true };
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
      Object.entries(runLimitsSchema.shape).map(([key, schema]) => [key, (schema as z.ZodDefault<z.ZodNumber>).unwrap().optional()]),
    ) as { [K in keyof RunLimits]-?: z.ZodOptional<z.ZodNumber> },
  ),
);
export type RunLimitOverrides = z.infer<typeof runLimitOverridesSchema>;

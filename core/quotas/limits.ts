import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { costOf } from "../models/prices";
import type { LlmUsage } from "../ports";

/** Daily caps: tokens (input + output) and US dollars per UTC day. An absent cap is no cap. */
export interface QuotaLimits {
  tokensPerDay?: number;
  usdPerDay?: number;
}

/**
 * The project's caps as the registry hands them to its agents with their profiles (the deployment's
 * ceiling applied), and the test clock's offset where the deployment has one.
 */
export interface ProjectQuota {
  limits: QuotaLimits;
  clockOffsetMs?: number;
}

/** What one scope (an agent, a project) spent in one UTC day. */
export interface Spend {
  tokens: number;
  usd: number;
}

export const quotaKeys = ["tokensPerDay", "usdPerDay"] as const;
export type QuotaKey = (typeof quotaKeys)[number];

/**
 * Caps as an operator sends them: a number sets one, `null` removes it, an absent field keeps it.
 * @example
 * quotaPatchSchema.parse({ tokensPerDay: 100_000, usdPerDay: null });
 */
export const quotaPatchSchema = lazySchema(() =>
  z
    .strictObject({
      tokensPerDay: z.number().int("a whole number of tokens").min(1).max(1e12).nullable().optional(),
      usdPerDay: z.number().min(0).max(1_000_000).nullable().optional(),
    })
    .refine((patch) => Object.keys(patch).length > 0, {
      message: "name tokensPerDay and/or usdPerDay (a number sets a cap, null removes it)",
    }),
);
export type QuotaPatch = z.infer<typeof quotaPatchSchema>;

/** `limits` with `patch` applied (null removes a cap). */
export function applyQuotaPatch(limits: QuotaLimits, patch: QuotaPatch): QuotaLimits {
  const out: QuotaLimits = { ...limits };
  for (const key of quotaKeys) {
    const value = patch[key];
    if (value === null) delete out[key];
    else if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The tighter of two sets of caps, cap by cap: a project's own limits under the deployment's ceiling.
 * @example
 * tightest({ tokensPerDay: 5000 }, { tokensPerDay: 1000, usdPerDay: 2 }); // { tokensPerDay: 1000, usdPerDay: 2 }
 */
export function tightest(a: QuotaLimits, b: QuotaLimits): QuotaLimits {
  const out: QuotaLimits = {};
  for (const key of quotaKeys) {
    const values = [a[key], b[key]].filter((v): v is number => typeof v === "number");
    if (values.length) out[key] = Math.min(...values);
  }
  return out;
}

export const hasCaps = (limits: QuotaLimits | undefined): boolean =>
  limits !== undefined && (limits.tokensPerDay !== undefined || limits.usdPerDay !== undefined);

/** The caps among an agent's run limits (core/run limits: `tokensPerDay`, `usdPerDay`). */
export function capsOf(limits: QuotaLimits): QuotaLimits {
  return {
    ...(limits.tokensPerDay !== undefined ? { tokensPerDay: limits.tokensPerDay } : {}),
    ...(limits.usdPerDay !== undefined ? { usdPerDay: limits.usdPerDay } : {}),
  };
}

/**
 * What one model call cost, priced by the model that answered (core/models prices). A model with no
 * published price costs 0 US dollars and says so (`priced: false`): its tokens still count.
 */
export function spendOf(model: string, usage: LlmUsage): Spend & { priced: boolean } {
  const usd = costOf(model, usage);
  return { tokens: usage.inputTokens + usage.outputTokens, usd: usd ?? 0, priced: usd !== null };
}

export const addSpend = (a: Spend, b: Spend): Spend => ({ tokens: a.tokens + b.tokens, usd: a.usd + b.usd });
export const noSpend: Spend = { tokens: 0, usd: 0 };

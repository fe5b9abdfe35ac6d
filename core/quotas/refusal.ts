import { dayOf, resetsAt } from "./day";
import { quotaKeys, type QuotaKey, type QuotaLimits, type Spend } from "./limits";

/** Why a model call was not made: which cap of whom, how much was used of it, and when it resets. */
export interface QuotaRefusal {
  scope: "agent" | "project";
  /** The agent's or the project's name. */
  name: string;
  limit: QuotaKey;
  used: number;
  cap: number;
  day: string;
  /** The next UTC midnight, ISO 8601. */
  resetsAt: string;
  message: string;
}

/** Dollars to 3 significant digits (a call may cost $0.000009), tokens whole. */
const amount = (key: QuotaKey, value: number) =>
  key === "usdPerDay"
    ? `$${value >= 100 ? value.toFixed(2) : String(Number(value.toPrecision(3)))}`
    : `${Math.round(value)} tokens`;

/**
 * The first cap `spend` has reached (used ≥ cap), or null: a call starts only while every cap has
 * room, so a call may end past the cap by its own size, never start past it.
 * @example
 * overCap("agent", "scout", { tokens: 1200, usd: 0 }, { tokensPerDay: 1000 }, now)?.message;
 * // "agent 'scout' has used 1200 tokens of its 1000 tokens per day (UTC); the cap resets at 2026-11-27T00:00:00.000Z"
 */
export function overCap(
  scope: QuotaRefusal["scope"],
  name: string,
  spend: Spend,
  limits: QuotaLimits,
  now: number,
): QuotaRefusal | null {
  for (const key of quotaKeys) {
    const cap = limits[key];
    if (cap === undefined) continue;
    const used = key === "tokensPerDay" ? spend.tokens : spend.usd;
    if (used < cap) continue;
    const resets = new Date(resetsAt(now)).toISOString();
    return {
      scope,
      name,
      limit: key,
      used,
      cap,
      day: dayOf(now),
      resetsAt: resets,
      message: `${scope} '${name}' has used ${amount(key, used)} of its ${amount(key, cap)} per day (UTC); the cap resets at ${resets}`,
    };
  }
  return null;
}

const refusalName = "QuotaExceededError";

/** A model call refused by a daily cap (thrown by the quota port, turned into the run's `quota_exceeded`). */
export class QuotaExceededError extends Error {
  override readonly name = refusalName;
  constructor(readonly refusal: QuotaRefusal) {
    super(`daily cap reached: ${refusal.message}`);
  }
}

/** By name, so it holds across copies of the module. */
export function isQuotaExceeded(error: unknown): error is QuotaExceededError {
  return error instanceof Error && error.name === refusalName && "refusal" in error;
}

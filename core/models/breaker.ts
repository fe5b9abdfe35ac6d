/**
 * A circuit breaker per model provider: a pure state machine over a stored record, the clock passed
 * in. `closed` lets calls through and counts consecutive failures; `threshold` of them open it.
 * `open` refuses calls (the cascade moves to its next model without calling) until `cooldownMs` has
 * passed, when one call is let through as a probe (`half-open`): its success closes the breaker,
 * its failure opens it again for another cooldown.
 */

export interface BreakerPolicy {
  /** Consecutive failures that open the breaker (default 3). */
  threshold: number;
  /** How long an open breaker refuses calls before it lets one probe through (default 30 s). */
  cooldownMs: number;
}

export const defaultBreakerPolicy: BreakerPolicy = { threshold: 3, cooldownMs: 30_000 };

/** The stored record of one provider's breaker (plain JSON: it outlives an eviction in storage). */
export interface BreakerRecord {
  state: "closed" | "open" | "half-open";
  /** Consecutive failures counted while closed. */
  failures: number;
  /** When it opened last (open and half-open). */
  openedAt?: number;
  /** When the probe of a half-open breaker left: a probe whose answer never came is let go after a cooldown. */
  probeAt?: number;
  /** The last failure's reason, for the trace and the API. */
  lastError?: string;
}

export const closedBreaker: BreakerRecord = { state: "closed", failures: 0 };

/** Whether a call may go out now, and the record to store when that changes it (a probe begins). */
export type BreakerAdmission =
  | { allow: true; probe: boolean; next?: BreakerRecord }
  | { allow: false; reason: string; retryAt: number };

/**
 * May a call go to this provider now? A closed breaker says yes; an open one no until its cooldown
 * has passed, then yes once as a probe (half-open); a half-open one no while its probe is out.
 * @example
 * admit({ state: "open", failures: 3, openedAt: 0 }, 10_000, defaultBreakerPolicy); // { allow: false, reason: "…", retryAt: 30000 }
 * admit({ state: "open", failures: 3, openedAt: 0 }, 30_000, defaultBreakerPolicy); // { allow: true, probe: true, next: { state: "half-open", … } }
 */
export function admit(
  record: BreakerRecord,
  now: number,
  policy: BreakerPolicy = defaultBreakerPolicy,
): BreakerAdmission {
  if (record.state === "closed") return { allow: true, probe: false };
  const since = record.state === "open" ? (record.openedAt ?? 0) : (record.probeAt ?? record.openedAt ?? 0);
  const retryAt = since + policy.cooldownMs;
  if (now < retryAt) {
    const why =
      record.state === "open"
        ? `open after ${record.failures} consecutive failures${record.lastError ? ` (last: ${record.lastError})` : ""}`
        : "half-open, its probe call is still out";
    return {
      allow: false,
      reason: `circuit breaker ${why}; next probe at ${new Date(retryAt).toISOString()}`,
      retryAt,
    };
  }
  return { allow: true, probe: true, next: { ...record, state: "half-open", probeAt: now } };
}

/** The record after a call succeeded: closed, the count reset (the same record when nothing changes, so nothing is written). */
export function onSuccess(record: BreakerRecord): BreakerRecord {
  return record.state === "closed" && record.failures === 0 ? record : closedBreaker;
}

/**
 * The record after a call failed: one more consecutive failure; at the threshold, or a failed probe,
 * the breaker opens.
 */
export function onFailure(
  record: BreakerRecord,
  now: number,
  error: string,
  policy: BreakerPolicy = defaultBreakerPolicy,
): BreakerRecord {
  const lastError = error.slice(0, 200);
  if (record.state === "half-open") return { state: "open", failures: record.failures + 1, openedAt: now, lastError };
  const failures = record.failures + 1;
  if (failures >= policy.threshold) return { state: "open", failures, openedAt: now, lastError };
  return { state: "closed", failures, lastError };
}

/** Retries of a failed behavior wait 1 s, 2 s, 4 s … capped at 15 minutes: never a hot loop. */
export const retryBaseMs = 1000;
export const retryCapMs = 15 * 60_000;
/** A behavior's `retry.max` when its script does not say. */
export const defaultRetryMax = 3;

/**
 * How long to wait before retry number `attempt` (1 = the first retry).
 * @example
 * retryDelayMs(1) // 1000
 * retryDelayMs(3) // 4000
 */
export function retryDelayMs(attempt: number): number {
  return Math.min(retryCapMs, retryBaseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}

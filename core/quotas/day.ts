/** Quotas count per UTC day: a day is its date, `2026-11-26`, and ends at the next UTC midnight. */
const dayMs = 86_400_000;

/**
 * @example
 * dayOf(Date.UTC(2026, 10, 26, 23, 59)); // "2026-11-26"
 */
export function dayOf(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** When the day of `now` ends (the next UTC midnight), in ms since the epoch. */
export function resetsAt(now: number): number {
  return Math.floor(now / dayMs) * dayMs + dayMs;
}

/**
 * The quota clock: the platform's clock, moved by `offsetMs` only where the deployment set
 * `PANTHEON_TEST_CLOCK=1` (tests move it through a deployment-admin route; a tenant never can).
 */
export function quotaNow(now: number, offsetMs: number | undefined, testClock: boolean): number {
  return testClock && offsetMs ? now + offsetMs : now;
}

import { describe, expect, it } from "vitest";
import { cronMatches, nextCronAt, parseCron, retryDelayMs } from "../../core/schedule";

describe("cron matching (UTC, as Cron Triggers use)", () => {
  it("matches weekdays at a fixed time and not the weekend", () => {
    expect(cronMatches("0 7 * * 1-5", Date.UTC(2026, 0, 5, 7, 0, 45))).toBe(true); // Monday
    expect(cronMatches("0 7 * * 1-5", Date.UTC(2026, 0, 4, 7, 0))).toBe(false); // Sunday
    expect(cronMatches("0 7 * * 1-5", Date.UTC(2026, 0, 5, 7, 1))).toBe(false);
  });

  it("understands steps, lists, ranges and Sunday as 7", () => {
    expect(cronMatches("*/15 * * * *", Date.UTC(2026, 0, 1, 3, 45))).toBe(true);
    expect(cronMatches("*/15 * * * *", Date.UTC(2026, 0, 1, 3, 46))).toBe(false);
    expect(cronMatches("5,35 9-17/4 * * *", Date.UTC(2026, 0, 1, 13, 35))).toBe(true);
    expect(cronMatches("5,35 9-17/4 * * *", Date.UTC(2026, 0, 1, 11, 35))).toBe(false);
    expect(cronMatches("0 0 * * 7", Date.UTC(2026, 0, 4, 0, 0))).toBe(true);
  });

  it("matches either day field when both are restricted (Vixie cron)", () => {
    const spec = parseCron("0 12 1 * 1");
    expect(cronMatches(spec, Date.UTC(2026, 0, 1, 12, 0))).toBe(true); // the 1st (a Thursday)
    expect(cronMatches(spec, Date.UTC(2026, 0, 5, 12, 0))).toBe(true); // a Monday
    expect(cronMatches(spec, Date.UTC(2026, 0, 6, 12, 0))).toBe(false);
  });

  it("finds the next matching minute, and none for a date that never comes", () => {
    expect(nextCronAt("*/15 * * * *", Date.UTC(2026, 0, 1, 10, 7))).toBe(Date.UTC(2026, 0, 1, 10, 15));
    expect(nextCronAt("0 7 * * 1-5", Date.UTC(2026, 0, 2, 7, 0))).toBe(Date.UTC(2026, 0, 5, 7, 0));
    expect(nextCronAt("0 0 29 2 *", Date.UTC(2026, 0, 1))).toBe(Date.UTC(2028, 1, 29));
    expect(nextCronAt("0 0 31 2 *", Date.UTC(2026, 0, 1))).toBeNull();
  });

  it("refuses an invalid expression", () => {
    expect(() => parseCron("0 24 * * *")).toThrow(/hour 24/);
  });

  it("backs off retries exponentially from one second, capped", () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(40)).toBe(15 * 60_000);
  });
});

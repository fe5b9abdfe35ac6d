// The pure rules (core/behaviors): which behavior a message goes to, and what a supervisor does after a failure.
import { describe, expect, it } from "vitest";
import { afterFailure, chooseForMessage, ttlEndsAt, whenMatches } from "../../core/behaviors";

describe("chooseForMessage", () => {
  const text = (t: string, input?: Record<string, unknown>) => ({ text: t, ...(input ? { input } : {}) });
  it("the highest priority among matching active and persistent behaviors; ties go to the first; passive ones never", () => {
    expect(chooseForMessage([{ mode: "active" }, { mode: "active" }], text("hi"))).toBe(0);
    expect(chooseForMessage([{ mode: "active" }, { mode: "persistent", priority: 1 }], text("hi"))).toBe(1);
    expect(
      chooseForMessage(
        [
          { mode: "passive", priority: 99 },
          { mode: "active", priority: -5 },
        ],
        text("hi"),
      ),
    ).toBe(1);
    expect(chooseForMessage([{ mode: "passive" }], text("hi"))).toBe(-1);
    expect(chooseForMessage([], text("hi"))).toBe(-1);
  });
  it("skips paused behaviors and ones whose :when does not match", () => {
    expect(chooseForMessage([{ mode: "active", priority: 5, paused: true }, { mode: "active" }], text("x"))).toBe(1);
    expect(
      chooseForMessage(
        [{ mode: "active", when: { contains: ["diff"] }, priority: 5 }, { mode: "active" }],
        text("good morning"),
      ),
    ).toBe(1);
    expect(
      chooseForMessage(
        [{ mode: "active", when: { contains: ["diff"] }, priority: 5 }, { mode: "active" }],
        text("A DIFF please"),
      ),
    ).toBe(0);
  });
  it(":when contains (any word, any case) and has (every field, not null)", () => {
    expect(whenMatches({ contains: ["pr", "diff"] }, text("review my PR"))).toBe(true);
    expect(whenMatches({ has: ["repo"] }, text("x", { repo: "a" }))).toBe(true);
    expect(whenMatches({ has: ["repo"] }, text("x", { repo: null }))).toBe(false);
    expect(whenMatches({ has: ["repo", "ref"] }, text("x", { repo: "a" }))).toBe(false);
    expect(whenMatches({ contains: ["diff"], has: ["repo"] }, text("diff", { repo: "a" }))).toBe(true);
    expect(whenMatches(undefined, text("anything"))).toBe(true);
  });
});

describe("afterFailure", () => {
  const policy = { restart: "on-failure" as const, maxRestarts: 2, backoff: "1s", onDone: "keep" as const };
  it("restarts within the limit after a doubling backoff, and refuses over it with the reason", () => {
    expect(afterFailure(policy, { failures: 1, now: 10_000, spawnedAt: 0 })).toEqual({
      restart: true,
      at: 11_000,
      attempt: 1,
    });
    expect(afterFailure(policy, { failures: 2, now: 10_000, spawnedAt: 0 })).toEqual({
      restart: true,
      at: 12_000,
      attempt: 2,
    });
    expect(afterFailure(policy, { failures: 3, now: 10_000, spawnedAt: 0 })).toEqual({
      restart: false,
      reason: "restart limit reached: 2 restarts allowed, 3 failures",
    });
  });
  it("never restarts under restart never, nor past the time to live", () => {
    expect(afterFailure({ ...policy, restart: "never" }, { failures: 1, now: 0, spawnedAt: 0 })).toMatchObject({
      restart: false,
    });
    expect(afterFailure({ ...policy, ttl: "5s" }, { failures: 1, now: 4_500, spawnedAt: 0 })).toMatchObject({
      restart: false,
      reason: expect.stringContaining("time to live"),
    });
    expect(ttlEndsAt({ ...policy, ttl: "1m" }, 1000)).toBe(61_000);
    expect(ttlEndsAt(policy, 1000)).toBeNull();
  });
});

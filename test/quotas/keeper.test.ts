import { describe, expect, it } from "vitest";
import { grantLease, type LeaseBook, type LeaseRequest } from "../../core/quotas";
import { makeQuotaKeeper } from "../../durable-objects/agent/quotas";

const noon = Date.UTC(2026, 10, 26, 12);

/** One agent's keeper against an in-memory registry book (core grantLease), counting the round trips. */
function setup(limits: { tokensPerDay?: number }) {
  const store = new Map<string, unknown>();
  let book: LeaseBook | undefined;
  let trips = 0;
  let id = 0;
  const keeper = makeQuotaKeeper({
    kv: {
      get: <T>(key: string) => store.get(key) as T | undefined,
      put: (key, value) => void store.set(key, structuredClone(value)),
      delete: (key) => store.delete(key),
    },
    clock: { now: () => noon },
    testClock: false,
    agent: () => "scout",
    registry: () => ({
      async quotaLease(request: Omit<LeaseRequest, "now">) {
        trips += 1;
        const granted = grantLease(book, "acme", limits, { ...request, now: noon }, `l${++id}`);
        book = granted.book;
        return granted.answer;
      },
    }),
    background: () => undefined,
    sleep: () => new Promise((resolve) => setTimeout(resolve, 5)),
  });
  return { keeper, trips: () => trips, book: () => book, project: { limits } };
}

describe("the agent's quota keeper (durable-objects/agent/quotas)", () => {
  it("asks the registry once per lease, not per call: ten calls under a 10% lease cost one round trip", async () => {
    const { keeper, trips, project } = setup({ tokensPerDay: 10_000 });
    for (let i = 0; i < 10; i++) {
      const verdict = keeper.admit({}, project);
      expect(await verdict).toBeNull();
      keeper.record({ tokens: 50, usd: 0 });
    }
    expect(trips()).toBe(1);
    // Positive control: no project cap, no round trip at all, and a sync answer (no await on the hot path).
    const free = setup({});
    expect(free.keeper.admit({}, undefined)).toBeNull();
    expect(free.trips()).toBe(0);
  });

  it("near the cap, two runs of one agent take the exclusive lease one after the other", async () => {
    const { keeper, project } = setup({ tokensPerDay: 100 });
    await keeper.admit({}, project);
    keeper.record({ tokens: 85, usd: 0 });
    // 15 left of 100: the next lease is exclusive, for one call.
    const first = keeper.admit({}, project);
    expect(await first).toBeNull();
    let secondDone = false;
    const second = Promise.resolve(keeper.admit({}, project)).then((v) => ((secondDone = true), v));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(secondDone).toBe(false);
    // The first call ends past the cap: the second is refused, not made.
    keeper.record({ tokens: 20, usd: 0 });
    expect(await second).toMatchObject({ scope: "project", used: 105, cap: 100 });
  });

  it("a failed call on an exclusive lease gives it back (the next run is not held)", async () => {
    const { keeper, project } = setup({ tokensPerDay: 100 });
    await keeper.admit({}, project);
    keeper.record({ tokens: 85, usd: 0 });
    expect(await keeper.admit({}, project)).toBeNull();
    keeper.failed();
    expect(await keeper.admit({}, project)).toBeNull();
  });
});

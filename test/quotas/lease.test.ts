import { describe, expect, it } from "vitest";
import { dayOf, emptyBook, grantLease, overCap, resetsAt, spendOf, tightest, type LeaseBook } from "../../core/quotas";
import { effectiveLimits, limitsOf } from "../../core/run";

const noon = Date.UTC(2026, 10, 26, 12, 0, 0);
const settleOf = (answer: ReturnType<typeof grantLease>["answer"], spent: { tokens: number; usd: number }) => {
  if (!answer.ok || !answer.lease) throw new Error("no lease");
  return { leaseId: answer.lease.id, day: answer.lease.day, spent, maxCall: spent };
};

describe("the project's day counter: leases (core/quotas)", () => {
  it("far from the cap, agents hold a tenth each at once; a cap not set leases nothing", () => {
    let { book, answer } = grantLease(undefined, "acme", { tokensPerDay: 1000 }, { agent: "a", now: noon }, "l1");
    expect(answer).toMatchObject({ ok: true, lease: { tokens: 100, usd: null, exclusive: false, agent: "a" } });
    ({ book, answer } = grantLease(book, "acme", { tokensPerDay: 1000 }, { agent: "b", now: noon }, "l2"));
    expect(answer).toMatchObject({ ok: true, lease: { tokens: 100, exclusive: false, agent: "b" } });
    expect(Object.keys(book.leases)).toEqual(["l1", "l2"]);
    // No caps: no lease, no book entry.
    const none = grantLease(undefined, "acme", {}, { agent: "a", now: noon }, "l3");
    expect(none.answer).toEqual({ ok: true, lease: null, limits: {} });
  });

  it("near the cap one agent at a time: the second waits (busy) until the first settles, then gets the rest", () => {
    let { book, answer } = grantLease(undefined, "acme", { tokensPerDay: 100 }, { agent: "a", now: noon }, "l1");
    const first = settleOf(answer, { tokens: 85, usd: 0 });
    // a settles 85 of 100: what is left (15) is within the last fifth, so a's next lease is exclusive.
    ({ book, answer } = grantLease(
      book,
      "acme",
      { tokensPerDay: 100 },
      { agent: "a", now: noon, settle: first },
      "l2",
    ));
    expect(answer).toMatchObject({ ok: true, lease: { tokens: 15, exclusive: true } });
    const busy = grantLease(book, "acme", { tokensPerDay: 100 }, { agent: "b", now: noon }, "l3");
    expect(busy.answer).toMatchObject({ ok: false, busy: { holder: "a" } });
    // a's call spent 20: settled, the project is at 105 (one call past) and b is refused, not busy.
    ({ book } = grantLease(
      book,
      "acme",
      { tokensPerDay: 100 },
      { agent: "a", now: noon, settle: settleOf(answer, { tokens: 20, usd: 0 }), release: true },
      "l4",
    ));
    const refused = grantLease(book, "acme", { tokensPerDay: 100 }, { agent: "b", now: noon }, "l5");
    expect(refused.answer).toMatchObject({
      ok: false,
      refusal: { scope: "project", name: "acme", limit: "tokensPerDay", used: 105, cap: 100 },
    });
  });

  it("a settle counts once (a repeated one adds nothing), and a new UTC day starts from zero", () => {
    let { book, answer } = grantLease(undefined, "acme", { tokensPerDay: 1000 }, { agent: "a", now: noon }, "l1");
    const settle = settleOf(answer, { tokens: 50, usd: 0 });
    ({ book } = grantLease(
      book,
      "acme",
      { tokensPerDay: 1000 },
      { agent: "a", now: noon, settle, release: true },
      "x",
    ));
    ({ book } = grantLease(
      book,
      "acme",
      { tokensPerDay: 1000 },
      { agent: "a", now: noon, settle, release: true },
      "y",
    ));
    expect(book.used.tokens).toBe(50);
    const tomorrow = grantLease(
      book as LeaseBook,
      "acme",
      { tokensPerDay: 1000 },
      { agent: "a", now: noon + 86_400_000 },
      "l2",
    );
    expect(tomorrow.book.day).toBe("2026-11-27");
    expect(tomorrow.book.used.tokens).toBe(0);
    // The largest call seen stays: it still bounds what one more call may cost.
    expect(tomorrow.book.maxCall.tokens).toBe(50);
  });

  it("grants a normal lease only while the rest covers one more call of every holder", () => {
    const book = { ...emptyBook(dayOf(noon)), maxCall: { tokens: 300, usd: 0 } };
    // 1000 left, one other holder: 100 (a tenth) + 2 × 300 fits: a normal lease.
    const a = grantLease(book, "acme", { tokensPerDay: 1000 }, { agent: "a", now: noon }, "l1");
    expect(a.answer).toMatchObject({ ok: true, lease: { exclusive: false } });
    // b: 900 left after a's lease, 100 + 2 × 300 = 700 fits.
    const b = grantLease(a.book, "acme", { tokensPerDay: 1000 }, { agent: "b", now: noon }, "l2");
    expect(b.answer).toMatchObject({ ok: true, lease: { exclusive: false } });
    // c: 800 left, 100 + 3 × 300 = 1000 does not: it waits for the others.
    const c = grantLease(b.book, "acme", { tokensPerDay: 1000 }, { agent: "c", now: noon }, "l3");
    expect(c.answer).toMatchObject({ ok: false, busy: {} });
  });

  it("an expired lease stops holding the cap (its holder was evicted mid-call)", () => {
    const { book } = grantLease(undefined, "acme", { tokensPerDay: 100 }, { agent: "a", now: noon }, "l1");
    const later = grantLease(book, "acme", { tokensPerDay: 100 }, { agent: "b", now: noon + 10 * 60_000 }, "l2");
    expect(later.answer).toMatchObject({ ok: true, lease: { tokens: 10 } });
  });
});

describe("caps, days and prices", () => {
  it("the refusal names the scope, the cap, used/limit and the next UTC midnight", () => {
    const refusal = overCap("agent", "scout", { tokens: 1200, usd: 0 }, { tokensPerDay: 1000 }, noon)!;
    expect(refusal).toMatchObject({
      scope: "agent",
      name: "scout",
      limit: "tokensPerDay",
      used: 1200,
      cap: 1000,
      day: "2026-11-26",
      resetsAt: "2026-11-27T00:00:00.000Z",
    });
    expect(refusal.message).toBe(
      "agent 'scout' has used 1200 tokens of its 1000 tokens per day (UTC); the cap resets at 2026-11-27T00:00:00.000Z",
    );
    expect(overCap("project", "acme", { tokens: 0, usd: 0.031 }, { usdPerDay: 0.03 }, noon)?.message).toContain(
      "$0.031 of its $0.03 per day",
    );
    // Positive control: under every cap, no refusal.
    expect(
      overCap("agent", "scout", { tokens: 999, usd: 0.01 }, { tokensPerDay: 1000, usdPerDay: 0.03 }, noon),
    ).toBeNull();
    expect(resetsAt(Date.UTC(2026, 10, 26, 23, 59, 59))).toBe(Date.UTC(2026, 10, 27));
  });

  it("prices by the model that answered; an unpriced model counts its tokens at $0 and says so", () => {
    expect(spendOf("gpt-4o", { inputTokens: 1000, outputTokens: 500 })).toEqual({
      tokens: 1500,
      usd: 0.0075,
      priced: true,
    });
    expect(spendOf("gpt-4o-mini-2024-07-18", { inputTokens: 1_000_000, outputTokens: 0 })).toMatchObject({
      usd: 0.15,
      priced: true,
    });
    expect(spendOf("my-local-llama", { inputTokens: 10, outputTokens: 5 })).toEqual({
      tokens: 15,
      usd: 0,
      priced: false,
    });
  });

  it("the deployment's ceiling wins over the project's own caps, cap by cap; a request cannot move the agent's daily caps", () => {
    expect(tightest({ tokensPerDay: 5000, usdPerDay: 1 }, { tokensPerDay: 1000 })).toEqual({
      tokensPerDay: 1000,
      usdPerDay: 1,
    });
    const agent = limitsOf({ tokensPerDay: 100, usdPerDay: 0.5, maxSteps: 8 });
    expect(effectiveLimits(agent, { tokensPerDay: 1, usdPerDay: 100, maxSteps: 3 })).toMatchObject({
      tokensPerDay: 100,
      usdPerDay: 0.5,
      maxSteps: 3,
    });
  });
});

describe("the doctor's quota lines (core/doctor quotas.ts)", () => {
  const facts = (used: { tokens: number; usd: number }, effective: Record<string, number>) => ({
    project: { name: "acme", effective, ceiling: {}, used, resetsAt: "2026-11-27T00:00:00.000Z" },
    agents: [{ name: "scout", limits: { tokensPerDay: 100 }, used: { tokens: 100, usd: 0 } }],
  });

  it("says the spend against the caps, warns near and at a cap, and per agent", async () => {
    const { quotaChecks } = await import("../../core/doctor/quotas");
    const [project, agent] = quotaChecks(facts({ tokens: 1200, usd: 0.01 }, { tokensPerDay: 5000 }), false);
    expect(project).toMatchObject({
      id: "quota:project",
      area: "quotas",
      status: "ok",
      message:
        "project 'acme' spent 1200 tokens, $0.01 today (UTC) of its daily cap of 5000 tokens; it resets at 2026-11-27T00:00:00.000Z",
    });
    expect(agent).toMatchObject({
      id: "quota:scout",
      status: "warn",
      fix: "pantheon quotas set --agent scout --tokens-per-day N",
    });
    expect(agent!.message).toContain("the cap is reached, model calls are refused until then");
    expect(quotaChecks(facts({ tokens: 4100, usd: 0 }, { tokensPerDay: 5000 }), false)[0]).toMatchObject({
      status: "warn",
      message: expect.stringContaining("82% used"),
    });
  });

  it("a production project with no cap is a warning (nothing stops its spend); locally it is fine", async () => {
    const { quotaChecks } = await import("../../core/doctor/quotas");
    expect(quotaChecks(facts({ tokens: 10, usd: 0 }, {}), true)[0]).toMatchObject({
      status: "warn",
      message: "project 'acme' spent 10 tokens, $0 today (UTC), with no daily cap",
      fix: expect.stringContaining("pantheon quotas set"),
    });
    expect(quotaChecks(facts({ tokens: 10, usd: 0 }, {}), false)[0]).toMatchObject({ status: "ok" });
  });
});

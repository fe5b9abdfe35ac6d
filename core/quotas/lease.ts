import { dayOf } from "./day";
import { addSpend, hasCaps, noSpend, quotaKeys, type QuotaLimits, type Spend } from "./limits";
import { overCap, type QuotaRefusal } from "./refusal";

/**
 * The project's day counter lives in its registry; each agent spends against a lease of it, so a
 * model call costs no registry round trip (the chat turn's hot path): an agent asks for a lease only
 * when it has none, its lease ran out or expired, and settles what it spent with the next request.
 *
 * Far from the cap a lease is a tenth of the cap and several agents hold one at once; an agent
 * settles as soon as its lease is spent. A lease is granted only while what is left covers every
 * outstanding lease plus one more call of each holder (the largest call settled so far); closer to
 * the cap — and within its last fifth — the registry hands out one exclusive lease at a time, for one
 * call, settled right after it: concurrent agents then run their calls one after another, so together
 * they go past the project's cap by at most the one call that crossed it (a call larger than any
 * seen before may add its excess).
 */
export interface Lease {
  id: string;
  agent: string;
  day: string;
  /** What the lease lets the agent spend; null: no cap on that measure. */
  tokens: number | null;
  usd: number | null;
  /** For one call: the holder settles it as soon as that call ends. */
  exclusive: boolean;
  expiresAt: number;
}

/** The registry's record of one day: spend settled by the agents, and leases handed out. */
export interface LeaseBook {
  day: string;
  used: Spend;
  /** By lease id. */
  leases: Record<string, Lease>;
  /** The largest single call settled (kept across days): what one more call may cost. */
  maxCall: Spend;
}

export interface LeaseRequest {
  agent: string;
  now: number;
  /** The lease the agent held and what it spent of it (any day: spend of a past day is dropped with that day). */
  settle?: { leaseId: string; day: string; spent: Spend; maxCall: Spend };
  /** Only settle, take no new lease (an exclusive lease after its call). */
  release?: boolean;
}

export type LeaseAnswer =
  | { ok: true; lease: Lease | null; limits: QuotaLimits }
  | { ok: false; refusal: QuotaRefusal; limits: QuotaLimits }
  /** The rest of the cap is leased to another agent's call in flight: ask again shortly. */
  | { ok: false; busy: { holder: string; retryAfterMs: number }; limits: QuotaLimits };

export const leaseTtlMs = 60_000;
/** An exclusive lease covers one model call: up to its timeout, with room for the SDK's retries. */
export const exclusiveTtlMs = 180_000;
const chunkShare = 0.1;
const tailShare = 0.2;

export const emptyBook = (day: string, maxCall: Spend = noSpend): LeaseBook => ({
  day,
  used: noSpend,
  leases: {},
  maxCall,
});

/**
 * One lease request against the book (pure: the registry stores the book it returns).
 * @example
 * const { book, answer } = grantLease(emptyBook("2026-11-26"), "acme", { tokensPerDay: 1000 }, { agent: "scout", now }, "l1");
 * // answer.lease: { tokens: 100, usd: null, exclusive: false, … }
 */
export function grantLease(
  stored: LeaseBook | undefined,
  project: string,
  limits: QuotaLimits,
  request: LeaseRequest,
  leaseId: string,
): { book: LeaseBook; answer: LeaseAnswer } {
  const day = dayOf(request.now);
  const book: LeaseBook =
    stored && stored.day === day
      ? { ...stored, used: { ...stored.used }, leases: { ...stored.leases } }
      : emptyBook(day, stored?.maxCall);
  const settle = request.settle;
  // Settled once: the lease leaves the book with its spend, so a repeated settle adds nothing.
  // By the lease's id: a release still on its way may arrive after the same agent's next request.
  if (settle && settle.day === day && book.leases[settle.leaseId]) {
    book.used = addSpend(book.used, settle.spent);
    delete book.leases[settle.leaseId];
  }
  if (settle)
    book.maxCall = {
      tokens: Math.max(book.maxCall?.tokens ?? 0, settle.maxCall.tokens),
      usd: Math.max(book.maxCall?.usd ?? 0, settle.maxCall.usd),
    };
  if (request.release || !hasCaps(limits)) return { book, answer: { ok: true, lease: null, limits } };
  const refusal = overCap("project", project, book.used, limits, request.now);
  if (refusal) return { book, answer: { ok: false, refusal, limits } };
  const others = Object.values(book.leases).filter((l) => l.agent !== request.agent && l.expiresAt > request.now);
  const free = (key: (typeof quotaKeys)[number]) => {
    const cap = limits[key];
    if (cap === undefined) return null;
    const measure = key === "tokensPerDay" ? "tokens" : "usd";
    return cap - book.used[measure] - others.reduce((sum, l) => sum + (l[measure] ?? 0), 0);
  };
  const room = { tokens: free("tokensPerDay"), usd: free("usdPerDay") };
  // Every holder may still make one more call past its lease, and so may this agent.
  const near = quotaKeys.some((key) => {
    const measure = key === "tokensPerDay" ? "tokens" : "usd";
    const left = room[measure];
    const cap = limits[key] ?? 0;
    return (
      left !== null &&
      (left < cap * tailShare || left < cap * chunkShare + (others.length + 1) * (book.maxCall?.[measure] ?? 0))
    );
  });
  if (near && others.length > 0) {
    const holder = others.sort((a, b) => a.expiresAt - b.expiresAt)[0]!;
    return { book, answer: { ok: false, busy: { holder: holder.agent, retryAfterMs: 200 }, limits } };
  }
  const grant = (key: (typeof quotaKeys)[number], left: number | null) =>
    left === null ? null : near ? left : (limits[key] ?? 0) * chunkShare;
  const lease: Lease = {
    id: leaseId,
    agent: request.agent,
    day,
    tokens: grant("tokensPerDay", room.tokens),
    usd: grant("usdPerDay", room.usd),
    exclusive: near,
    expiresAt: request.now + (near ? exclusiveTtlMs : leaseTtlMs),
  };
  book.leases[leaseId] = lease;
  return { book, answer: { ok: true, lease, limits } };
}

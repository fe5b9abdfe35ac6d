import { dayOf } from "./day";
import { addSpend, hasCaps, noSpend, quotaKeys, type QuotaLimits, type Spend } from "./limits";
import { overCap, type QuotaRefusal } from "./refusal";

/**
 * The project's day counter lives in its registry; each agent spends against a lease of it, so a
 * model call costs no registry round trip (the chat turn's hot path): an agent asks for a lease only
 * when it has none, its lease ran out or expired, and settles what it spent with the next request.
 *
 * Far from the cap a lease is a tenth of the cap and several agents hold one at once. Within the
 * last fifth of the cap the registry hands out one exclusive lease at a time, for one call, and the
 * agent settles it right after that call: concurrent agents then run their calls one after another,
 * so together they go past the project's cap by at most the one call that crossed it.
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
  leases: Record<string, Lease>;
}

export interface LeaseRequest {
  agent: string;
  now: number;
  /** The lease the agent held and what it spent of it (any day: spend of a past day is dropped with that day). */
  settle?: { leaseId: string; day: string; spent: Spend };
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

export const emptyBook = (day: string): LeaseBook => ({ day, used: noSpend, leases: {} });

/**
 * One lease request against the book (pure: the registry stores the book it returns).
 * @example
 * const { book, answer } = grantLease(emptyBook("2026-11-26"), "acme", { tokensPerDay: 1000 }, { agent: "scout", now }, "l1");
 * // answer.lease: { tokens: 100, usd: null, exclusive: false, … }
 */
export function grantLease(stored: LeaseBook | undefined, project: string, limits: QuotaLimits, request: LeaseRequest, leaseId: string): { book: LeaseBook; answer: LeaseAnswer } {
  const day = dayOf(request.now);
  const book: LeaseBook = stored && stored.day === day ? { day, used: { ...stored.used }, leases: { ...stored.leases } } : emptyBook(day);
  const settle = request.settle;
  // Settled once: the lease leaves the book with its spend, so a repeated settle adds nothing.
  if (settle && settle.day === day && book.leases[request.agent]?.id === settle.leaseId) {
    book.used = addSpend(book.used, settle.spent);
    delete book.leases[request.agent];
  }
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
  const near = quotaKeys.some((key) => {
    const left = room[key === "tokensPerDay" ? "tokens" : "usd"];
    return left !== null && left < (limits[key] ?? 0) * tailShare;
  });
  if (near && others.length > 0) {
    const holder = others.sort((a, b) => a.expiresAt - b.expiresAt)[0]!;
    return { book, answer: { ok: false, busy: { holder: holder.agent, retryAfterMs: 200 }, limits } };
  }
  const grant = (key: (typeof quotaKeys)[number], left: number | null) => (left === null ? null : near ? left : (limits[key] ?? 0) * chunkShare);
  const lease: Lease = {
    id: leaseId,
    agent: request.agent,
    day,
    tokens: grant("tokensPerDay", room.tokens),
    usd: grant("usdPerDay", room.usd),
    exclusive: near,
    expiresAt: request.now + (near ? exclusiveTtlMs : leaseTtlMs),
  };
  book.leases[request.agent] = lease;
  return { book, answer: { ok: true, lease, limits } };
}

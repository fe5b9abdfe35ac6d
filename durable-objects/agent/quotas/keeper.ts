import type { Clock } from "../../../core/ports";
import {
  addSpend,
  dayOf,
  hasCaps,
  noSpend,
  overCap,
  quotaNow,
  resetsAt,
  type Lease,
  type LeaseAnswer,
  type LeaseRequest,
  type ProjectQuota,
  type QuotaLimits,
  type QuotaRefusal,
  type Spend,
} from "../../../core/quotas";

/** What the agent asks of its project's registry (durable-objects/registry/quotas.ts). */
export interface LeaseSource {
  quotaLease(request: Omit<LeaseRequest, "now">): Promise<LeaseAnswer>;
}

interface KeptState {
  day: string;
  spent: Spend;
  /** The registry's lease this agent spends against, what it spent of it, and the project's caps (as its profile had them) it was asked under. */
  lease?: Lease & { spent: Spend; maxCall: Spend; inUse?: boolean; limits?: QuotaLimits };
}

export interface QuotaKeeperDeps {
  /** The Durable Object's synchronous KV (SQLite-backed): the counters survive an eviction. */
  kv: { get<T>(key: string): T | undefined; put(key: string, value: unknown): void; delete(key: string): boolean };
  clock: Clock;
  /** `PANTHEON_TEST_CLOCK=1` on this deployment: only then does the pushed offset move the quota clock. */
  testClock: boolean;
  agent(): string;
  registry(): LeaseSource;
  /** Work after the response (settling an exclusive lease). */
  background(work: Promise<unknown>): void;
  sleep?(ms: number): Promise<void>;
}

const stateKey = "quota/state";
/** Whether two sets of caps are the same, cap by cap (a lease kept from before caps were stored with it counts as not). */
const sameLimits = (a: QuotaLimits | undefined, b: QuotaLimits): boolean =>
  !!a && a.tokensPerDay === b.tokensPerDay && a.usdPerDay === b.usdPerDay;
/** How often an agent under no cap stores its day counter (record says why). */
const uncappedSaveMs = 10_000;
/** How long a call waits for another agent's call that holds the last of the project's cap. */
const busyWaitMs = 60_000;

/**
 * The agent's own day counter (tokens and US dollars, in its SQLite KV) and its lease of the project's
 * cap. `admit` answers synchronously (no await, no storage read after the first) unless the agent
 * needs a new lease from the registry; `record` adds what a call spent.
 * @example
 * const refused = keeper.admit({ tokensPerDay: 1000 }, profile.projectQuota);
 * if (refused) … // a QuotaRefusal, or a Promise of one (or of null) when the registry was asked
 */
export function makeQuotaKeeper(deps: QuotaKeeperDeps) {
  let cached: KeptState | undefined;
  let offsetMs: number | undefined;
  let acquiring: Promise<QuotaRefusal | null> | undefined;
  let savedAt = -Infinity;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  const now = () => quotaNow(deps.clock.now(), offsetMs, deps.testClock);

  /** Today's state: yesterday's counter and lease are left behind at UTC midnight. */
  function state(at: number): KeptState {
    const day = dayOf(at);
    cached ??= deps.kv.get<KeptState>(stateKey) ?? { day, spent: noSpend };
    if (cached.day !== day) cached = { day, spent: noSpend };
    return cached;
  }
  const save = (kept: KeptState) => deps.kv.put(stateKey, kept);

  const within = (lease: KeptState["lease"], at: number): boolean =>
    !!lease &&
    lease.day === dayOf(at) &&
    lease.expiresAt > at &&
    (lease.tokens === null || lease.spent.tokens < lease.tokens) &&
    (lease.usd === null || lease.spent.usd < lease.usd);

  const settleOf = (lease: KeptState["lease"]) =>
    lease ? { settle: { leaseId: lease.id, day: lease.day, spent: lease.spent, maxCall: lease.maxCall } } : {};

  async function acquire(askedUnder: QuotaLimits): Promise<QuotaRefusal | null> {
    const until = deps.clock.now() + busyWaitMs;
    for (;;) {
      const kept = state(now());
      const answer = await deps.registry().quotaLease({ agent: deps.agent(), ...settleOf(kept.lease) });
      delete kept.lease;
      if (answer.ok) {
        if (answer.lease) kept.lease = { ...answer.lease, spent: noSpend, maxCall: noSpend, limits: askedUnder };
        save(kept);
        return null;
      }
      save(kept);
      if ("refusal" in answer) return answer.refusal;
      if (deps.clock.now() + answer.busy.retryAfterMs > until) {
        throw new Error(
          `the rest of this project's daily cap is held by agent '${answer.busy.holder}''s model call in flight; try again shortly`,
        );
      }
      await sleep(answer.busy.retryAfterMs);
    }
  }

  return {
    /**
     * Before a model call: a refusal when a cap of the agent or its project is reached, null when the
     * call may start; a Promise only when the registry had to be asked for a lease.
     */
    admit(
      agentCaps: QuotaLimits,
      project: ProjectQuota | undefined,
      waitUntil = deps.clock.now() + busyWaitMs,
    ): QuotaRefusal | null | Promise<QuotaRefusal | null> {
      offsetMs = project?.clockOffsetMs;
      const at = now();
      const kept = state(at);
      const own = overCap("agent", deps.agent(), kept.spent, agentCaps, at);
      if (own) return own;
      if (!hasCaps(project?.limits)) return null;
      const lease = kept.lease;
      // The project's caps changed since the lease was granted (its profile carries them): the lease is
      // settled and a new one asked under the caps as they are, so a lowered cap holds from the next
      // call (one call in flight on an exclusive lease is waited for first, as below).
      const stale = !!lease && !sameLimits(lease.limits, project!.limits);
      // An exclusive lease is one call: another run of this agent waits for it to end.
      if (lease?.exclusive && lease.inUse && within(lease, at)) {
        if (deps.clock.now() > waitUntil)
          return Promise.reject(
            new Error(
              "the rest of this project's daily cap is held by this agent's model call in flight; try again shortly",
            ),
          );
        return sleep(200).then(() => this.admit(agentCaps, project, waitUntil));
      }
      if (!stale && within(lease, at)) {
        if (lease!.exclusive) lease!.inUse = true;
        return null;
      }
      if (!acquiring) acquiring = acquire(project!.limits).finally(() => (acquiring = undefined));
      // Every run that waited on the lease checks again: one of them takes an exclusive lease.
      return acquiring.then((refusal) => refusal ?? this.admit(agentCaps, project, waitUntil));
    },

    /** A call admitted on an exclusive lease failed: the lease goes back, spent nothing. */
    failed(): void {
      if (cached?.lease?.exclusive && cached.lease.inUse) this.record({ tokens: 0, usd: 0 });
    },

    /**
     * After a model call: what it spent counts today for the agent and against its lease. Stored at
     * once when a cap is at stake (`capped`, or a lease); an agent under no cap stores its counter at
     * most every 10 s (a write per model call showed in the chat turn's CPU profile), so an eviction
     * loses at most that much of a spend only shown, never one a cap counts.
     */
    record(spend: Spend, capped = true): void {
      const kept = state(now());
      kept.spent = addSpend(kept.spent, spend);
      const lease = kept.lease;
      if (lease) {
        lease.spent = addSpend(lease.spent, spend);
        lease.maxCall = {
          tokens: Math.max(lease.maxCall.tokens, spend.tokens),
          usd: Math.max(lease.maxCall.usd, spend.usd),
        };
      }
      // An exclusive lease covers one call, and a spent one no more: settled at once, so the
      // registry counts it and the next agent's call may start (lease.ts says why).
      if (lease && (lease.exclusive || !within(lease, now()))) {
        delete kept.lease;
        const released = deps.registry().quotaLease({ agent: deps.agent(), ...settleOf(lease), release: true });
        deps.background(
          released.catch((error: unknown) => {
            // Not settled (the registry restarted, say): kept, and settled with the agent's next request.
            const today = state(now());
            if (!today.lease && lease.day === today.day) {
              today.lease = lease;
              save(today);
            }
            console.error(
              JSON.stringify({
                level: "error",
                message: "quota lease release failed; settled with the next request",
                error: String(error),
              }),
            );
          }),
        );
      }
      const at = deps.clock.now();
      if (capped || lease || at - savedAt >= uncappedSaveMs) {
        savedAt = at;
        save(kept);
      }
    },

    /** What the agent spent today (UTC), for listings, the doctor and the PWA. */
    today(
      agentCaps: QuotaLimits,
      project: ProjectQuota | undefined,
    ): { day: string; resetsAt: string; used: Spend; limits: QuotaLimits } {
      offsetMs = project?.clockOffsetMs;
      const at = now();
      const kept = state(at);
      return {
        day: kept.day,
        resetsAt: new Date(resetsAt(at)).toISOString(),
        used: { ...kept.spent },
        limits: agentCaps,
      };
    },

    /** The agent is forgotten: its counter goes with it (the project's counter in the registry stays). */
    forget(): void {
      cached = undefined;
      deps.kv.delete(stateKey);
    },
  };
}

export type QuotaKeeper = ReturnType<typeof makeQuotaKeeper>;

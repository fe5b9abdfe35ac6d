import { PantheonError, type Result } from "../../core/errors";
import {
  applyQuotaPatch,
  dayOf,
  grantLease,
  hasCaps,
  quotaKeys,
  quotaNow,
  resetsAt,
  tightest,
  type LeaseAnswer,
  type LeaseBook,
  type LeaseRequest,
  type ProjectQuota,
  type QuotaLimits,
  type QuotaPatch,
} from "../../core/quotas";

export interface ProjectQuotaView {
  /** What the project's admin set. */
  own: QuotaLimits;
  /** What the deployment's admin set for this project: the project's admin cannot go above it. */
  ceiling: QuotaLimits;
  /** What holds: the tighter of the two, cap by cap. */
  effective: QuotaLimits;
  day: string;
  resetsAt: string;
  /** Spend the agents have settled with the registry today (an agent's lease in use is not in it yet). */
  settled: { tokens: number; usd: number };
  /** Agents holding a lease now. */
  leases: { agent: string; exclusive: boolean }[];
}

const keys = { own: "quota/own", ceiling: "quota/ceiling", book: "quota/book", offset: "quota/clock-offset" } as const;

/**
 * A project's daily caps and its day counter, kept in the registry's KV (a few small values: no
 * table, no migration). The counter is fed by the agents' leases (core/quotas lease.ts says why
 * leases): one RPC per lease, not per model call.
 */
export function makeProjectQuotas(deps: {
  kv: { get<T>(key: string): T | undefined; put(key: string, value: unknown): void };
  now(): number;
  testClock: boolean;
  project(): string;
}) {
  const read = (key: string): QuotaLimits => deps.kv.get<QuotaLimits>(key) ?? {};
  const offset = () => (deps.testClock ? deps.kv.get<number>(keys.offset) : undefined);
  const now = () => quotaNow(deps.now(), offset(), deps.testClock);
  const effective = () => tightest(read(keys.own), read(keys.ceiling));

  function view(): ProjectQuotaView {
    const at = now();
    const book = deps.kv.get<LeaseBook>(keys.book);
    const today = book?.day === dayOf(at) ? book : undefined;
    return {
      own: read(keys.own),
      ceiling: read(keys.ceiling),
      effective: effective(),
      day: dayOf(at),
      resetsAt: new Date(resetsAt(at)).toISOString(),
      settled: today?.used ?? { tokens: 0, usd: 0 },
      leases: Object.values(today?.leases ?? {})
        .filter((l) => l.expiresAt > at)
        .map((l) => ({ agent: l.agent, exclusive: l.exclusive })),
    };
  }

  return {
    view,

    /** The project admin's caps: each at most the deployment's ceiling (a 400 naming the field otherwise). */
    setOwn(patch: QuotaPatch): Result<ProjectQuotaView> {
      const ceiling = read(keys.ceiling);
      const issues = quotaKeys.flatMap((key) => {
        const value = patch[key];
        const cap = ceiling[key];
        return typeof value === "number" && cap !== undefined && value > cap
          ? [
              {
                path: [key],
                message: `at most ${cap}: the deployment's ceiling for this project (only the deployment's admin can raise it)`,
              },
            ]
          : [];
      });
      if (issues.length)
        return new PantheonError(
          "validation_failed",
          `${issues[0]!.path[0]} is above the deployment's ceiling for this project: ${issues[0]!.message}`,
          { details: { issues } },
        ).toFailure();
      deps.kv.put(keys.own, applyQuotaPatch(read(keys.own), patch));
      return { ok: true, value: view() };
    },

    /** The deployment admin's ceiling: what holds is the tighter of it and the project's own caps. */
    setCeiling(patch: QuotaPatch): ProjectQuotaView {
      deps.kv.put(keys.ceiling, applyQuotaPatch(read(keys.ceiling), patch));
      return view();
    },

    lease(request: Omit<LeaseRequest, "now">): LeaseAnswer {
      const { book, answer } = grantLease(
        deps.kv.get<LeaseBook>(keys.book),
        deps.project(),
        effective(),
        { ...request, now: now() },
        crypto.randomUUID(),
      );
      deps.kv.put(keys.book, book);
      return answer;
    },

    /** Test deployments only (PANTHEON_TEST_CLOCK=1): moves this project's quota clock. */
    setClockOffset(offsetMs: number): void {
      if (!deps.testClock) throw new PantheonError("forbidden", "this deployment has no test clock");
      deps.kv.put(keys.offset, offsetMs);
    },

    /** What the agents get with their profiles; undefined when the project has no caps and no test clock. */
    forProfile(): ProjectQuota | undefined {
      const limits = effective();
      const clockOffsetMs = offset();
      if (!hasCaps(limits) && !clockOffsetMs) return undefined;
      return { limits, ...(clockOffsetMs ? { clockOffsetMs } : {}) };
    },
  };
}

export type ProjectQuotas = ReturnType<typeof makeProjectQuotas>;

import { quotaKeys, type QuotaLimits, type Spend } from "../quotas/limits";
import type { DoctorCheck, QuotaFacts } from "./facts";

export type { QuotaFacts } from "./facts";

const usd = (value: number) => `$${value >= 100 ? value.toFixed(2) : String(Number(value.toPrecision(3)))}`;
const spent = (used: Spend) => `${used.tokens} tokens, ${usd(used.usd)}`;
const caps = (limits: QuotaLimits) =>
  [
    limits.tokensPerDay !== undefined ? `${limits.tokensPerDay} tokens` : "",
    limits.usdPerDay !== undefined ? usd(limits.usdPerDay) : "",
  ]
    .filter(Boolean)
    .join(" and ");

/** The share of its tightest cap a spend has used (0 when there is none). */
function share(used: Spend, limits: QuotaLimits): number {
  return Math.max(
    0,
    ...quotaKeys.map((key) => {
      const cap = limits[key];
      if (cap === undefined) return 0;
      const value = key === "tokensPerDay" ? used.tokens : used.usd;
      return cap === 0 ? 1 : value / cap;
    }),
  );
}

function line(
  id: string,
  who: string,
  used: Spend,
  limits: QuotaLimits,
  resetsAt: string,
  fix: string,
  uncappedStatus: DoctorCheck["status"],
): DoctorCheck {
  const base = { id, area: "quotas" as const };
  if (!caps(limits))
    return {
      ...base,
      status: uncappedStatus,
      message: `${who} spent ${spent(used)} today (UTC), with no daily cap`,
      ...(uncappedStatus === "ok" ? {} : { fix }),
    };
  const used01 = share(used, limits);
  const message = `${who} spent ${spent(used)} today (UTC) of its daily cap of ${caps(limits)}; it resets at ${resetsAt}`;
  if (used01 >= 1)
    return {
      ...base,
      status: "warn",
      message: `${message}: the cap is reached, model calls are refused until then`,
      fix,
    };
  if (used01 >= 0.8) return { ...base, status: "warn", message: `${message}: ${Math.round(used01 * 100)}% used`, fix };
  return { ...base, status: "ok", message };
}

/**
 * The doctor's quota lines: the project's spend today against its caps (a production project with
 * none is a warning: nothing stops its spend), and each agent's.
 * @example
 * quotaChecks(facts, "production"); // [{ id: "quota:project", status: "ok", message: "project 'acme' spent 1200 tokens, $0.01 today (UTC) of its daily cap of 5000 tokens; …" }, …]
 */
export function quotaChecks(facts: QuotaFacts, prod: boolean): DoctorCheck[] {
  const { project } = facts;
  return [
    line(
      "quota:project",
      `project '${project.name}'`,
      project.used,
      project.effective,
      project.resetsAt,
      `pantheon quotas set --tokens-per-day N --usd-per-day D${caps(project.ceiling) ? ` (at most ${caps(project.ceiling)}, the deployment's ceiling)` : ""}`,
      prod ? "warn" : "ok",
    ),
    ...facts.agents.map((agent) =>
      line(
        `quota:${agent.name}`,
        `agent '${agent.name}'`,
        agent.used,
        agent.limits,
        project.resetsAt,
        `pantheon quotas set --agent ${agent.name} --tokens-per-day N`,
        "ok",
      ),
    ),
  ];
}

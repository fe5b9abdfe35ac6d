import type { Verdict } from "./grade";

/** One case of a run: its verdicts, what it cost and how long the agent took. */
export interface CaseResult {
  name: string;
  pass: boolean;
  /** The first failing grader's reason, or what passed. */
  reason: string;
  verdicts: Verdict[];
  reply: string;
  runId: string | null;
  tokens: number;
  /** USD, null when a model that answered has no published price. */
  costUsd: number | null;
  latencyMs: number;
}

export interface EvalRunSummary {
  id: string;
  suite: string;
  agent: string;
  startedAt: number;
  finishedAt: number;
  cases: number;
  passed: number;
  passRate: number;
  threshold: number;
  pass: boolean;
  tokens: number;
  costUsd: number | null;
  latencyMs: { p50: number; p95: number };
  /** The cases that failed and why (reasons cut to 200 characters): a list reads them without the whole run. */
  failing: Array<{ name: string; reason: string }>;
}

export interface EvalRun extends EvalRunSummary {
  results: CaseResult[];
}

/** A change from the previous run of the same suite: a case that now passes or now fails, or is new. */
export interface CaseChange {
  name: string;
  change: "fixed" | "broke" | "new" | "removed";
  reason: string;
}
export interface Comparison {
  previous: { id: string; startedAt: number; passRate: number } | null;
  passRateDelta: number | null;
  changes: CaseChange[];
}

/** The value at quantile `q` (0–1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** A run's figures from its case results. */
export function summarize(
  base: Omit<EvalRunSummary, "cases" | "passed" | "passRate" | "pass" | "tokens" | "costUsd" | "latencyMs" | "failing">,
  results: CaseResult[],
): EvalRun {
  const passed = results.filter((r) => r.pass).length;
  const passRate = results.length ? passed / results.length : 0;
  const latencies = results.map((r) => r.latencyMs);
  const costs = results.map((r) => r.costUsd);
  return {
    ...base,
    cases: results.length,
    passed,
    passRate,
    pass: passRate >= base.threshold,
    tokens: results.reduce((n, r) => n + r.tokens, 0),
    costUsd: costs.some((c) => c === null) ? null : costs.reduce<number>((n, c) => n + (c ?? 0), 0),
    latencyMs: { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) },
    failing: results.filter((r) => !r.pass).map((r) => ({ name: r.name, reason: r.reason.slice(0, 200) })),
    results,
  };
}

/**
 * What got better or worse since the previous run of the same suite, case by case.
 * @example
 * compareRuns(before, after).changes // [{ name: "greets", change: "fixed", reason: "…" }]
 */
export function compareRuns(previous: EvalRun | null, current: EvalRun): Comparison {
  if (!previous)
    return {
      previous: null,
      passRateDelta: null,
      changes: current.results.map((r) => ({ name: r.name, change: "new" as const, reason: r.reason })),
    };
  const before = new Map(previous.results.map((r) => [r.name, r]));
  const changes: CaseChange[] = [];
  for (const r of current.results) {
    const was = before.get(r.name);
    if (!was) changes.push({ name: r.name, change: "new", reason: r.reason });
    else if (was.pass !== r.pass) changes.push({ name: r.name, change: r.pass ? "fixed" : "broke", reason: r.reason });
    before.delete(r.name);
  }
  for (const name of before.keys()) changes.push({ name, change: "removed", reason: "not in this run's suite" });
  return {
    previous: { id: previous.id, startedAt: previous.startedAt, passRate: previous.passRate },
    passRateDelta: current.passRate - previous.passRate,
    changes,
  };
}

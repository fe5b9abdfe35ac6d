import type { DiffStats } from "./workspace";
import type { TaskStatus } from "./types";

/** One run a task took, as its worker recorded it. */
export interface TaskRun {
  runId: string;
  status: string;
  /** Where its trace is (`GET` with a chat token). */
  trace: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

export interface TaskReport {
  number: number;
  name: string;
  status: TaskStatus;
  summary: string | null;
  startedAt: number | null;
  completedAt: number | null;
  diff: DiffStats;
  runs: TaskRun[];
  tokens: { input: number; output: number };
  costUsd: number | null;
}

export interface FeatureReport {
  feature: string;
  status: string;
  tasks: TaskReport[];
  byStatus: Record<string, number>;
  diff: { filesChanged: number; insertions: number; deletions: number; files: string[] };
  runs: number;
  tokens: { input: number; output: number };
  costUsd: number | null;
}

const sumCost = (costs: (number | null)[]) => (costs.some((c) => c === null) || costs.length === 0 ? (costs.length === 0 ? 0 : null) : costs.reduce<number>((a, c) => a + (c ?? 0), 0));

/** A task's tokens and cost from its runs (cost unknown when any run's model has no known price). */
export function totalsOf(runs: readonly TaskRun[]): Pick<TaskReport, "tokens" | "costUsd"> {
  return {
    tokens: { input: runs.reduce((n, r) => n + r.inputTokens, 0), output: runs.reduce((n, r) => n + r.outputTokens, 0) },
    costUsd: sumCost(runs.map((r) => r.costUsd)),
  };
}

/** The feature's report: every task's, rolled up (files counted once however many tasks touched them). */
export function rollUp(feature: { name: string; status: string }, tasks: readonly TaskReport[]): FeatureReport {
  const byStatus: Record<string, number> = {};
  for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  const files = new Set(tasks.flatMap((t) => t.diff.files.map((f) => f.path)));
  return {
    feature: feature.name,
    status: feature.status,
    tasks: [...tasks],
    byStatus,
    diff: { filesChanged: files.size, insertions: tasks.reduce((n, t) => n + t.diff.insertions, 0), deletions: tasks.reduce((n, t) => n + t.diff.deletions, 0), files: [...files].sort() },
    runs: tasks.reduce((n, t) => n + t.runs.length, 0),
    tokens: { input: tasks.reduce((n, t) => n + t.tokens.input, 0), output: tasks.reduce((n, t) => n + t.tokens.output, 0) },
    costUsd: sumCost(tasks.map((t) => t.costUsd)),
  };
}

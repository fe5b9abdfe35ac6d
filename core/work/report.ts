import { costOf } from "../models/prices";
import type { DiffStats } from "./workspace";
import type { TaskStatus } from "./types";

/** The tokens one model answered in a run. */
export interface ModelUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/** One run a task (or the planner) took, priced by the models that answered. */
export interface TaskRun {
  runId: string;
  status: string;
  /** Where its trace is (`GET` with a chat token). */
  trace: string;
  inputTokens: number;
  outputTokens: number;
  /** The models that answered, each with its tokens and price (`offline`: the stand-in, free). */
  models: (ModelUsage & { costUsd: number | null; offline: boolean })[];
  costUsd: number | null;
}

/** A commit of the task, as the repository records it (the `repo` part adds these). */
export interface TaskCommit {
  sha: string;
  message?: string;
  url?: string;
}

export interface TaskReport {
  number: number;
  key: string;
  name: string;
  status: TaskStatus;
  summary: string | null;
  startedAt: number | null;
  completedAt: number | null;
  diff: DiffStats;
  question: string | null;
  answer: string | null;
  answeredBy: string | null;
  commits: TaskCommit[];
  runs: TaskRun[];
  tokens: { input: number; output: number };
  costUsd: number | null;
}

export interface FeatureReport {
  feature: string;
  title: string;
  status: string;
  createdAt: number | null;
  completedAt: number | null;
  tasks: TaskReport[];
  /** Tasks a later plan dropped whose committed files are still in the tree (counted in `diff`). */
  removed: TaskReport[];
  /** The orchestrator's runs for the feature (planning, syncing, starting tasks). */
  planner: { runs: TaskRun[]; tokens: { input: number; output: number }; costUsd: number | null };
  byStatus: Record<string, number>;
  diff: { filesChanged: number; insertions: number; deletions: number; files: string[] };
  runs: number;
  tokens: { input: number; output: number };
  costUsd: number | null;
}

const sumCost = (costs: (number | null)[]) =>
  costs.some((c) => c === null) || costs.length === 0
    ? costs.length === 0
      ? 0
      : null
    : costs.reduce<number>((a, c) => a + (c ?? 0), 0);

/**
 * A run priced by the models that answered it, not the one it asked for: the offline stand-in costs
 * nothing and says so; a model without a known price leaves the cost unknown (null).
 * @example
 * pricedRun({ runId: "r", status: "completed", trace: "/t", models: [{ model: "offline", inputTokens: 10, outputTokens: 5 }] }).costUsd // 0
 */
export function pricedRun(run: {
  runId: string;
  status: string;
  trace: string;
  models: readonly ModelUsage[];
}): TaskRun {
  const models = run.models.map((m) => {
    const offline = m.model === "offline";
    return { ...m, offline, costUsd: offline ? 0 : costOf(m.model, m) };
  });
  return {
    runId: run.runId,
    status: run.status,
    trace: run.trace,
    inputTokens: models.reduce((n, m) => n + m.inputTokens, 0),
    outputTokens: models.reduce((n, m) => n + m.outputTokens, 0),
    models,
    costUsd: sumCost(models.map((m) => m.costUsd)),
  };
}

/** A task's tokens and cost from its runs (cost unknown when any run's model has no known price). */
export function totalsOf(runs: readonly TaskRun[]): Pick<TaskReport, "tokens" | "costUsd"> {
  return {
    tokens: {
      input: runs.reduce((n, r) => n + r.inputTokens, 0),
      output: runs.reduce((n, r) => n + r.outputTokens, 0),
    },
    costUsd: sumCost(runs.map((r) => r.costUsd)),
  };
}

/**
 * The feature's report: every task's, rolled up (files counted once however many tasks touched
 * them), with the tasks a later plan dropped whose files stay in the tree, and the planner's runs
 * in the tokens and cost.
 */
export function rollUp(
  feature: { name: string; status: string; title?: string; createdAt?: number | null; completedAt?: number | null },
  tasks: readonly TaskReport[],
  extra: { removed?: readonly TaskReport[]; plannerRuns?: readonly TaskRun[] } = {},
): FeatureReport {
  const byStatus: Record<string, number> = {};
  for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  const removed = [...(extra.removed ?? [])];
  const counted = [...tasks, ...removed];
  const files = new Set(counted.flatMap((t) => t.diff.files.map((f) => f.path)));
  const plannerRuns = [...(extra.plannerRuns ?? [])];
  const planner = { runs: plannerRuns, ...totalsOf(plannerRuns) };
  return {
    feature: feature.name,
    title: feature.title ?? feature.name,
    status: feature.status,
    createdAt: feature.createdAt ?? null,
    completedAt: feature.completedAt ?? null,
    tasks: [...tasks],
    removed,
    planner,
    byStatus,
    diff: {
      filesChanged: files.size,
      insertions: counted.reduce((n, t) => n + t.diff.insertions, 0),
      deletions: counted.reduce((n, t) => n + t.diff.deletions, 0),
      files: [...files].sort(),
    },
    runs: counted.reduce((n, t) => n + t.runs.length, 0) + plannerRuns.length,
    tokens: {
      input: counted.reduce((n, t) => n + t.tokens.input, 0) + planner.tokens.input,
      output: counted.reduce((n, t) => n + t.tokens.output, 0) + planner.tokens.output,
    },
    costUsd: sumCost([...counted.map((t) => t.costUsd), planner.costUsd]),
  };
}

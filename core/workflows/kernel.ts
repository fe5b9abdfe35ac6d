import {
  combineAll,
  combineFirst,
  combineMajority,
  combineVote,
  type FanOutReply,
  type FanOutResult,
} from "../bus/policies";
import { fillTemplate, type Workflow, type WorkflowStep } from "./workflow";

/** pending → running → done | failed; `skipped` when the workflow failed before the step could start. */
export type StepState = "pending" | "running" | "done" | "failed" | "skipped";

export interface StepRecord {
  state: StepState;
  output?: string;
  error?: string;
  startedAt?: number;
  endedAt?: number;
  /**
   * Where its trace is: a fan-out's id, or a tool step's run id — written with the step's start, before
   * its call, so recovery adopts that run (and its idempotency key) instead of starting another.
   */
  ref?: string;
}

export type WorkflowStatus = "running" | "completed" | "failed";

/** A workflow's persisted progress: everything its kernel needs to carry on after an eviction. */
export interface WorkflowProgress {
  status: WorkflowStatus;
  steps: Record<string, StepRecord>;
  output?: string;
  error?: string;
}

/** Progress of a workflow that has not started a step yet. */
export function initialProgress(workflow: Workflow): WorkflowProgress {
  return {
    status: "running",
    steps: Object.fromEntries(workflow.steps.map((s) => [s.id, { state: "pending" as const }])),
  };
}

/** Steps whose incoming edges are all done and that have not started: the kernel starts these now. */
export function readySteps(workflow: Workflow, progress: WorkflowProgress): WorkflowStep[] {
  if (progress.status !== "running") return [];
  return workflow.steps.filter(
    (s) => progress.steps[s.id]?.state === "pending" && s.after.every((dep) => progress.steps[dep]?.state === "done"),
  );
}

/** The values a step's templates read: the workflow's input and every finished step's output. */
export function templateValues(input: string, progress: WorkflowProgress): Record<string, string> {
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  values.input = input;
  for (const [id, record] of Object.entries(progress.steps))
    if (record.state === "done") values[id] = record.output ?? "";
  return values;
}

/** What an `ask` or `fanout` step asks, with the outputs of its edges filled in. */
export function questionOf(
  step: Extract<WorkflowStep, { input: string }>,
  input: string,
  progress: WorkflowProgress,
): string {
  return fillTemplate(step.input, templateValues(input, progress));
}

/** A tool step's arguments with their string values filled in. */
export function toolArgsOf(
  step: Extract<WorkflowStep, { kind: "tool" }>,
  input: string,
  progress: WorkflowProgress,
): Record<string, unknown> {
  const values = templateValues(input, progress);
  const fill = (v: unknown): unknown =>
    typeof v === "string"
      ? fillTemplate(v, values)
      : Array.isArray(v)
        ? v.map(fill)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
          : v;
  return fill(step.args) as Record<string, unknown>;
}

/**
 * A join: the outputs of its edges combined under its policy (the same functions as a fan-out's),
 * each edge counted as one voter named by its step id.
 * @example
 * joinOf({ id: "j", kind: "join", policy: "majority", after: ["a", "b", "c"] }, progress).answer; // the output two of three gave
 */
export function joinOf(step: Extract<WorkflowStep, { kind: "join" }>, progress: WorkflowProgress): FanOutResult {
  const replies: FanOutReply[] = step.after.map((id) => ({ target: id, answer: progress.steps[id]?.output ?? "" }));
  const decision =
    step.policy === "all"
      ? combineAll(step.after, replies)
      : step.policy === "first"
        ? combineFirst(step.after, replies)
        : step.policy === "majority"
          ? combineMajority(step.after, replies, step.tie)
          : combineVote(step.after, replies, step.weights, step.tie);
  if (!decision.done) throw new Error(`join '${step.id}' ran before its steps were done`);
  const { done: _done, ...result } = decision;
  return result;
}

/** Records a step's end; on a failure the workflow fails and steps not started are skipped. */
export function finishStep(
  workflow: Workflow,
  progress: WorkflowProgress,
  stepId: string,
  outcome: { output: string } | { error: string },
  now: number,
): WorkflowProgress {
  const steps = { ...progress.steps };
  const record = steps[stepId];
  if (!record || (record.state !== "running" && record.state !== "pending")) return progress;
  steps[stepId] = {
    ...record,
    endedAt: now,
    ...("error" in outcome ? { state: "failed", error: outcome.error } : { state: "done", output: outcome.output }),
  };
  if ("error" in outcome) {
    for (const [id, r] of Object.entries(steps)) if (r.state === "pending") steps[id] = { ...r, state: "skipped" };
    return { ...progress, steps, status: "failed", error: `step '${stepId}' failed: ${outcome.error}` };
  }
  const next = { ...progress, steps };
  if (Object.values(steps).every((r) => r.state === "done")) {
    // The workflow's answer: its last step's output, or each final step's when the graph ends in several.
    const sinks = workflow.steps.filter((s) => !workflow.steps.some((o) => o.after.includes(s.id)));
    const output =
      sinks.length === 1
        ? (steps[sinks[0]!.id]!.output ?? "")
        : sinks.map((s) => `${s.id}: ${steps[s.id]!.output ?? ""}`).join("\n");
    return { ...next, status: "completed", output };
  }
  return next;
}

/** Marks a step started (the kernel persists this before it sends anything for the step). */
export function startStep(progress: WorkflowProgress, stepId: string, now: number, ref?: string): WorkflowProgress {
  const record = progress.steps[stepId];
  if (record?.state !== "pending") return progress;
  return {
    ...progress,
    steps: { ...progress.steps, [stepId]: { ...record, state: "running", startedAt: now, ...(ref ? { ref } : {}) } },
  };
}

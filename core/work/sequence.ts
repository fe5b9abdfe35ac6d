import type { TaskStatus } from "./types";

/** A task as the runner sees it: where it is in the plan, its state, the keys it waits for. */
export interface SequencedTask {
  number: number;
  key: string;
  status: TaskStatus;
  dependsOn: readonly string[];
}

/** What running a feature's tasks one after another does next. */
export type NextStep =
  /** Start this task (the first pending one, in plan order, whose dependencies are done). */
  | { kind: "start"; task: SequencedTask }
  /** A task is running: wait until its worker ends. */
  | { kind: "wait"; task: SequencedTask }
  /** A person is needed (a blocked, failed or partial task, or nothing left that may start). */
  | { kind: "stop"; task: SequencedTask | null; reason: string }
  /** Every task is done or cancelled. */
  | { kind: "finished" };

const settled = (s: TaskStatus) => s === "done" || s === "cancelled";

/**
 * The runner's one decision, from the board alone (so a woken runner after an eviction decides the
 * same): one task at a time; a task that needs a person stops the run; the next task is the first
 * pending one in plan order whose declared dependencies are done (`depends on 2`).
 * @example
 * nextStep([{ number: 1, key: "a", status: "done", dependsOn: [] }, { number: 2, key: "b", status: "pending", dependsOn: ["a"] }])
 * // { kind: "start", task: { number: 2, … } }
 */
export function nextStep(tasks: readonly SequencedTask[]): NextStep {
  const ordered = [...tasks].sort((a, b) => a.number - b.number);
  const running = ordered.find((t) => t.status === "in_progress");
  if (running) return { kind: "wait", task: running };
  const stuck = ordered.find((t) => t.status === "blocked" || t.status === "failed" || t.status === "partial");
  if (stuck) {
    const why =
      stuck.status === "blocked"
        ? "is blocked: it waits for a person's answer"
        : stuck.status === "failed"
          ? "failed"
          : "ended without committing (partial): a person commits or discards it";
    return { kind: "stop", task: stuck, reason: `task ${stuck.number} (${stuck.key}) ${why}` };
  }
  const byKey = new Map(ordered.map((t) => [t.key, t]));
  const pending = ordered.filter((t) => t.status === "pending");
  if (pending.length === 0) return { kind: "finished" };
  const ready = pending.find((t) => t.dependsOn.every((k) => byKey.get(k)?.status === "done"));
  if (ready) return { kind: "start", task: ready };
  const first = pending[0]!;
  const missing = first.dependsOn
    .map((k) => byKey.get(k))
    .filter((d) => d && d.status !== "done")
    .map((d) => `task ${d!.number} (${d!.status})`);
  return {
    kind: "stop",
    task: first,
    reason: `task ${first.number} (${first.key}) waits for ${missing.join(", ") || "a task the plan no longer lists"}: none of the pending tasks can start`,
  };
}

/** Whether every task is settled (done or cancelled). */
export const allSettled = (tasks: readonly { status: TaskStatus }[]) =>
  tasks.length > 0 && tasks.every((t) => settled(t.status));

import { PantheonError } from "../errors";
import type { TaskStatus } from "./types";

/**
 * The moves a task may make. The design's own: `pending → in_progress → done | blocked | failed |
 * partial | cancelled` and `blocked → in_progress` on an answer; and what a person expects of a board:
 * a pending or blocked task may be cancelled, a failed, partial or cancelled one started again.
 */
const moves: Record<TaskStatus, readonly TaskStatus[]> = {
  pending: ["in_progress", "cancelled"],
  in_progress: ["done", "blocked", "failed", "partial", "cancelled"],
  blocked: ["in_progress", "cancelled", "failed"],
  done: [],
  failed: ["in_progress"],
  partial: ["in_progress", "done"],
  cancelled: ["in_progress"],
};

export const canMoveTask = (from: TaskStatus, to: TaskStatus) => moves[from].includes(to);

/** Throws a 409 naming the moves the task can make when `from → to` is not one of them. */
export function assertTaskMove(task: { number: number; status: TaskStatus }, to: TaskStatus): void {
  if (canMoveTask(task.status, to)) return;
  const allowed = moves[task.status];
  throw new PantheonError(
    "conflict",
    `task ${task.number} is ${task.status} and cannot become ${to}${allowed.length ? ` (it can become: ${allowed.join(", ")})` : " (it is final)"}`,
    {
      details: { task: task.number, status: task.status, to, allowed },
    },
  );
}

/** Settled: nothing more will happen to the task unless someone starts it again. */
export const isSettled = (status: TaskStatus) => status === "done" || status === "cancelled";

import type { PlannedTask, TaskRecord, TaskStatus } from "./types";

export interface TaskSync {
  /** The tasks after the sync, in plan order, numbered from 1. */
  tasks: (TaskRecord & { previousNumber: number | null })[];
  added: string[];
  changed: string[];
  kept: string[];
  /** Orphans: tasks the new plan no longer lists (they are removed). */
  removed: { key: string; number: number; status: TaskStatus }[];
}

/**
 * Syncs a feature's tasks to its approved plan's list, by key (the task's name as a slug): a new
 * task is added as pending; a task whose name and description did not change keeps its status and
 * summary; one that changed goes back to pending (unless it is running or waits on a person, which
 * it keeps doing) because what it did no longer matches the plan; an orphan is removed.
 * @example
 * syncTasks([{ number: 1, key: "a", name: "A", description: "", status: "done", summary: "ok" }], [{ key: "a", name: "A", description: "", line: 3 }, { key: "b", name: "B", description: "", line: 4 }])
 * // tasks: A done (kept), B pending (added)
 */
export function syncTasks(existing: readonly TaskRecord[], planned: readonly PlannedTask[]): TaskSync {
  const byKey = new Map(existing.map((t) => [t.key, t]));
  const result: TaskSync = { tasks: [], added: [], changed: [], kept: [], removed: [] };
  planned.forEach((p, index) => {
    const number = index + 1;
    const before = byKey.get(p.key);
    if (!before) {
      result.added.push(p.key);
      result.tasks.push({
        number,
        key: p.key,
        name: p.name,
        description: p.description,
        status: "pending",
        summary: null,
        previousNumber: null,
      });
      return;
    }
    const same = before.name === p.name && before.description === p.description;
    const busy = before.status === "in_progress" || before.status === "blocked";
    (same ? result.kept : result.changed).push(p.key);
    result.tasks.push({
      number,
      key: p.key,
      name: p.name,
      description: p.description,
      status: same || busy ? before.status : "pending",
      summary: same ? before.summary : null,
      previousNumber: before.number,
    });
  });
  const plannedKeys = new Set(planned.map((p) => p.key));
  for (const t of existing)
    if (!plannedKeys.has(t.key)) result.removed.push({ key: t.key, number: t.number, status: t.status });
  return result;
}

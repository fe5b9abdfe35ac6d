import type { Scope } from "../auth";

/** A task's life: `pending → in_progress → done | blocked | failed | partial | cancelled`, `blocked → in_progress` on an answer. */
export const taskStatuses = ["pending", "in_progress", "done", "blocked", "failed", "partial", "cancelled"] as const;
export type TaskStatus = (typeof taskStatuses)[number];

/** A feature's life: planned, its plan approved, tasks under way, all tasks settled. */
export type FeatureStatus = "planning" | "approved" | "in_progress" | "done";

/** Who asks: an agent (its tools) or a person (a token and its scope). Ownership rules read this. */
export type Principal = { kind: "agent"; name: string } | { kind: "person"; id: string; scope: Scope };

/** A task as the plan lists it, before it is synced into the feature. */
export interface PlannedTask {
  /** Stable across plan versions: the task's name as a slug. */
  key: string;
  name: string;
  description: string;
  /** 1-based line of the plan where the task starts. */
  line: number;
}

/** A synced task, as the feature stores it. */
export interface TaskRecord {
  number: number;
  key: string;
  name: string;
  description: string;
  status: TaskStatus;
  summary: string | null;
}

export const describePrincipal = (p: Principal) => (p.kind === "agent" ? `agent '${p.name}'` : `${p.id} (${p.scope} token)`);

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
  /** Keys of the tasks it waits for (`depends on 2` in its text); empty: it follows plan order. */
  dependsOn: string[];
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

export const describePrincipal = (p: Principal) =>
  p.kind === "agent" ? `agent '${p.name}'` : `${p.id} (${p.scope} token)`;

/** Who acted, as a task or plan record keeps it: an agent's name, or a person's principal (`alice`, `token:ci`, `admin`). */
export const actorOf = (p: Principal): string => (p.kind === "agent" ? p.name : p.id);

/** One thing done to a task, kept on its record in order (`actions`): what, by whom, when. */
export interface TaskAction {
  action: "start" | "answer" | "commit" | "discard";
  by: string;
  /** `person` when a token's holder did it over the API; `agent` when an agent's tool did. */
  kind: Principal["kind"];
  at: number;
}

/** The task's `actions` with one more (a patch for the task row). */
export function withAction(
  actions: unknown,
  action: TaskAction["action"],
  by: Principal,
  at: number,
): { actions: TaskAction[] } {
  return {
    actions: [
      ...(Array.isArray(actions) ? (actions as TaskAction[]) : []),
      { action, by: actorOf(by), kind: by.kind, at },
    ],
  };
}

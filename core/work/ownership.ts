import { PantheonError } from "../errors";
import { describePrincipal, type Principal } from "./types";

/**
 * What each party may write, in one table. The orchestrating agent (the one that created the
 * feature) writes the plan and syncs tasks; a task's worker agent writes its own task's status,
 * summary and blocker and works on its own overlay; a person with the approve scope approves a plan
 * and answers a blocker; any person may comment; starting, committing and discarding a task is the
 * orchestrator's or an admin's (a worker commits and discards only its own task).
 */
export type WorkAction =
  | "plan.write"
  | "tasks.sync"
  | "plan.approve"
  | "plan.comment"
  | "task.answer"
  | "task.start"
  | "task.report"
  | "task.block"
  | "task.files"
  | "task.commit"
  | "task.discard"
  | "feature.pause";

export interface Parties {
  orchestrator: string;
  /** The worker agent of the task the action is about, once it has one. */
  worker?: string | null;
}

const isPerson = (p: Principal, atLeast: "chat" | "approve" | "admin") =>
  p.kind === "person" &&
  (atLeast === "chat" || p.scope === "admin" || (atLeast === "approve" && p.scope === "approve"));
const isAgent = (p: Principal, name: string | null | undefined) => p.kind === "agent" && !!name && p.name === name;

const rules: Record<
  WorkAction,
  { allowed: (p: Principal, parties: Parties) => boolean; who: (parties: Parties) => string }
> = {
  "plan.write": {
    allowed: (p, x) => isAgent(p, x.orchestrator),
    who: (x) => `only the orchestrating agent '${x.orchestrator}' writes the plan`,
  },
  "tasks.sync": {
    allowed: (p, x) => isAgent(p, x.orchestrator),
    who: (x) => `only the orchestrating agent '${x.orchestrator}' syncs tasks`,
  },
  "plan.approve": {
    allowed: (p) => isPerson(p, "approve"),
    who: () => "only a person with a token of scope approve approves a plan",
  },
  "plan.comment": { allowed: (p) => isPerson(p, "chat"), who: () => "only people comment on a plan" },
  "task.answer": {
    allowed: (p) => isPerson(p, "approve"),
    who: () => "only a person with a token of scope approve answers a blocked task",
  },
  "task.start": {
    allowed: (p, x) => isAgent(p, x.orchestrator) || isPerson(p, "admin"),
    who: (x) => `only the orchestrating agent '${x.orchestrator}' or an admin starts a task`,
  },
  "task.report": {
    allowed: (p, x) => isAgent(p, x.worker),
    who: (x) => `only the task's worker${x.worker ? ` '${x.worker}'` : ""} sets its status and summary`,
  },
  "task.block": {
    allowed: (p, x) => isAgent(p, x.worker),
    who: (x) => `only the task's worker${x.worker ? ` '${x.worker}'` : ""} marks it blocked`,
  },
  "task.files": {
    allowed: (p, x) => isAgent(p, x.worker),
    who: (x) => `only the task's worker${x.worker ? ` '${x.worker}'` : ""} writes its files`,
  },
  "task.commit": {
    allowed: (p, x) => isAgent(p, x.worker) || isAgent(p, x.orchestrator) || isPerson(p, "admin"),
    who: (x) => `only the task's worker, the orchestrating agent '${x.orchestrator}' or an admin commits a task`,
  },
  "feature.pause": {
    allowed: (p, x) => isPerson(p, "approve") || isAgent(p, x.orchestrator),
    who: (x) =>
      `only a person with a token of scope approve or the orchestrating agent '${x.orchestrator}' pauses or resumes a feature`,
  },
  "task.discard": {
    allowed: (p, x) => isAgent(p, x.worker) || isAgent(p, x.orchestrator) || isPerson(p, "admin"),
    who: (x) => `only the task's worker, the orchestrating agent '${x.orchestrator}' or an admin discards a task`,
  },
};

export const mayDo = (action: WorkAction, principal: Principal, parties: Parties) =>
  rules[action].allowed(principal, parties);

/** Throws a 403 that says who may do it and who asked. */
export function authorizeWork(action: WorkAction, principal: Principal, parties: Parties): void {
  const rule = rules[action];
  if (rule.allowed(principal, parties)) return;
  throw new PantheonError("forbidden", `${rule.who(parties)}; ${describePrincipal(principal)} may not`, {
    details: { action },
  });
}

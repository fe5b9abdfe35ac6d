import type { Scope } from "../../../core/auth";
import { approverRefusal } from "../../../core/gates";
import { PantheonError } from "../../../core/errors";
import { runDeadline, type RunState } from "../../../core/run";
import type { SessionStore } from "../chat";
import type { RunStore } from "./store";

/** How the API shows a run: its record without its state. A missing run answers as not found. */
function storedRun(runs: RunStore, id: string) {
  const run = runs.get(id);
  if (!run) throw new PantheonError("not_found", `run '${id}' does not exist`, { details: { run: id } });
  const { state, ...summary } = run;
  return { summary, state: state as RunState };
}

/** The calls a person may still decide (only while the run waits for approval). */
function pendingCalls(summary: { status: string }, state: RunState) {
  return state.calls
    .filter((c) => c.status === "proposed" && summary.status === "waiting_approval")
    .map((c) => ({
      callId: c.call.id,
      tool: c.call.name,
      arguments: c.call.arguments,
      approverScope: c.approverScope ?? "approve",
    }));
}

/** A run's summary, its pending calls and its trace. */
export function runView(runs: RunStore, id: string) {
  const { summary, state } = storedRun(runs, id);
  const pending = pendingCalls(summary, state);
  // When a wait for a person ends the run (the agent's maxApprovalWaitMs): the decision must come before.
  const decideBy = summary.status === "waiting_approval" ? runDeadline(state) : undefined;
  return { run: { ...summary, pending, ...(decideBy !== undefined ? { decideBy } : {}) }, trace: runs.trace(id) };
}

/**
 * A run as one exchange, for the protocol adapters (an A2A task): its summary and pending calls,
 * the request and the reply of its turn, and the title of its session.
 */
export function runTurnView(runs: RunStore, sessions: SessionStore, id: string) {
  const { summary, state: s } = storedRun(runs, id);
  const pending = pendingCalls(summary, s);
  let sessionTitle: string | null = null;
  try {
    sessionTitle = sessions.get(summary.sessionId).title;
  } catch {
    // The session was deleted after the run: the run stays readable.
  }
  return {
    run: { ...summary, pending },
    request: s.origin.manual ? null : s.origin.content,
    reply: summary.status === "completed" ? (s.result ?? null) : null,
    sessionTitle,
  };
}

/** A run's summary after a change (it exists: the change was just made to it). */
export function runSummaryOf(runs: RunStore, runId: string) {
  const { state: _state, ...summary } = runs.get(runId)!;
  return summary;
}

/**
 * Checks a person's decisions before any is applied: the run waits for approval and each call
 * named is pending in it.
 */
export function checkDecisions(
  runs: RunStore,
  runId: string,
  decisions: { callId: string; approved: boolean }[],
  scope: Scope,
): void {
  const run = runs.get(runId);
  if (!run) throw new PantheonError("not_found", `run '${runId}' does not exist`, { details: { run: runId } });
  if (run.status !== "waiting_approval")
    throw new PantheonError("conflict", `run '${runId}' is not waiting for approval (it is ${run.status})`, {
      details: { run: runId, status: run.status },
    });
  const proposed = (run.state as RunState).calls.filter((c) => c.status === "proposed");
  const pending = new Set(proposed.map((c) => c.call.id));
  const unknown = decisions.find((d) => !pending.has(d.callId));
  if (unknown || decisions.length === 0) {
    throw new PantheonError(
      "validation_failed",
      unknown ? `call '${unknown.callId}' is not pending in run '${runId}'` : "decide at least one pending call",
      {
        details: { issues: [{ path: ["callId"], message: `one of: ${[...pending].join(", ")}` }] },
      },
    );
  }
  // Refused before a stream starts: approving lends the call the approver's rights (the driver checks again).
  for (const d of decisions) {
    const rc = proposed.find((c) => c.call.id === d.callId)!;
    const refused = d.approved
      ? approverRefusal({ name: rc.call.name, scope: rc.approverScope ?? "approve" }, scope)
      : undefined;
    if (refused) throw new PantheonError("forbidden", refused, { details: { run: runId, callId: d.callId, scope } });
  }
}

import type { RunEvent } from "./state";
import { gateCall } from "./call-gates";
import { settle } from "./call-results";
import { ignore, trace, type Step } from "./step";

// A person's decision on a call that waits for approval.

export function onApproval(step: Step, event: Extract<RunEvent, { type: "approval" }>): void {
  const rc = step.s.calls.find((c) => c.call.id === event.callId && c.status === "proposed");
  if (!rc) return ignore(step, event, "no call waits for this approval");
  trace(step, "approval", {
    callId: rc.call.id,
    tool: rc.call.name,
    approved: event.approved,
    by: event.by,
    ...(event.scope ? { scope: event.scope } : {}),
    reason: event.reason,
  });
  if (event.approved) {
    rc.status = "approved";
    rc.approval = {
      by: event.by,
      at: step.deps.now,
      ...(event.scope ? { scope: event.scope } : {}),
      ...(event.reason !== undefined ? { reason: event.reason } : {}),
    };
    // Gates run again: the budget or a rate limit may have changed while the person decided.
    if (!gateCall(step, rc)) return;
  } else {
    rc.status = "rejected";
    rc.reason = `Rejected by ${event.by}: ${event.reason ?? "no reason given"}`;
  }
  settle(step);
}

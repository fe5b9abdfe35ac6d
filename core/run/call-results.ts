import type { Message } from "../ports";
import { isTerminal, type RunCall, type RunEvent, type RunState } from "./state";
import { callModel, finish, ignore, trace, type Step } from "./step";

// Tool results and agent answers: a call ends, and once every call of the step has ended the model
// reads all their results at once (or a manual call's run ends with its one result).

function toolMessage(rc: RunCall): Message {
  const content =
    rc.status === "rejected"
      ? (rc.reason ?? "Rejected")
      : rc.error !== undefined
        ? `Error: ${rc.error}`
        : (rc.output ?? "");
  return { role: "tool", content, toolCallId: rc.call.id, name: rc.call.name };
}

/** After any change to the step's calls: wait, or hand every result to the model at once, in call order. */
export function settle(step: Step): void {
  const { s, deps } = step;
  if (isTerminal(s)) return;
  const open = s.calls.filter((rc) => rc.status !== "done" && rc.status !== "rejected");
  let next: RunState["status"];
  if (open.length === 0) next = "running";
  else if (open.some((rc) => rc.status === "running" && rc.runtime !== "agent")) next = "waiting_tool";
  else if (open.some((rc) => rc.status === "running")) next = "waiting_agent";
  else next = "waiting_approval";
  if (next === "waiting_approval" && s.waitingSince === undefined) s.waitingSince = deps.now;
  if (next !== "waiting_approval" && s.waitingSince !== undefined) {
    s.approvalWaitMs += deps.now - s.waitingSince;
    delete s.waitingSince;
  }
  if (open.length > 0) {
    s.status = next;
    return;
  }
  if (s.origin.manual) return finishManual(step);
  for (const rc of s.calls) {
    s.messages.push(toolMessage(rc));
    s.finishedCallIds.push(rc.call.id);
  }
  s.calls = [];
  callModel(step);
}

/**
 * A manual call has no model to read its result: the run ends with it — the tool's output, or why
 * it did not run (a gate, a person, the tool's own error).
 */
function finishManual(step: Step): void {
  const { s } = step;
  const rc = s.calls[0];
  s.finishedCallIds.push(...s.calls.map((c) => c.call.id));
  s.calls = [];
  if (!rc) return finish(step, "failed", { error: "the manual call is missing" });
  if (rc.status === "rejected") return finish(step, "failed", { error: rc.reason ?? "rejected" });
  if (rc.error !== undefined) return finish(step, "failed", { error: rc.error });
  finish(step, "completed", { reply: rc.output ?? "" });
}

export function onResult(
  step: Step,
  event: Extract<RunEvent, { type: "tool_result" | "tool_failed" | "agent_response" }>,
): void {
  const wantsAgent = event.type === "agent_response";
  const rc = step.s.calls.find(
    (c) => c.call.id === event.callId && c.status === "running" && (c.runtime === "agent") === wantsAgent,
  );
  if (!rc)
    return ignore(
      step,
      event,
      step.s.finishedCallIds.includes(event.callId) ? "call already finished" : "no such running call",
    );
  rc.status = "done";
  if (event.type === "tool_result") rc.output = event.output;
  else if (event.type === "tool_failed") rc.error = event.error;
  else if (event.error !== undefined) rc.error = event.error;
  else rc.output = event.answer ?? "";
  const interrupted = event.type === "tool_failed" && event.interrupted === true;
  trace(step, wantsAgent ? "agent_response" : "tool_result", {
    callId: rc.call.id,
    tool: rc.call.name,
    ok: rc.error === undefined,
    ...(rc.error !== undefined ? { error: rc.error } : { output: rc.output }),
    ...(interrupted ? { interrupted: true } : {}),
    ...(event.type === "tool_result" && event.truncated ? { truncated: true } : {}),
  });
  settle(step);
}

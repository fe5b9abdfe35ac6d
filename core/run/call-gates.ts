import { toolScope } from "../gates/scope";
import { runGates, type Approval, type GateContext } from "../gates/gate";
import type { OutputKind } from "../gates/gate-spec";
import { checkOutput, outputNames, toolOutputs } from "../gates/output";
import { rateKey, takeToken } from "../gates/rate-limit";
import { agentOfTool } from "../tools/agent-tool";
import { activeMs, type RunCall, type RunEffect } from "./state";
import { finish, trace, type Step } from "./step";
import { ownValue } from "../reserved-names";

// Every call a run proposes (the model's, a plan's, a person's) passes the gates here before its
// effect leaves: the tool gates, then the output gates on what it writes; then it starts, or waits
// for an approval, or goes back to the model refused.

function gateContext(step: Step): GateContext {
  const { s, deps } = step;
  const approvals = new Map<string, Approval>();
  for (const rc of s.calls) if (rc.approval) approvals.set(rc.call.id, rc.approval);
  return {
    agent: s.agent,
    tools: step.byName,
    now: deps.now,
    run: {
      step: s.step,
      tokens: s.usage.inputTokens + s.usage.outputTokens,
      activeMs: activeMs(s, deps.now),
      callsByTool: s.callsByTool,
    },
    limits: s.limits,
    approvals,
    ...(s.origin.principal ? { principal: s.origin.principal } : {}),
    ...(deps.beyondScope ? { beyondScope: deps.beyondScope } : {}),
    ...(deps.rateLimits ? { rateLimits: deps.rateLimits } : {}),
    buckets: step.buckets,
  };
}

function startCall(step: Step, rc: RunCall): void {
  const { s, deps } = step;
  const name = rc.call.name;
  const limit = ownValue(deps.rateLimits, name) ?? ownValue(deps.rateLimits, "*");
  if (limit) {
    const key = rateKey(s.agent, name);
    const taken = takeToken(step.buckets.get(key), deps.now, limit);
    step.buckets.set(key, taken.bucket);
    step.inner.push({ type: "save_bucket", key, bucket: taken.bucket });
  }
  if (rc.writes) {
    rc.status = "running";
    step.outward.push(callEffect(rc));
    return;
  }
  s.callsByTool[name] = (ownValue(s.callsByTool, name) ?? 0) + 1;
  rc.status = "running";
  trace(step, "tool_call", { callId: rc.call.id, tool: name, arguments: rc.call.arguments, runtime: rc.runtime });
  step.outward.push(callEffect(rc));
}

export function callEffect(rc: RunCall): RunEffect {
  if (rc.writes) return { type: "write_output", callId: rc.call.id, kind: rc.writes, arguments: rc.call.arguments };
  if (rc.runtime === "agent") {
    const asked = agentOfTool(rc.call.name);
    // An `ask_<agent>` call carries its question; the other agent tools (agent.spawn, agent.fanout) their whole arguments.
    const question = asked !== undefined ? rc.call.arguments.question : undefined;
    return {
      type: "ask_agent",
      callId: rc.call.id,
      target: asked ?? rc.call.name,
      question: typeof question === "string" ? question : JSON.stringify(rc.call.arguments),
    };
  }
  return { type: "call_tool", call: rc.call, ...(rc.timeoutMs !== undefined ? { timeoutMs: rc.timeoutMs } : {}) };
}

/**
 * What a refused call's trace step names: the call as the model proposed it, the gate and its reason.
 * The driver redacts the arguments with the secret detector before the step is written.
 */
function refusedCall(rc: RunCall, rejection: { gate: string; decision: { reason?: string } }) {
  return {
    tool: rc.call.name,
    arguments: rc.call.arguments,
    gate: rejection.gate,
    reason: rejection.decision.reason ?? "",
  };
}

/** Runs the gates on one call; false when the run ended. */
export function gateCall(step: Step, rc: RunCall): boolean {
  const { s } = step;
  if (rc.writes) return gateOutputCall(step, rc as RunCall & { writes: OutputKind });
  let outcome = runGates(step.deps.gates, { call: rc.call, spec: step.byName.get(rc.call.name) }, gateContext(step));
  // A call that writes memory or asks another agent is also an output: once the tool gates let it
  // through, the output gates read what it writes (a question is a message to that agent).
  const writes =
    ownValue(toolOutputs, rc.call.name) ??
    (rc.runtime === "agent" ? { kind: "message" as const, field: "question" } : undefined);
  const written = writes ? rc.call.arguments[writes.field] : undefined;
  if (outcome.allow && writes && written !== undefined) {
    const checked = checkOutput(step.deps.outputGates ?? [], {
      kind: writes.kind,
      text: typeof written === "string" ? written : JSON.stringify(written),
    });
    outcome = { ...checked, decisions: [...outcome.decisions, ...checked.decisions] };
    if (!checked.allow) {
      trace(step, "gate_decisions", {
        callId: rc.call.id,
        tool: rc.call.name,
        output: writes.kind,
        decisions: outcome.decisions,
        refused: refusedCall(rc, checked.rejection),
      });
      return rejectOutput(step, writes.kind, checked.rejection, rc);
    }
  }
  const refused =
    !outcome.allow && outcome.rejection.decision.pending !== "approval"
      ? { refused: refusedCall(rc, outcome.rejection) }
      : {};
  trace(step, "gate_decisions", {
    callId: rc.call.id,
    tool: rc.call.name,
    ...(writes ? { output: writes.kind } : {}),
    decisions: outcome.decisions,
    ...refused,
  });
  if (outcome.allow) {
    startCall(step, rc);
    return true;
  }
  const { gate, decision } = outcome.rejection;
  if (decision.pending === "approval") {
    rc.status = "proposed";
    rc.approverScope = toolScope(step.byName.get(rc.call.name)) === "admin" ? "admin" : "approve";
    trace(step, "approval_requested", {
      callId: rc.call.id,
      tool: rc.call.name,
      arguments: rc.call.arguments,
      gate,
      reason: decision.reason,
    });
    step.outward.push({ type: "await_approval", call: rc.call });
    return true;
  }
  rc.status = "rejected";
  rc.reason = `Rejected by gate '${gate}': ${decision.reason}`;
  if (decision.final) {
    finish(step, "failed", { error: decision.reason });
    return false;
  }
  s.rejections += 1;
  if (s.rejections > s.limits.maxRejections) {
    finish(step, "failed", {
      error: `gate '${gate}' rejected '${rc.call.name}': ${decision.reason} (${s.rejections} rejections, at most ${s.limits.maxRejections} allowed)`,
    });
    return false;
  }
  return true;
}

export type Rejection = Extract<ReturnType<typeof checkOutput>, { allow: false }>["rejection"];

/**
 * An output the gates refused: counted against `maxRejections` (the tools' rule: that many go back to
 * the model, the next one fails the run with the reason). `rc` is the call that carried it, if any:
 * its result tells the model why. False when the run ended.
 */
export function rejectOutput(step: Step, kind: OutputKind, rejection: Rejection, rc?: RunCall): boolean {
  const { s } = step;
  const { gate, decision } = rejection;
  s.outputRejections = (s.outputRejections ?? 0) + 1;
  if (rc) {
    rc.status = "rejected";
    rc.reason = `Rejected by gate '${gate}': ${decision.reason}. Nothing was ${kind === "memory" ? "stored" : "sent"}.`;
  }
  if (s.outputRejections > s.limits.maxRejections) {
    finish(step, "failed", {
      error: `gate '${gate}' rejected the ${outputNames[kind]}: ${decision.reason} (${s.outputRejections} rejections, at most ${s.limits.maxRejections} allowed)`,
    });
    return false;
  }
  return true;
}

/** A plan's `message` / `remember` step: only the output gates apply (it calls no tool). */
function gateOutputCall(step: Step, rc: RunCall & { writes: OutputKind }): boolean {
  const content = rc.call.arguments.content;
  const outcome = checkOutput(step.deps.outputGates ?? [], {
    kind: rc.writes,
    text: typeof content === "string" ? content : JSON.stringify(content ?? ""),
  });
  trace(step, "gate_decisions", { callId: rc.call.id, output: rc.writes, decisions: outcome.decisions });
  if (outcome.allow) {
    startCall(step, rc);
    return true;
  }
  return rejectOutput(step, rc.writes, outcome.rejection, rc);
}

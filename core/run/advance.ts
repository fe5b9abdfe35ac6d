import type { ToolCall } from "../ports";
import { activeMs, isTerminal, type RunEffect, type RunEvent, type RunState } from "./state";
import { gateCall } from "./call-gates";
import { onResult, settle } from "./call-results";
import { onApproval } from "./approvals";
import { onModelResult } from "./model-result";
import { callModel, finish, ignore, requestOf, trace, type Advanced, type RunDeps, type Step } from "./step";

/** A person's call of one tool: the same gates, trace and approval as a model's proposal. */
function startManual(step: Step, manual: NonNullable<RunState["origin"]["manual"]>): void {
  const { s } = step;
  const call: ToolCall = { id: "manual-call", name: manual.tool, arguments: manual.arguments };
  const spec = step.byName.get(call.name);
  const timeoutMs = spec && spec.runtime !== "agent" ? (spec.timeoutMs ?? s.limits.toolTimeoutMs) : undefined;
  s.status = "running";
  s.calls = [
    {
      call,
      status: "proposed",
      ...(spec ? { runtime: spec.runtime } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    },
  ];
  // No model reads a rejection: the call settles as rejected and the run ends with the reason.
  if (!gateCall(step, s.calls[0]!)) return;
  settle(step);
}

/**
 * A copy of the state that `advance` may change: the parts a transition mutates are copied, the rest
 * (the compiled context, finished messages) is shared — cheap, unlike cloning the whole run per event.
 */
function workingCopy(state: RunState): RunState {
  return {
    ...state,
    usage: { ...state.usage },
    messages: [...state.messages],
    calls: state.calls.map((rc) => ({ ...rc })),
    finishedCallIds: [...state.finishedCallIds],
    callsByTool: { ...state.callsByTool },
  };
}

/**
 * The run loop as a pure state machine: one event in, the next state and the effects to carry out.
 * @example
 * let { state, effects } = advance(newRunState(run), { type: "start", message, context }, deps);
 * // effects: trace run_started, persist, call_model → the DO calls the model, then:
 * ({ state, effects } = advance(state, { type: "model_result", response }, { ...deps, now: clock.now() }));
 */
export function advance(state: RunState, event: RunEvent, deps: RunDeps): Advanced {
  const step: Step = {
    s: workingCopy(state),
    deps,
    byName: new Map(deps.tools.map((spec) => [spec.name, spec])),
    buckets: new Map(deps.buckets ?? []),
    inner: [],
    outward: [],
  };
  const { s } = step;
  if (isTerminal(s)) {
    ignore(step, event, `run is ${s.status}`);
    return { state, effects: step.inner };
  }
  if (s.status === "idle" && !["begin", "context_failed", "start", "cancel"].includes(event.type)) {
    ignore(step, event, "run has not started");
    return { state, effects: step.inner };
  }
  switch (event.type) {
    case "begin":
      if (s.status !== "idle") {
        ignore(step, event, "run already started");
        return { state, effects: step.inner };
      }
      // A manual tool call needs no context: no model sees it.
      if (s.origin.manual) return advance(state, { type: "start", message: requestOf(s.origin), context: [] }, deps);
      return {
        state,
        effects: [
          {
            type: "compile_context",
            query: s.origin.content,
            ...(s.origin.maxHistory !== undefined ? { maxHistory: s.origin.maxHistory } : {}),
          },
        ],
      };
    case "context_failed":
      if (s.status !== "idle") {
        ignore(step, event, "run already started");
        return { state, effects: step.inner };
      }
      s.startedAt = deps.now;
      finish(step, "failed", { error: `the context could not be compiled: ${event.error}` });
      break;
    case "start":
      if (s.status !== "idle") {
        ignore(step, event, "run already started");
        return { state, effects: step.inner };
      }
      s.startedAt = deps.now;
      s.context = event.context;
      s.messages = [event.message];
      trace(step, "run_started", {
        agent: s.agent,
        sessionId: s.sessionId,
        trigger: s.origin.trigger,
        principal: s.origin.principal ?? null,
        limits: s.limits,
        message: event.message.content,
        ...(s.origin.manual ? { by: s.origin.manual.by, tool: s.origin.manual.tool } : {}),
        ...(s.origin.model ? { model: s.origin.model } : {}),
        ...(s.origin.goal ? { goal: s.origin.goal.text } : {}),
        ...(s.origin.goal?.missingInput?.length
          ? { warnings: s.origin.goal.missingInput.map((key) => `input has no '${key}': it read as null`) }
          : {}),
      });
      if (s.origin.manual) startManual(step, s.origin.manual);
      else callModel(step);
      break;
    case "model_result":
    case "model_failed":
      if (s.status !== "running") {
        ignore(step, event, "no model call is in flight");
        return { state, effects: step.inner };
      }
      if (event.type === "model_failed" && event.quota) {
        // The call was not made: the trace says which cap of whom, how much of it was used, when it resets.
        trace(step, "quota_exceeded", { step: s.step, ...event.quota });
        finish(step, "failed", { error: event.error });
      } else if (event.type === "model_failed") finish(step, "failed", { error: `model failed: ${event.error}` });
      else onModelResult(step, event.response);
      break;
    case "tool_result":
    case "tool_failed":
    case "agent_response":
      onResult(step, event);
      break;
    case "approval":
      onApproval(step, event);
      break;
    case "cancel":
      finish(step, "cancelled", { error: event.reason ?? "cancelled" });
      break;
    case "timeout": {
      const wait = s.limits.maxApprovalWaitMs;
      if (
        s.status === "waiting_approval" &&
        wait !== undefined &&
        s.waitingSince !== undefined &&
        deps.now - s.waitingSince >= wait
      ) {
        finish(step, "failed", { error: `no decision on the pending approval within ${Math.round(wait / 1000)} s` });
        break;
      }
      const used = activeMs(s, deps.now);
      if (used < s.limits.maxRunMs) {
        ignore(step, event, `only ${used} ms of ${s.limits.maxRunMs} ms used (approval waits excluded)`);
        return { state, effects: step.inner };
      }
      finish(step, "failed", { error: `time limit reached: the run has used ${used} ms of ${s.limits.maxRunMs} ms` });
      break;
    }
  }
  // Every transition that was not ignored changed the run (its trace alone says it happened).
  const changed = !step.ignored;
  const published: RunEffect[] =
    s.status !== state.status && !isTerminal(s) ? [{ type: "publish", status: s.status }] : [];
  return {
    state: s,
    effects: [...step.inner, ...(changed ? [{ type: "persist" } as const] : []), ...published, ...step.outward],
  };
}

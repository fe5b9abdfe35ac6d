import type { OutputKind } from "../gates/gate-spec";
import { checkOutput, outputNames, planOutputCalls } from "../gates/output";
import type { LlmResponse, ToolCall } from "../ports";
import { decodeToolName } from "../tools/names";
import type { RunCall, RunState } from "./state";
import { gateCall, rejectOutput } from "./call-gates";
import { settle } from "./call-results";
import { callModel, finish, trace, type Step } from "./step";
import { ownValue } from "../reserved-names";

// A model's answer: a final text (the output gates decide whether it leaves) or tool calls to gate.

/** The kind of a run's final text: an answer when another agent asked, a reply otherwise. */
function finalKind(s: RunState): OutputKind {
  return s.origin.trigger.startsWith("agent:") ? "answer" : "reply";
}

/** Ids unique within the run, so a finished id is never confused with a new call that reuses it. */
function normalizeCalls(step: Step, calls: readonly ToolCall[]): ToolCall[] {
  const taken = new Set(step.s.finishedCallIds);
  return calls.map((call, index) => {
    let id = call.id || `call_${step.s.step}_${index}`;
    for (let n = 1; taken.has(id); n++) id = `${call.id}~${step.s.step}.${index}.${n}`;
    taken.add(id);
    const name = step.byName.has(call.name) ? call.name : decodeToolName(call.name);
    return { id, name, arguments: call.arguments ?? {} };
  });
}

export function onModelResult(step: Step, response: LlmResponse): void {
  const { s } = step;
  s.usage = {
    inputTokens: s.usage.inputTokens + response.usage.inputTokens,
    outputTokens: s.usage.outputTokens + response.usage.outputTokens,
  };
  const byModel = s.modelUsage?.[response.model];
  s.modelUsage = {
    ...s.modelUsage,
    [response.model]: {
      inputTokens: (byModel?.inputTokens ?? 0) + response.usage.inputTokens,
      outputTokens: (byModel?.outputTokens ?? 0) + response.usage.outputTokens,
    },
  };
  const final = response.finishReason !== "error" && response.toolCalls.length === 0;
  const kind = finalKind(s);
  const checked = final ? checkOutput(step.deps.outputGates ?? [], { kind, text: response.content }) : undefined;
  // A text that carried a secret is not written to the trace either (the trace redacts only plain values).
  const withheld = checked && !checked.allow && checked.rejection.gate === "secret-leak";
  const content = withheld ? `[withheld: gate 'secret-leak' refused this ${outputNames[kind]}]` : response.content;
  trace(step, "model_result", {
    step: s.step,
    model: response.model,
    ...(response.provider ? { provider: response.provider } : {}),
    finishReason: response.finishReason,
    usage: response.usage,
    content,
    toolCalls: response.toolCalls.map((c) => c.name),
  });
  // A plan's error is its own account of the step that failed (a gate's refusal among them), not a model's.
  if (response.finishReason === "error")
    return finish(step, "failed", {
      error:
        response.provider === "plan" ? response.content : `model failed: ${response.content || "it reported an error"}`,
    });
  if (checked) {
    trace(step, "gate_decisions", { output: kind, decisions: checked.decisions });
    if (checked.allow) {
      step.inner.push({ type: "release_tokens" });
      s.messages.push({ role: "assistant", content: response.content });
      // The answer is in hand: tokens already spent are not a reason to throw it away.
      return finish(step, "completed", { reply: response.content });
    }
    if (!rejectOutput(step, kind, checked.rejection)) return;
    // The model reads why its text was refused and writes it again; a refused text never leaves the run.
    const { gate, decision } = checked.rejection;
    s.messages.push({ role: "assistant", content });
    s.messages.push({
      role: "user",
      content: `Your ${outputNames[kind]} was not sent: gate '${gate}' refused it: ${decision.reason}. Write it again so that it passes.`,
    });
    return callModel(step);
  }
  step.inner.push({ type: "release_tokens" });
  const calls = normalizeCalls(step, response.toolCalls);
  s.messages.push({ role: "assistant", content: response.content, toolCalls: calls });
  // Only a behavior's plan may propose its message and remember steps; from a model they are unknown tools.
  const planned = response.provider === "plan";
  s.calls = calls.map((call): RunCall => {
    const writes = planned ? ownValue(planOutputCalls, call.name) : undefined;
    if (writes) return { call, status: "proposed", writes };
    const spec = step.byName.get(call.name);
    const timeoutMs = spec && spec.runtime !== "agent" ? (spec.timeoutMs ?? s.limits.toolTimeoutMs) : undefined;
    return {
      call,
      status: "proposed",
      ...(spec ? { runtime: spec.runtime } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    };
  });
  for (const rc of s.calls) if (!gateCall(step, rc)) return;
  settle(step);
}

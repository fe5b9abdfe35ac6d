import { budgetExceeded } from "../gates/builtin";
import { toolScope } from "../gates/scope";
import { runGates, type Approval, type Gate, type GateContext } from "../gates/gate";
import { imagesShown } from "../images/parts";
import type { OutputKind } from "../gates/gate-spec";
import { checkOutput, outputNames, planOutputCalls, toolOutputs, type OutputGate } from "../gates/output";
import { rateKey, takeToken, type RateLimit, type TokenBucket } from "../gates/rate-limit";
import type { LlmResponse, Message, ToolCall } from "../ports";
import { agentOfTool } from "../tools/agent-tool";
import { toModelTool } from "../tools/convert";
import { decodeToolName } from "../tools/names";
import type { ToolSpec } from "../tools/tool-spec";
import { activeMs, isTerminal, type RunCall, type RunEffect, type RunEvent, type RunState, type TerminalStatus, type TraceKind } from "./state";
import { ownValue } from "../reserved-names";

/** What `advance` needs besides the state and the event. All plain data: `advance` stays pure. */
export interface RunDeps {
  now: number;
  /** The agent's declared tools, `ask_<agent>` connections included. */
  tools: readonly ToolSpec[];
  /** Usually `[...builtinGates(), ...compileCustomGates(script.gates)]`. */
  gates: readonly Gate[];
  /** By tool name, `*` for every tool. */
  rateLimits?: Readonly<Record<string, RateLimit>>;
  /** Stored buckets by `rateKey(agent, tool)`. */
  buckets?: ReadonlyMap<string, TokenBucket>;
  /**
   * Checks of what the run sends or stores: its reply (or answer to an asking agent), a plan's
   * `message` and `remember` steps, `memory.store` calls. Usually `agentOutputGates(…)`; none = all pass.
   */
  outputGates?: readonly OutputGate[];
  /** A call beyond the run principal's scope: wait for a holder's approval (default) or refuse it (`runtime.beyondScope`). */
  beyondScope?: "wait" | "refuse";
}

export interface Advanced {
  state: RunState;
  effects: RunEffect[];
}

/** One transition: collects effects, keeping `persist` ahead of everything that leaves the object. */
interface Step {
  s: RunState;
  deps: RunDeps;
  byName: Map<string, ToolSpec>;
  buckets: Map<string, TokenBucket>;
  inner: RunEffect[];
  outward: RunEffect[];
  /** The event changed nothing (the trace says why). */
  ignored?: boolean;
}

function trace(step: Step, kind: TraceKind, data: Record<string, unknown>): void {
  step.inner.push({ type: "trace", kind, data: { runId: step.s.id, ...data } });
}

function finish(step: Step, status: TerminalStatus, detail: { reply?: string; error?: string }): void {
  const { s, deps } = step;
  if (s.waitingSince !== undefined) {
    s.approvalWaitMs += deps.now - s.waitingSince;
    delete s.waitingSince;
  }
  s.status = status;
  if (detail.reply !== undefined) s.result = detail.reply;
  if (detail.error !== undefined) s.error = detail.error;
  trace(step, "run_finished", { status, ...detail, step: s.step, usage: s.usage });
  // Work issued earlier in this same transition must not start once the run has ended.
  step.outward = [{ type: "finish", status, ...detail }];
  const asker = s.origin.trigger.startsWith("agent:") ? s.origin.trigger.slice("agent:".length) : undefined;
  if (asker) step.outward.push({ type: "answer_peer", asker, status, ...detail });
}

/** The request a run answers, as the model sees it: the person's (or asking agent's) message. */
export function requestOf(origin: RunState["origin"]): Message {
  return { role: "user", content: origin.content, ...(origin.name ? { name: origin.name } : {}), ...(origin.images?.length ? { images: origin.images } : {}) };
}

export function modelRequestOf(state: RunState, tools: readonly ToolSpec[]): RunEffect {
  return { type: "call_model", messages: [...state.context, ...state.messages], tools: tools.map(toModelTool) };
}

function callModel(step: Step): void {
  const { s, deps } = step;
  const reason = budgetExceeded({ step: s.step, tokens: s.usage.inputTokens + s.usage.outputTokens, activeMs: activeMs(s, deps.now) }, s.limits, false);
  if (reason) return finish(step, "failed", { error: reason });
  s.step += 1;
  s.status = "running";
  const request = modelRequestOf(s, deps.tools) as Extract<RunEffect, { type: "call_model" }>;
  trace(step, "model_called", { step: s.step, ...imagesShown(request.messages) });
  step.outward.push(request);
}

function gateContext(step: Step): GateContext {
  const { s, deps } = step;
  const approvals = new Map<string, Approval>();
  for (const rc of s.calls) if (rc.approval) approvals.set(rc.call.id, rc.approval);
  return {
    agent: s.agent,
    tools: step.byName,
    now: deps.now,
    run: { step: s.step, tokens: s.usage.inputTokens + s.usage.outputTokens, activeMs: activeMs(s, deps.now), callsByTool: s.callsByTool },
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
    return { type: "ask_agent", callId: rc.call.id, target: asked ?? rc.call.name, question: typeof question === "string" ? question : JSON.stringify(rc.call.arguments) };
  }
  return { type: "call_tool", call: rc.call, ...(rc.timeoutMs !== undefined ? { timeoutMs: rc.timeoutMs } : {}) };
}

/**
 * What a refused call's trace step names: the call as the model proposed it, the gate and its reason.
 * The driver redacts the arguments with the secret detector before the step is written.
 */
function refusedCall(rc: RunCall, rejection: { gate: string; decision: { reason?: string } }) {
  return { tool: rc.call.name, arguments: rc.call.arguments, gate: rejection.gate, reason: rejection.decision.reason ?? "" };
}

/** Runs the gates on one call; false when the run ended. */
function gateCall(step: Step, rc: RunCall): boolean {
  const { s } = step;
  if (rc.writes) return gateOutputCall(step, rc as RunCall & { writes: OutputKind });
  let outcome = runGates(step.deps.gates, { call: rc.call, spec: step.byName.get(rc.call.name) }, gateContext(step));
  // A call that writes memory or asks another agent is also an output: once the tool gates let it
  // through, the output gates read what it writes (a question is a message to that agent).
  const writes = ownValue(toolOutputs, rc.call.name) ?? (rc.runtime === "agent" ? { kind: "message" as const, field: "question" } : undefined);
  const written = writes ? rc.call.arguments[writes.field] : undefined;
  if (outcome.allow && writes && written !== undefined) {
    const checked = checkOutput(step.deps.outputGates ?? [], { kind: writes.kind, text: typeof written === "string" ? written : JSON.stringify(written) });
    outcome = { ...checked, decisions: [...outcome.decisions, ...checked.decisions] };
    if (!checked.allow) {
      trace(step, "gate_decisions", { callId: rc.call.id, tool: rc.call.name, output: writes.kind, decisions: outcome.decisions, refused: refusedCall(rc, checked.rejection) });
      return rejectOutput(step, writes.kind, checked.rejection, rc);
    }
  }
  const refused = !outcome.allow && outcome.rejection.decision.pending !== "approval" ? { refused: refusedCall(rc, outcome.rejection) } : {};
  trace(step, "gate_decisions", { callId: rc.call.id, tool: rc.call.name, ...(writes ? { output: writes.kind } : {}), decisions: outcome.decisions, ...refused });
  if (outcome.allow) {
    startCall(step, rc);
    return true;
  }
  const { gate, decision } = outcome.rejection;
  if (decision.pending === "approval") {
    rc.status = "proposed";
    rc.approverScope = toolScope(step.byName.get(rc.call.name)) === "admin" ? "admin" : "approve";
    trace(step, "approval_requested", { callId: rc.call.id, tool: rc.call.name, arguments: rc.call.arguments, gate, reason: decision.reason });
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
    finish(step, "failed", { error: `gate '${gate}' rejected '${rc.call.name}': ${decision.reason} (${s.rejections} rejections, at most ${s.limits.maxRejections} allowed)` });
    return false;
  }
  return true;
}

type Rejection = Extract<ReturnType<typeof checkOutput>, { allow: false }>["rejection"];

/**
 * An output the gates refused: counted against `maxRejections` (the tools' rule: that many go back to
 * the model, the next one fails the run with the reason). `rc` is the call that carried it, if any:
 * its result tells the model why. False when the run ended.
 */
function rejectOutput(step: Step, kind: OutputKind, rejection: Rejection, rc?: RunCall): boolean {
  const { s } = step;
  const { gate, decision } = rejection;
  s.outputRejections = (s.outputRejections ?? 0) + 1;
  if (rc) {
    rc.status = "rejected";
    rc.reason = `Rejected by gate '${gate}': ${decision.reason}. Nothing was ${kind === "memory" ? "stored" : "sent"}.`;
  }
  if (s.outputRejections > s.limits.maxRejections) {
    finish(step, "failed", { error: `gate '${gate}' rejected the ${outputNames[kind]}: ${decision.reason} (${s.outputRejections} rejections, at most ${s.limits.maxRejections} allowed)` });
    return false;
  }
  return true;
}

/** A plan's `message` / `remember` step: only the output gates apply (it calls no tool). */
function gateOutputCall(step: Step, rc: RunCall & { writes: OutputKind }): boolean {
  const content = rc.call.arguments.content;
  const outcome = checkOutput(step.deps.outputGates ?? [], { kind: rc.writes, text: typeof content === "string" ? content : JSON.stringify(content ?? "") });
  trace(step, "gate_decisions", { callId: rc.call.id, output: rc.writes, decisions: outcome.decisions });
  if (outcome.allow) {
    startCall(step, rc);
    return true;
  }
  return rejectOutput(step, rc.writes, outcome.rejection, rc);
}

/** The kind of a run's final text: an answer when another agent asked, a reply otherwise. */
function finalKind(s: RunState): OutputKind {
  return s.origin.trigger.startsWith("agent:") ? "answer" : "reply";
}

function toolMessage(rc: RunCall): Message {
  const content = rc.status === "rejected" ? rc.reason ?? "Rejected" : rc.error !== undefined ? `Error: ${rc.error}` : rc.output ?? "";
  return { role: "tool", content, toolCallId: rc.call.id, name: rc.call.name };
}

/** After any change to the step's calls: wait, or hand every result to the model at once, in call order. */
function settle(step: Step): void {
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

/** A person's call of one tool: the same gates, trace and approval as a model's proposal. */
function startManual(step: Step, manual: NonNullable<RunState["origin"]["manual"]>): void {
  const { s } = step;
  const call: ToolCall = { id: "manual-call", name: manual.tool, arguments: manual.arguments };
  const spec = step.byName.get(call.name);
  const timeoutMs = spec && spec.runtime !== "agent" ? spec.timeoutMs ?? s.limits.toolTimeoutMs : undefined;
  s.status = "running";
  s.calls = [{ call, status: "proposed", ...(spec ? { runtime: spec.runtime } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) }];
  // No model reads a rejection: the call settles as rejected and the run ends with the reason.
  if (!gateCall(step, s.calls[0]!)) return;
  settle(step);
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

function onModelResult(step: Step, response: LlmResponse): void {
  const { s } = step;
  s.usage = { inputTokens: s.usage.inputTokens + response.usage.inputTokens, outputTokens: s.usage.outputTokens + response.usage.outputTokens };
  const byModel = s.modelUsage?.[response.model];
  s.modelUsage = { ...s.modelUsage, [response.model]: { inputTokens: (byModel?.inputTokens ?? 0) + response.usage.inputTokens, outputTokens: (byModel?.outputTokens ?? 0) + response.usage.outputTokens } };
  const final = response.finishReason !== "error" && response.toolCalls.length === 0;
  const kind = finalKind(s);
  const checked = final ? checkOutput(step.deps.outputGates ?? [], { kind, text: response.content }) : undefined;
  // A text that carried a secret is not written to the trace either (the trace redacts only plain values).
  const withheld = checked && !checked.allow && checked.rejection.gate === "secret-leak";
  const content = withheld ? `[withheld: gate 'secret-leak' refused this ${outputNames[kind]}]` : response.content;
  trace(step, "model_result", { step: s.step, model: response.model, ...(response.provider ? { provider: response.provider } : {}), finishReason: response.finishReason, usage: response.usage, content, toolCalls: response.toolCalls.map((c) => c.name) });
  // A plan's error is its own account of the step that failed (a gate's refusal among them), not a model's.
  if (response.finishReason === "error") return finish(step, "failed", { error: response.provider === "plan" ? response.content : `model failed: ${response.content || "it reported an error"}` });
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
    s.messages.push({ role: "user", content: `Your ${outputNames[kind]} was not sent: gate '${gate}' refused it: ${decision.reason}. Write it again so that it passes.` });
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
    const timeoutMs = spec && spec.runtime !== "agent" ? spec.timeoutMs ?? s.limits.toolTimeoutMs : undefined;
    return { call, status: "proposed", ...(spec ? { runtime: spec.runtime } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
  });
  for (const rc of s.calls) if (!gateCall(step, rc)) return;
  settle(step);
}

function ignore(step: Step, event: RunEvent, why: string): void {
  step.ignored = true;
  trace(step, "event_ignored", { event: event.type, why, ...("callId" in event ? { callId: event.callId } : {}) });
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

function onResult(step: Step, event: Extract<RunEvent, { type: "tool_result" | "tool_failed" | "agent_response" }>): void {
  const wantsAgent = event.type === "agent_response";
  const rc = step.s.calls.find((c) => c.call.id === event.callId && c.status === "running" && (c.runtime === "agent") === wantsAgent);
  if (!rc) return ignore(step, event, step.s.finishedCallIds.includes(event.callId) ? "call already finished" : "no such running call");
  rc.status = "done";
  if (event.type === "tool_result") rc.output = event.output;
  else if (event.type === "tool_failed") rc.error = event.error;
  else if (event.error !== undefined) rc.error = event.error;
  else rc.output = event.answer ?? "";
  const interrupted = event.type === "tool_failed" && event.interrupted === true;
  trace(step, wantsAgent ? "agent_response" : "tool_result", { callId: rc.call.id, tool: rc.call.name, ok: rc.error === undefined, ...(rc.error !== undefined ? { error: rc.error } : { output: rc.output }), ...(interrupted ? { interrupted: true } : {}), ...(event.type === "tool_result" && event.truncated ? { truncated: true } : {}) });
  settle(step);
}

function onApproval(step: Step, event: Extract<RunEvent, { type: "approval" }>): void {
  const rc = step.s.calls.find((c) => c.call.id === event.callId && c.status === "proposed");
  if (!rc) return ignore(step, event, "no call waits for this approval");
  trace(step, "approval", { callId: rc.call.id, tool: rc.call.name, approved: event.approved, by: event.by, ...(event.scope ? { scope: event.scope } : {}), reason: event.reason });
  if (event.approved) {
    rc.status = "approved";
    rc.approval = { by: event.by, at: step.deps.now, ...(event.scope ? { scope: event.scope } : {}), ...(event.reason !== undefined ? { reason: event.reason } : {}) };
    // Gates run again: the budget or a rate limit may have changed while the person decided.
    if (!gateCall(step, rc)) return;
  } else {
    rc.status = "rejected";
    rc.reason = `Rejected by ${event.by}: ${event.reason ?? "no reason given"}`;
  }
  settle(step);
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
      return { state, effects: [{ type: "compile_context", query: s.origin.content, ...(s.origin.maxHistory !== undefined ? { maxHistory: s.origin.maxHistory } : {}) }] };
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
      trace(step, "run_started", { agent: s.agent, sessionId: s.sessionId, trigger: s.origin.trigger, principal: s.origin.principal ?? null, limits: s.limits, message: event.message.content, ...(s.origin.manual ? { by: s.origin.manual.by, tool: s.origin.manual.tool } : {}), ...(s.origin.model ? { model: s.origin.model } : {}), ...(s.origin.goal ? { goal: s.origin.goal.text } : {}), ...(s.origin.goal?.missingInput?.length ? { warnings: s.origin.goal.missingInput.map((key) => `input has no '${key}': it read as null`) } : {}) });
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
      if (s.status === "waiting_approval" && wait !== undefined && s.waitingSince !== undefined && deps.now - s.waitingSince >= wait) {
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
  const published: RunEffect[] = s.status !== state.status && !isTerminal(s) ? [{ type: "publish", status: s.status }] : [];
  return { state: s, effects: [...step.inner, ...(changed ? [{ type: "persist" } as const] : []), ...published, ...step.outward] };
}

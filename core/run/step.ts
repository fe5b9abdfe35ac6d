import { budgetExceeded } from "../gates/builtin";
import type { Gate } from "../gates/gate";
import type { OutputGate } from "../gates/output";
import type { RateLimit, TokenBucket } from "../gates/rate-limit";
import { imagesShown } from "../images/parts";
import type { Message } from "../ports";
import { toModelTool } from "../tools/convert";
import type { ToolSpec } from "../tools/tool-spec";
import { activeMs, type RunEffect, type RunEvent, type RunState, type TerminalStatus, type TraceKind } from "./state";

// The working state of one transition of the run reducer (core/run/advance.ts) and the moves every
// event family makes with it: trace, end the run, call the model, ignore the event.

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
export interface Step {
  s: RunState;
  deps: RunDeps;
  byName: Map<string, ToolSpec>;
  buckets: Map<string, TokenBucket>;
  inner: RunEffect[];
  outward: RunEffect[];
  /** The event changed nothing (the trace says why). */
  ignored?: boolean;
}

export function trace(step: Step, kind: TraceKind, data: Record<string, unknown>): void {
  step.inner.push({ type: "trace", kind, data: { runId: step.s.id, ...data } });
}

export function finish(step: Step, status: TerminalStatus, detail: { reply?: string; error?: string }): void {
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
  return {
    role: "user",
    content: origin.content,
    ...(origin.name ? { name: origin.name } : {}),
    ...(origin.images?.length ? { images: origin.images } : {}),
  };
}

export function modelRequestOf(state: RunState, tools: readonly ToolSpec[]): RunEffect {
  return { type: "call_model", messages: [...state.context, ...state.messages], tools: tools.map(toModelTool) };
}

export function callModel(step: Step): void {
  const { s, deps } = step;
  const reason = budgetExceeded(
    { step: s.step, tokens: s.usage.inputTokens + s.usage.outputTokens, activeMs: activeMs(s, deps.now) },
    s.limits,
    false,
  );
  if (reason) return finish(step, "failed", { error: reason });
  s.step += 1;
  s.status = "running";
  const request = modelRequestOf(s, deps.tools) as Extract<RunEffect, { type: "call_model" }>;
  trace(step, "model_called", { step: s.step, ...imagesShown(request.messages) });
  step.outward.push(request);
}

export function ignore(step: Step, event: RunEvent, why: string): void {
  step.ignored = true;
  trace(step, "event_ignored", { event: event.type, why, ...("callId" in event ? { callId: event.callId } : {}) });
}

import type { QuotaRefusal } from "../quotas/refusal";
import type { RunPrincipal, Scope } from "../auth";
import type { Approval } from "../gates/gate";
import type { OutputKind } from "../gates/gate-spec";
import type { TokenBucket } from "../gates/rate-limit";
import type { ImageRef, LlmResponse, LlmUsage, Message, ModelTool, ToolCall } from "../ports";
import type { ToolRuntime } from "../tools/tool-spec";
import type { RunLimits } from "./limits";

export type RunStatus =
  | "idle"
  | "running"
  | "waiting_tool"
  | "waiting_approval"
  | "waiting_agent"
  | "completed"
  | "failed"
  | "cancelled";
export type TerminalStatus = "completed" | "failed" | "cancelled";
export const terminalStatuses: readonly RunStatus[] = ["completed", "failed", "cancelled"];

/** proposed → (approved →) running → done, or rejected. A `proposed` call in a settled step waits for a person. */
export type CallStatus = "proposed" | "approved" | "running" | "done" | "rejected";

export interface RunCall {
  call: ToolCall;
  /** Undefined for a tool this agent does not declare. */
  runtime?: ToolRuntime;
  status: CallStatus;
  timeoutMs?: number;
  output?: string;
  error?: string;
  /** Why it was rejected, as told to the model. */
  reason?: string;
  approval?: Approval;
  /**
   * While the call waits for a person: the scope whoever approves it must hold — `approve`, or the
   * tool's own scope when that is higher (approving lends the call the approver's rights).
   */
  approverScope?: Scope;
  /** A plan's `message` or `remember` step: an output, checked by the output gates, not a tool. */
  writes?: OutputKind;
}

/**
 * Why a run exists and what it was asked: with the limits, everything needed to build the run
 * again after an eviction, so starting and resuming are the same code.
 */
export interface RunOrigin {
  /** `message`, `behavior:<talent>/<behavior>`, `agent:<asker>`, `manual`. */
  trigger: string;
  /** The request: a person's message, a behavior's goal, an asking agent's question. */
  content: string;
  /** Who wrote the request: an asking agent, or the person whose device token sent it. */
  name?: string;
  /** Images sent with the request: refs only (the bytes stay in the agent's store). */
  images?: ImageRef[];
  /**
   * A behavior's run: its key and the values its goal and plan were evaluated with. The plan's
   * cursor is the plan-step ids of the calls in the run's transcript (`plan-<step>-<n>`).
   */
  behavior?: { key: string; scope: Record<string, unknown> };
  /** A person calls one tool by hand: the call is gated and run, and no model is involved. */
  manual?: { tool: string; arguments: Record<string, unknown>; by: string };
  /** History messages compiled into the context (a request may lower the agent's). */
  maxHistory?: number;
  /** The model the run was started with (provider and name), as the record of what it used. */
  model?: { provider: string; name: string };
  /** The tools the agent had when the run started. */
  tools?: string[];
  /** The session narrowed the agent's tools to these (never more than the agent's): the run offers only them. */
  narrowTools?: string[];
  /**
   * Whom the run acts for: the token of the request that started it, a script's configurer for a
   * behavior, the lowest scope of the chain for a delegated run. Its tool calls are held to its
   * scope (core/gates scopeGate). Absent on runs stored before principals: the least scope.
   */
  principal?: RunPrincipal;
  /**
   * A behavior's goal as evaluated from its input, and input keys it read that were absent. It is in
   * the run's context and trace; `content` is the person's message that set the run off, or the goal
   * itself when no one said anything (`unsaid`).
   */
  goal?: { text: string; missingInput?: string[] };
  /** The request was said by no one (a schedule, an idle time, a tick): never stored in the session's history. */
  unsaid?: true;
}

/**
 * Everything about one run, plain JSON so the Durable Object stores it after every transition and
 * resumes from it after eviction.
 */
export interface RunState {
  id: string;
  agent: string;
  sessionId: string;
  origin: RunOrigin;
  status: RunStatus;
  /** Model calls issued. */
  step: number;
  usage: LlmUsage;
  /** Tokens by the model that answered (a fallback or cascade may answer for the one asked): what prices the run. */
  modelUsage?: Record<string, LlmUsage>;
  /** The compiled context the run started from (system prompt, memory, history). */
  context: Message[];
  /** The transcript of this run beyond the context: the user's message, the model's, tool results. */
  messages: Message[];
  /** The calls of the current step. */
  calls: RunCall[];
  /** Every call id that finished or was rejected: never issued again. */
  finishedCallIds: string[];
  /** Calls let through, by tool, for max-calls gates. */
  callsByTool: Record<string, number>;
  rejections: number;
  /** Outputs (reply, plan message, memory write, answer to an agent) the output gates refused; absent = 0. */
  outputRejections?: number;
  limits: RunLimits;
  startedAt: number;
  /** Time spent only waiting for a person, excluded from `maxRunMs`. */
  approvalWaitMs: number;
  waitingSince?: number;
  error?: string;
  result?: string;
}

export type RunEvent =
  /** A created run begins (or begins again after an eviction): its context is compiled first. */
  | { type: "begin" }
  | { type: "context_failed"; error: string }
  | { type: "start"; message: Message; context: Message[] }
  | { type: "model_result"; response: LlmResponse }
  /** `quota`: the call was not made, a daily cap was reached (core/quotas); the run ends saying which. */
  | { type: "model_failed"; error: string; quota?: QuotaRefusal }
  | { type: "tool_result"; callId: string; output: string; truncated?: boolean }
  | { type: "tool_failed"; callId: string; error: string; interrupted?: boolean }
  /** Only ever built by the Durable Object from an authenticated person's request. */
  | { type: "approval"; callId: string; approved: boolean; by: string; reason?: string; scope?: Scope }
  | { type: "agent_response"; callId: string; answer?: string; error?: string }
  | { type: "cancel"; reason?: string }
  | { type: "timeout" };

export type TraceKind =
  | "run_started"
  | "model_called"
  | "model_result"
  | "gate_decisions"
  | "tool_call"
  | "tool_result"
  | "approval_requested"
  | "approval"
  | "agent_response"
  | "run_finished"
  | "event_ignored"
  | "quota_exceeded";

/**
 * What the Durable Object must do, in order. `persist` comes before any effect that leaves the
 * object, so a crash after it redoes the work instead of losing it.
 */
export type RunEffect =
  | { type: "trace"; kind: TraceKind; data: Record<string, unknown> }
  /**
   * Compile the run's context (system prompt, memory, summary, the session's history before this
   * run) for its request; the result comes back as `start`. Nothing of the run has left the object yet.
   */
  | { type: "compile_context"; query: string; maxHistory?: number }
  | { type: "save_bucket"; key: string; bucket: TokenBucket }
  | { type: "persist" }
  | { type: "call_model"; messages: Message[]; tools: ModelTool[] }
  | { type: "call_tool"; call: ToolCall; timeoutMs?: number }
  | { type: "ask_agent"; callId: string; target: string; question: string }
  /** A plan's `message` / `remember` step passed the output gates: write it (once per call id), then `tool_result`. */
  | { type: "write_output"; callId: string; kind: OutputKind; arguments: Record<string, unknown> }
  /**
   * The text of the model call just answered may be shown: it passed the output gates (or it only
   * accompanies tool calls). Until then the driver holds the call's streamed tokens back, so a
   * refused reply never reaches a client.
   */
  | { type: "release_tokens" }
  | { type: "await_approval"; call: ToolCall }
  | { type: "finish"; status: TerminalStatus; reply?: string; error?: string }
  /** The run was a peer's question (trigger `agent:<asker>`): its answer (or why there is none) goes back. */
  | { type: "answer_peer"; asker: string; status: TerminalStatus; reply?: string; error?: string }
  /** The run moved to a new waiting or running status: the agent's live state shows it. */
  | { type: "publish"; status: RunStatus };

export interface NewRun {
  id: string;
  agent: string;
  sessionId: string;
  limits: RunLimits;
  /** Default: a person's message with no content (tests). */
  origin?: RunOrigin;
}

/**
 * @example
 * const state = newRunState({ id: "run-1", agent: "scout", sessionId: "s-1", limits: effectiveLimits(agentLimits, request.limits) });
 */
export function newRunState(run: NewRun): RunState {
  return {
    ...run,
    origin: run.origin ?? { trigger: "message", content: "" },
    status: "idle",
    step: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    context: [],
    messages: [],
    calls: [],
    finishedCallIds: [],
    callsByTool: {},
    rejections: 0,
    startedAt: 0,
    approvalWaitMs: 0,
  };
}

export function isTerminal(state: Pick<RunState, "status">): boolean {
  return terminalStatuses.includes(state.status);
}

/** Wall time the run has used at `now`, approval waits excluded. */
export function activeMs(state: RunState, now: number): number {
  const waiting = state.waitingSince === undefined ? 0 : now - state.waitingSince;
  return Math.max(0, now - state.startedAt - state.approvalWaitMs - waiting);
}

/**
 * When the Durable Object should send `timeout`; undefined while the run is over, or waits only for a
 * person and the agent set no `maxApprovalWaitMs` (an approval may take days).
 */
export function runDeadline(state: RunState): number | undefined {
  if (isTerminal(state) || state.status === "idle") return undefined;
  if (state.status === "waiting_approval") {
    const wait = state.limits.maxApprovalWaitMs;
    return wait !== undefined && state.waitingSince !== undefined ? state.waitingSince + wait : undefined;
  }
  return state.startedAt + state.approvalWaitMs + state.limits.maxRunMs;
}

/**
 * What a manual tool call answers (AgentDO `invokeTool`): its output, why it failed, or the approval it
 * waits for. Declared here once: the agent answers it, the per-agent MCP server maps it (core/protocols).
 */
export type ManualCall =
  | { runId: string; status: string; ok: true; output: string; truncated: boolean; ms: number }
  | { runId: string; status: string; ok: false; error: { message: string }; ms: number }
  | {
      runId: string;
      status: "waiting_approval";
      pending: { callId: string; tool: string; arguments: Record<string, unknown> };
    }
  /** An `ask_<agent>` tool: the other agent's answer arrives later and becomes the run's result. */
  | { runId: string; status: "waiting_agent"; waiting: { tool: string } };

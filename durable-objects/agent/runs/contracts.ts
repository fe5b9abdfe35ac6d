// The driver's contracts: what a run needs (RunContext), what the driver needs of its agent
// (DriverDeps, RunPeers), what a turn asks for (ChatInput), and what a run or a turn ends with. Kept apart from the driver so the agent's
// wiring and the turns read them without the loop.
import type { AgentProfile } from "../../../core/agents";
import type { RunPrincipal } from "../../../core/auth";
import type { NamedSecret, TokenBucket } from "../../../core/gates";
import type { Clock, ImageRef, LlmPort, Message } from "../../../core/ports";
import type { RunEffect, RunLimits, RunOrigin, RunState } from "../../../core/run";
import type { MessageStore, StoredMessage } from "../chat/messages";
import type { RunAlarms } from "./alarms";
import type { RunEvents } from "./events";
import type { HeldWrites } from "./held-writes";
import type { RunStore } from "./store";
import type { AgentTools } from "./tools";

/** What one run needs besides storage: the agent as it was when the run started or resumed. */
export interface RunContext {
  profile: AgentProfile;
  tools: AgentTools;
  llm: LlmPort;
  /** What the output gates keep out of replies, messages, memories and answers (tools/outputSecrets). */
  secrets: NamedSecret[];
  /** A behavior's plan writes its `message` and `remember` steps once the output gates let them through. */
  writeOutput?(output: Extract<RunEffect, { type: "write_output" }>): Promise<string>;
}

/** Where the driver gets what a run needs (runs/context.ts makeRunContexts). */
export interface RunContextSource {
  /** What a run needs from its record: the agent now, its tools, its model. */
  prepare(state: RunState): Promise<RunContext>;
  /** Whether a context is built from the project's settings as they are now (no secret, grant or profile changed since). */
  isCurrent(ctx: RunContext): boolean;
  /** The context of a run that begins (core `compile_context`); `trace` writes a step on the run. */
  compile(
    state: RunState,
    profile: AgentProfile,
    trace: (name: string, data: Record<string, unknown>) => void,
  ): Promise<Message[]>;
}

export interface DriverDeps {
  runs: RunStore;
  messages: MessageStore;
  clock: Clock;
  buckets: { load(): Map<string, TokenBucket>; save(key: string, bucket: TokenBucket): void };
  /** A starting run's writes, held until its model request has left (held-writes.ts); the output screens add their refusals here too. */
  writes: HeldWrites;
  /**
   * What a run needs and the context its request is answered in (runs/context.ts), asked downward:
   * `prepare` when a run begins or resumes from its record, `compile` for core `compile_context`.
   */
  contexts: RunContextSource;
  /** Where every run event goes: live clients, gateways, a task's worker, telemetry, a plan (runs/events.ts). */
  events: Pick<RunEvents, "publish">;
  /**
   * The run watchdog (an alarm while runs have work in flight: an eviction mid-run is carried on with
   * no request arriving) and a waiting run's deadline alarm (runs/alarms.ts).
   */
  alarms: Pick<RunAlarms, "armWatchdog" | "armDeadline">;
  /** One SQLite transaction: all of `fn`'s writes, or none. */
  transaction<T>(fn: () => T): T;
}

/**
 * The other end of delegation, the agent's bus (bus/). The one two-way relation of the run feature, as
 * the protocol has it: a run asks another agent through the bus (`ask`), and the bus hands the answer
 * back to the run (`driver.deliver`); when a run that answered a peer ends, the bus sends its answer
 * (`answer`). Attached once, after the bus is built on top of the driver (features.ts).
 */
export interface RunPeers {
  ask(request: {
    runId: string;
    callId: string;
    target: string;
    question: string;
    principal?: RunPrincipal;
  }): Promise<void>;
  answer(runId: string, status: string): void;
}

/** A run about to be created: who asked what, with which limits, and the context compiled for it. */
export interface NewRunInput {
  runId?: string;
  agent: string;
  sessionId: string;
  origin: RunOrigin;
  limits: RunLimits;
}

export interface RunOutcome {
  runId: string;
  sessionId: string;
  status: string;
  /** The request as stored in the session (null for a manual tool call, which is not a conversation turn). */
  userMessage: StoredMessage | null;
  reply: StoredMessage | null;
  /** The run's result: the reply's text, or a manual call's output. */
  result?: string;
  error?: string;
}

/** A turn's outcome (a person's message, a behavior's goal): a turn always has its request in the chat. */
export type TurnOutcome = RunOutcome & { userMessage: StoredMessage };

/** A turn or a run asked for: what a person (or a door, a gateway, a behavior) sends. */
export interface ChatInput {
  content: string;
  /** Images sent with the text, as refs to the agent's store (the worker checked each is there). */
  images?: ImageRef[];
  /** Structured input beside the text: behaviors read its fields as `(get input "repo")`. */
  input?: Record<string, unknown>;
  session?: string;
  /** The person who wrote it, when a person's device token sent it (the message keeps their name). */
  name?: string;
  /** Per-request limits, clamped to the agent's own. */
  limits?: Partial<RunLimits>;
  /** Another of the agent's allowed models for this request (`provider/model`); one not allowed is a 400. */
  model?: string;
  /** Narrows the agent's tools for the session (kept for its later turns); `null` gives back all of them. */
  tools?: string[] | null;
  /**
   * The sender's id for this message (the PWA's outbox keeps one per message): a repeat of it from the
   * same token is the same message — the same run, the same reply (runs/once.ts).
   */
  clientId?: string;
  /**
   * The run's id, chosen by a protocol adapter whose protocol names the work before it starts (an
   * A2A task id). Never taken from the public API; an id already in use is refused.
   */
  runId?: string;
  /**
   * Whom the run acts for (the request's token, a gateway, a script's configurer): its tool calls are
   * held to this scope. Required, so no door starts a run that acts for nobody.
   */
  principal: RunPrincipal;
}

export type { ManualCall } from "../../../core/run";

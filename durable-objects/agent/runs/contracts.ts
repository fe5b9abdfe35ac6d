// The driver's contracts: what a run needs (RunContext), what the driver needs of its agent
// (DriverDeps), and what a run or a turn ends with. Kept apart from the driver so the agent's
// wiring and the turns read them without the loop.
import type { AgentProfile } from "../../../core/agents";
import type { RunPrincipal } from "../../../core/auth";
import type { NamedSecret, TokenBucket } from "../../../core/gates";
import type { Clock, LlmPort, Message } from "../../../core/ports";
import type { RunEffect, RunLimits, RunOrigin, RunState } from "../../../core/run";
import type { RunEvent } from "../chat/live";
import type { MessageStore, StoredMessage } from "../chat/messages";
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

export interface DriverDeps {
  runs: RunStore;
  messages: MessageStore;
  clock: Clock;
  buckets: { load(): Map<string, TokenBucket>; save(key: string, bucket: TokenBucket): void };
  /** Sends a run's event to every live client (WebSocket) of the agent. */
  broadcast(event: RunEvent, runId: string): void;
  /** Arms an alarm for a run's deadline (idempotent per run). */
  scheduleDeadline(runId: string, at: number): void;
  /** Sends a delegated question along a connection (the bus keeps one request per run and call). */
  askAgent(request: { runId: string; callId: string; target: string; question: string; principal?: RunPrincipal }): Promise<void>;
  /**
   * Compiles a run's context for its request (core `compile_context`): the session's history
   * before this run, memory, summary. Called when a created run begins, and again if an eviction
   * came first. `trace` writes a step on the run with its other steps (a source refused by its owner).
   */
  compileContext(state: RunState, profile: AgentProfile, trace: (name: string, data: Record<string, unknown>) => void): Promise<Message[]>;
  /** A peer's question has been answered by this run (core `answer_peer`): the answer goes back to the asker. */
  answerPeer(runId: string, answer: Extract<RunEffect, { type: "answer_peer" }>): void;
  /**
   * Builds what a run needs from its persisted record: the agent's profile, its tools and the model
   * (a behavior's plan around it).
   */
  prepare(state: RunState): Promise<RunContext>;
  /**
   * Carries `work` out so that an eviction in the middle is recovered without a request arriving
   * (an alarm that wakes the object, whose start carries the run on from its record).
   */
  durably<T>(runId: string, work: () => Promise<T>): Promise<T>;
  /** One SQLite transaction: all of `fn`'s writes, or none. */
  transaction<T>(fn: () => T): T;
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

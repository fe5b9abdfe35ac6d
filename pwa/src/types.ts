/** Shapes of the Pantheon HTTP API as the PWA reads them (see pwa/API.md). */

export type RunStatus =
  | "idle"
  | "running"
  | "waiting_tool"
  | "waiting_agent"
  | "waiting_approval"
  | "completed"
  | "failed"
  | "cancelled"
  | (string & {});

export interface Agent {
  name: string;
  description?: string;
  systemPrompt?: string;
  model?: { provider: string; name: string; temperature?: number };
  /** What the model resolves to on this deployment, and why (GET /api/agents/:name). */
  resolvedModel?: ResolvedModel;
  createdAt?: string | number;
  updatedAt?: string | number;
  status?: RunStatus;
  lastActivityAt?: string | number | null;
  connections?: string[];
  script?: unknown;
}

export interface ResolvedModel {
  requested: { provider: string; name: string };
  provider: string;
  name: string;
  status: "ok" | "fallback" | "stand-in" | "unavailable" | (string & {});
  reason: string;
  fallback?: { provider: string; name: string; available: boolean; reason: string };
  missing?: { provider: string; secret?: string; fix: string; message: string };
}

export interface ToolCall {
  id?: string;
  callId?: string;
  name?: string;
  arguments?: unknown;
  function?: { name: string; arguments: string };
}

export interface StoredMessage {
  id: string;
  sessionId: string;
  role: "user" | "assistant" | "tool" | "system";
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  name?: string;
  runId?: string;
  createdAt: string | number;
}

export interface Session {
  id: string;
  title: string;
  createdAt?: string | number;
  updatedAt?: string | number;
  isDefault?: boolean;
  forkedFrom?: { sessionId: string; messageId: string };
}

export interface RunSummary {
  id: string;
  sessionId?: string;
  status: RunStatus;
  trigger?: string;
  startedAt?: string | number;
  finishedAt?: string | number | null;
  steps?: number;
  tokens?: number;
  error?: string | { message?: string } | null;
  pending?: { callId: string; tool: string; arguments: unknown }[];
  /** Runs another agent asked for: the delegation conversation it belongs to, and who asked. */
  conversationId?: string;
  askedBy?: string;
}

export interface TraceStep {
  id: string;
  runId: string;
  seq: number;
  kind: "model" | "gate" | "tool" | "state" | "message" | "error" | (string & {});
  name: string;
  data: unknown;
  startedAt: string | number;
  durationMs: number;
}

export interface Approval {
  agent: string;
  runId: string;
  callId: string;
  tool: string;
  arguments: unknown;
  requestedAt?: string | number;
}

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

export interface ToolSpec {
  name: string;
  description?: string;
  parameters?: JsonSchema;
  runtime?: string;
  requiresApproval?: boolean;
}

export interface ToolInvokeResult {
  ok: boolean;
  output?: unknown;
  error?: unknown;
  truncated?: boolean;
  ms?: number;
}

export interface ContextItem {
  id: string;
  source: string;
  kind: string;
  text: string;
  scores: Record<string, number>;
  /** "retrieved" by search, or reached by one "graph" hop from `parentId`. */
  origin?: "retrieved" | "graph" | (string & {});
  parentId?: string;
  included: boolean;
  reason?: { code: string; detail: string } | string;
  tokens?: number;
}

export interface ContextResult {
  sessionId?: string;
  query?: string;
  sources?: string[];
  messages: { role: string; content: string; name?: string }[];
  items: ContextItem[];
  tokens: { used: number; budget: number };
  summary?: string | null;
  folded?: number;
  warnings?: string[];
  embedder?: { model: string; dimensions: number; index: string };
}

/** `GET /api/agents/:name/script`: the source as written, and what compiling it now warns about. */
export interface ScriptInfo {
  source: string;
  format: "pantheon" | "json";
  script: unknown;
  warnings: { line: number; column: number; form: string; message: string }[];
}

/** One behavior of the agent's script and when it runs (`GET /api/agents/:name/schedules`). */
export interface Schedule {
  talent: string;
  behavior: string;
  mode: "active" | "passive" | "persistent" | (string & {});
  /** `message`, `every 1h`, `cron 0 7 * * 1-5`, `on-idle 2h`, or `none`. */
  trigger: string;
  nextRunAt: number | null;
  paused: boolean;
  lastRunAt: number | null;
  lastStatus: string | null;
  failures: number;
  lastError: string | null;
  retryAt: number | null;
}

/** Bus messages waiting for one receiving agent (`GET /api/bus`). */
export interface BusCounts {
  agent: string;
  pending: number;
  inFlight: number;
  dead: number;
}

export interface BusHop {
  messageId: string;
  from: string;
  to: string;
  depth: number;
  question: string;
  state: string;
  askerRunId: string;
  callId: string;
  runId: string | null;
  runStatus: string | null;
  reply: { type: string; text: string; code: string | null; state: string } | null;
  note: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A delegation chain (`GET /api/conversations/:id`): the id is the run that asked first. */
export interface Conversation {
  conversationId: string;
  root: { agent: string; runId: string; status: string | null };
  hops: BusHop[];
}

/** One SSE event (or a `run_event` relayed over the WebSocket), typed by its name. */
export type RunEvent =
  | { type: "run"; runId: string; sessionId: string; userMessage: StoredMessage }
  | { type: "token"; text: string; runId?: string }
  | { type: "tool_call"; callId: string; name: string; arguments: unknown }
  | { type: "gate"; callId: string; gate: string; allow: boolean; reason?: string }
  | { type: "tool_result"; callId: string; name: string; ok: boolean; output?: unknown; error?: unknown; ms?: number }
  | { type: "status"; status: RunStatus }
  | { type: "done"; runId: string; status: RunStatus; reply: StoredMessage | null }
  | { type: "error"; code: string; message: string };

/** The state the agent's Durable Object syncs over its WebSocket. */
export interface LiveAgentState {
  status: RunStatus;
  runId: string | null;
  typing: boolean;
  lastActivityAt: number | null;
}

/** Something that is fetched: what a view shows while loading, when ready and on failure. */
export type Loadable<T> =
  | { status: "idle" }
  | { status: "loading"; data?: T }
  | { status: "ready"; data: T }
  | { status: "error"; error: string; data?: T };

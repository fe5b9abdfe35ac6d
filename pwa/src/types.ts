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
  createdAt?: string | number;
  updatedAt?: string | number;
  status?: RunStatus;
  lastActivityAt?: string | number | null;
  connections?: string[];
  script?: unknown;
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
  ms?: number;
}

export interface ContextItem {
  id: string;
  source: string;
  kind: string;
  text: string;
  scores: Record<string, number>;
  included: boolean;
  reason?: string;
}

export interface ContextResult {
  messages: { role: string; content: string; name?: string }[];
  items: ContextItem[];
  tokens: { used: number; budget: number };
}

export interface Schedule {
  id?: string;
  name?: string;
  behavior?: string;
  cron?: string;
  every?: string | number;
  nextRunAt?: string | number;
  [key: string]: unknown;
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

// A2A tasks are Pantheon runs: the task id is the run id, the context id names the session, and the
// task's state is the run's status (an approval wait is `input-required`). Pure mapping, no I/O.
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";

/** A run as the agent reports it for a protocol adapter (AgentDO `runTurn`). */
export interface RunTurnView {
  run: {
    id: string;
    sessionId: string;
    status: string;
    error?: string;
    startedAt: number;
    finishedAt?: number;
    pending: { callId: string; tool: string; arguments: unknown }[];
  };
  /** The request of the run's turn (null for a manual tool call). */
  request: string | null;
  /** The reply, once the run completed. */
  reply: string | null;
  sessionTitle: string | null;
}

/** A session made for an A2A context is titled with this prefix and the context id. */
export const a2aSessionPrefix = "a2a:";

/** The A2A context of a session: the context id it was made for, else the session's own id. */
export function contextIdOf(sessionId: string, sessionTitle: string | null): string {
  return sessionTitle?.startsWith(a2aSessionPrefix) ? sessionTitle.slice(a2aSessionPrefix.length) : sessionId;
}

const stateByStatus: Record<string, TaskState> = {
  idle: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  waiting_tool: TaskState.TASK_STATE_WORKING,
  waiting_agent: TaskState.TASK_STATE_WORKING,
  waiting_approval: TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
};

/**
 * The A2A task state of a run status.
 * @example
 * taskStateOfRun("waiting_approval"); // TaskState.TASK_STATE_INPUT_REQUIRED
 */
export function taskStateOfRun(status: string): TaskState {
  return stateByStatus[status] ?? TaskState.TASK_STATE_WORKING;
}

export const terminalTaskStates: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

export const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
export const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

/** A message from the agent (a status's words, a reply) within a task. */
export function agentMessage(input: {
  messageId: string;
  taskId: string;
  contextId: string;
  text: string;
  data?: unknown;
}): Message {
  return {
    messageId: input.messageId,
    taskId: input.taskId,
    contextId: input.contextId,
    role: Role.ROLE_AGENT,
    parts: [textPart(input.text), ...(input.data === undefined ? [] : [dataPart(input.data)])],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The reply of a run, as the task's one artifact. */
export function replyArtifact(runId: string, reply: string): Artifact {
  return {
    artifactId: `${runId}-reply`,
    name: "reply",
    description: "the agent's reply",
    parts: [textPart(reply)],
    metadata: undefined,
    extensions: [],
  };
}

/** What an input-required task waits for, in words a person or a model can act on. */
export function approvalPrompt(pending: RunTurnView["run"]["pending"]): string {
  const calls = pending.map((p) => `${p.tool} ${JSON.stringify(p.arguments)} (call ${p.callId})`).join("; ");
  return `waiting for a person to approve: ${calls}. Answer this task with a message "approve" or "reject" (or a data part { "decision": "approve" | "reject", "callId"?, "reason"? }); only a token with the 'approve' scope may.`;
}

/** The words of a run's current status, if it has any worth saying. */
export function statusText(view: RunTurnView): string | undefined {
  const { run } = view;
  if (run.status === "waiting_approval") return approvalPrompt(run.pending);
  if (run.status === "completed") return view.reply ?? "";
  if (run.status === "failed") return `the run failed: ${run.error ?? "no reason recorded"}`;
  if (run.status === "cancelled") return `the run was cancelled${run.error ? `: ${run.error}` : ""}`;
  return undefined;
}

/** The task's status: state, the words that go with it, and when. */
export function taskStatusOf(view: RunTurnView, contextId: string, now: number): NonNullable<Task["status"]> {
  const text = statusText(view);
  const data = view.run.status === "waiting_approval" ? { pending: view.run.pending } : undefined;
  return {
    state: taskStateOfRun(view.run.status),
    message:
      text === undefined
        ? undefined
        : agentMessage({ messageId: `${view.run.id}-${view.run.status}`, taskId: view.run.id, contextId, text, data }),
    timestamp: new Date(view.run.finishedAt ?? now).toISOString(),
  };
}

/**
 * A run as an A2A task: its request (and reply) as the history, the reply as the artifact, the
 * Pantheon run in `metadata.pantheon`.
 * @example
 * taskOfRun(view, "scout", Date.now()).status?.state; // TaskState.TASK_STATE_COMPLETED
 */
export function taskOfRun(view: RunTurnView, agent: string, now: number): Task {
  const { run } = view;
  const contextId = contextIdOf(run.sessionId, view.sessionTitle);
  const history: Message[] = [];
  if (view.request !== null) {
    history.push({
      messageId: `${run.id}-request`,
      taskId: run.id,
      contextId,
      role: Role.ROLE_USER,
      parts: [textPart(view.request)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
  }
  if (view.reply !== null)
    history.push(agentMessage({ messageId: `${run.id}-reply`, taskId: run.id, contextId, text: view.reply }));
  return {
    id: run.id,
    contextId,
    status: taskStatusOf(view, contextId, now),
    artifacts: view.reply !== null ? [replyArtifact(run.id, view.reply)] : [],
    history,
    metadata: { pantheon: { agent, runId: run.id, sessionId: run.sessionId, status: run.status } },
  };
}

/** What one A2A message asks of an agent: its text parts, and data parts as JSON. */
export function requestTextOf(message: Message): { ok: true; text: string } | { ok: false; reason: string } {
  const pieces: string[] = [];
  for (const [index, part] of message.parts.entries()) {
    const content = part.content;
    if (content?.$case === "text") pieces.push(content.value);
    else if (content?.$case === "data") pieces.push(JSON.stringify(content.value));
    else
      return {
        ok: false,
        reason: `message.parts[${index}]: only text and data parts are understood (got ${content?.$case ?? "an empty part"})`,
      };
  }
  const text = pieces.join("\n").trim();
  if (!text) return { ok: false, reason: "message.parts: the message has no text" };
  if (text.length > 32_000) return { ok: false, reason: "message.parts: at most 32,000 characters" };
  return { ok: true, text };
}

export interface ApprovalAnswer {
  approved: boolean;
  callId?: string;
  reason?: string;
}

/**
 * A client's answer to an input-required task (an approval wait): a data part
 * `{ decision: "approve" | "reject", callId?, reason? }`, or a text that starts with "approve" or
 * "reject" (the rest is the reason).
 * @example
 * approvalAnswerOf(message); // { ok: true, answer: { approved: false, reason: "not today" } } for "reject: not today"
 */
export function approvalAnswerOf(
  message: Message,
): { ok: true; answer: ApprovalAnswer } | { ok: false; reason: string } {
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case !== "data" || !content.value || typeof content.value !== "object") continue;
    const { decision, callId, reason } = content.value as Record<string, unknown>;
    if (decision !== "approve" && decision !== "reject")
      return { ok: false, reason: "message data part: decision must be 'approve' or 'reject'" };
    if (callId !== undefined && (typeof callId !== "string" || callId.length > 128))
      return { ok: false, reason: "message data part: callId must be a call id of the pending approval" };
    if (reason !== undefined && (typeof reason !== "string" || reason.length > 2000))
      return { ok: false, reason: "message data part: reason must be a string of at most 2000 characters" };
    return {
      ok: true,
      answer: { approved: decision === "approve", ...(callId ? { callId } : {}), ...(reason ? { reason } : {}) },
    };
  }
  const text = message.parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join(" ")
    .trim();
  const match = /^(approve|approved|yes|reject|rejected|no)\b[\s:,.-]*(.*)$/is.exec(text);
  if (!match)
    return {
      ok: false,
      reason:
        "message: this task waits for an approval; answer 'approve' or 'reject' (text or a data part { decision })",
    };
  const approved = ["approve", "approved", "yes"].includes(match[1]!.toLowerCase());
  const reason = match[2]!.trim().slice(0, 2000);
  return { ok: true, answer: { approved, ...(reason ? { reason } : {}) } };
}

import type { AgentProfile } from "../../core/agents";
import type { Clock, LlmPort, LlmResponse, Message } from "../../core/ports";
import type { Emit } from "./live";
import type { MessageStore, StoredMessage } from "./messages";
import type { RunStore } from "./runs";

export interface TurnDeps {
  llm: LlmPort;
  messages: MessageStore;
  runs: RunStore;
  clock: Clock;
  emit: Emit;
}

export interface TurnInput {
  profile: AgentProfile;
  sessionId: string;
  content: string;
  stream: boolean;
  maxHistory: number;
}

export interface TurnResult {
  runId: string;
  sessionId: string;
  status: string;
  userMessage: StoredMessage;
  reply: StoredMessage | null;
  error?: { code: string; message: string };
}

/**
 * One chat turn: store the user's message, compile the model's view (system prompt + recent
 * history), call the model (streaming tokens when asked), store the reply, and trace each step.
 */
export async function runChatTurn(deps: TurnDeps, input: TurnInput): Promise<TurnResult> {
  const { llm, messages, runs, clock, emit } = deps;
  const runId = crypto.randomUUID();
  const started = clock.now();
  runs.create({ id: runId, sessionId: input.sessionId, status: "running", trigger: "message", state: { phase: "started" } });
  const userMessage = messages.append(input.sessionId, { role: "user", content: input.content, runId });
  emit({ type: "run", runId, sessionId: input.sessionId, userMessage });
  emit({ type: "status", status: "running" });
  runs.appendTrace({ runId, kind: "message", name: "user", data: { messageId: userMessage.id, chars: input.content.length }, startedAt: started, durationMs: 0 });

  const contextStart = clock.now();
  const history = messages.recent(input.sessionId, input.maxHistory + 1).filter((m) => m.id !== userMessage.id).slice(-input.maxHistory);
  const modelMessages: Message[] = [
    { role: "system", content: input.profile.systemPrompt },
    ...history.map(({ role, content, name, toolCalls, toolCallId }) => ({ role, content, name, toolCalls, toolCallId })),
    { role: "user", content: input.content },
  ];
  runs.appendTrace({
    runId,
    kind: "state",
    name: "context",
    data: { messages: modelMessages.length, historyMessages: history.length },
    startedAt: contextStart,
    durationMs: clock.now() - contextStart,
  });

  const modelStart = clock.now();
  const request = { model: input.profile.model.name, messages: modelMessages, temperature: input.profile.model.temperature };
  let response: LlmResponse;
  try {
    if (input.stream) {
      response = await streamModel(llm, request, emit);
    } else {
      response = await llm.complete(request);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    runs.appendTrace({ runId, kind: "error", name: "model", data: { provider: llm.provider, error: message }, startedAt: modelStart, durationMs: clock.now() - modelStart });
    runs.save(runId, { status: "failed", state: { phase: "failed" }, steps: 1, tokens: 0, error: message, finished: true });
    emit({ type: "error", code: "model_failed", message });
    emit({ type: "done", runId, status: "failed", reply: null });
    return { runId, sessionId: input.sessionId, status: "failed", userMessage, reply: null, error: { code: "model_failed", message } };
  }
  const tokens = response.usage.inputTokens + response.usage.outputTokens;
  runs.appendTrace({
    runId,
    kind: "model",
    name: `${llm.provider}:${response.model}`,
    data: { finishReason: response.finishReason, usage: response.usage, toolCalls: response.toolCalls.map((c) => c.name) },
    startedAt: modelStart,
    durationMs: clock.now() - modelStart,
  });

  const reply = messages.append(input.sessionId, { role: "assistant", content: response.content, runId, ...(response.toolCalls.length ? { toolCalls: response.toolCalls } : {}) });
  runs.appendTrace({ runId, kind: "message", name: "assistant", data: { messageId: reply.id, chars: reply.content.length }, startedAt: clock.now(), durationMs: 0 });
  runs.save(runId, { status: "completed", state: { phase: "completed" }, steps: 1, tokens, finished: true });
  emit({ type: "status", status: "completed" });
  emit({ type: "done", runId, status: "completed", reply });
  return { runId, sessionId: input.sessionId, status: "completed", userMessage, reply };
}

async function streamModel(llm: LlmPort, request: Parameters<LlmPort["stream"]>[0], emit: Emit): Promise<LlmResponse> {
  for await (const event of llm.stream(request)) {
    if (event.type === "token") emit({ type: "token", text: event.text });
    if (event.type === "done") return event.response;
  }
  throw new Error("the model's stream ended without a final response");
}

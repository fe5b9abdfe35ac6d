// A run's events as the agent streams them (`POST …/messages` with `Accept: text/event-stream`, or
// the agent's `chatStream` over RPC): one SSE frame per event, `event: <type>\ndata: <json>`.
// Self-contained (no value imports) so the CLI's ACP bridge can load it with Node's type stripping.

/**
 * One event of a run, as the agent streams it over its WebSocket and its SSE stream, and as every
 * door reads it back (/v1, AG-UI, A2A, ACP, the PWA). Declared once, here: the agent writes
 * `StreamedRunEvent<StoredMessage>` (durable-objects/agent/chat/live.ts `RunEvent`), its readers see
 * the default, a message of which they read only the content. Not core/run's `RunEvent`, which is
 * what the run's reducer takes in.
 */
export type StreamedRunEvent<M = { content: string }> =
  /** `userMessage` is absent for a run with no request in the chat (a manual tool call, a resumed run). */
  | { type: "run"; runId: string; sessionId: string; userMessage?: M }
  | { type: "token"; text: string }
  | { type: "tool_call"; callId: string; name: string; arguments: unknown }
  /** `tool` names the call; `pending: "approval"` marks a call that waits for a person rather than a refusal. */
  | { type: "gate"; callId: string; gate: string; allow: boolean; reason?: string; tool?: string; pending?: "approval" }
  | { type: "tool_result"; callId: string; name: string; ok: boolean; output?: string; error?: string; ms: number }
  | { type: "status"; status: string }
  | { type: "done"; runId: string; status: string; reply: M | null }
  | { type: "error"; code: string; message: string };

/**
 * Reads an SSE body into run events, one at a time; frames of other types or without JSON data
 * are skipped. Cancelling the iteration cancels the body.
 * @example
 * for await (const event of readRunEvents(res.body!)) if (event.type === "token") write(event.text);
 */
export async function* readRunEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<StreamedRunEvent> {
  const reader = stream
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (!type || !data) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(data);
        } catch {
          continue;
        }
        if (parsed && typeof parsed === "object") yield { ...(parsed as object), type } as StreamedRunEvent;
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

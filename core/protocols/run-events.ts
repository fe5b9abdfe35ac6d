// A run's events as the agent streams them (`POST …/messages` with `Accept: text/event-stream`, or
// the agent's `chatStream` over RPC): one SSE frame per event, `event: <type>\ndata: <json>`.
// Self-contained (no value imports) so the CLI's ACP bridge can load it with Node's type stripping.

/** One run event, as the protocol adapters read it (durable-objects/agent/chat/live.ts writes it). */
export type StreamedRunEvent =
  | { type: "run"; runId: string; sessionId: string }
  | { type: "token"; text: string }
  | { type: "tool_call"; callId: string; name: string; arguments: unknown }
  | { type: "gate"; callId: string; gate: string; allow: boolean; reason?: string; tool?: string; pending?: "approval" }
  | { type: "tool_result"; callId: string; name: string; ok: boolean; output?: string; error?: string; ms: number }
  | { type: "status"; status: string }
  | { type: "done"; runId: string; status: string; reply: { content: string } | null }
  | { type: "error"; code: string; message: string };

/**
 * Reads an SSE body into run events, one at a time; frames of other types or without JSON data
 * are skipped. Cancelling the iteration cancels the body.
 * @example
 * for await (const event of readRunEvents(res.body!)) if (event.type === "token") write(event.text);
 */
export async function* readRunEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<StreamedRunEvent> {
  const reader = stream.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
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

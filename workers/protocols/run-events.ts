// The agent's run stream (AgentDO `chatStream` / `decideStream`: `event: <type>\ndata: <json>`) as
// events, for the protocol adapters that translate it (/v1, AG-UI).

/** Reads the agent's SSE stream (`event: <type>\ndata: <json>`) one event at a time. */
export async function* runEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<{ type: string; data: Record<string, unknown> }> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
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
        if (type && data) yield { type, data: JSON.parse(data) as Record<string, unknown> };
      }
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

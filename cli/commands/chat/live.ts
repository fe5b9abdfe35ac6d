// The agent's live socket (/agents/agent-do/<project>.<agent>, the agents SDK's), read-only: the
// events of runs that go on after their message's stream ended — after an approval, or while the
// run waits for another agent — so the chat shows them as they happen. Node's own WebSocket
// (undici) sends the token as a header, never in the URL.
import type { Client, EventData } from "../../client.ts";

export interface Live {
  /** Calls `handler` with each event of the run until the returned function is called. */
  follow(runId: string, handler: (type: string, data: EventData) => void): () => void;
  /** True once the socket is open (until then, and if it never opens, nothing is followed). */
  readonly open: boolean;
  close(): void;
}

export function openLive(client: Client, agent: string): Live {
  const url = new URL(
    `/agents/agent-do/${encodeURIComponent(client.project ?? "default")}.${encodeURIComponent(agent)}`,
    client.url,
  );
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const handlers = new Map<string, (type: string, data: EventData) => void>();
  let open = false;
  let socket: WebSocket | undefined;
  try {
    // `headers` is undici's extension of the WebSocket constructor's options.
    socket = new WebSocket(url, {
      headers: client.token ? { authorization: `Bearer ${client.token}` } : {},
    } as unknown as string[]);
    socket.onopen = () => (open = true);
    socket.onclose = () => (open = false);
    socket.onerror = () => (open = false);
    socket.onmessage = (message) => {
      let data: { type?: string; runId?: string; event?: { type: string } & Record<string, unknown> };
      try {
        data = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (data.type !== "run_event" || !data.runId || !data.event) return;
      const { type, ...rest } = data.event;
      handlers.get(data.runId)?.(type, rest);
    };
  } catch {
    socket = undefined;
  }
  return {
    follow(runId, handler) {
      handlers.set(runId, handler);
      return () => handlers.delete(runId);
    },
    get open() {
      return open;
    },
    close() {
      handlers.clear();
      socket?.close();
    },
  };
}

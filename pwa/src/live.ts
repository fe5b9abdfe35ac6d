import PartySocket from "partysocket";
import type { LiveState, RunEvent } from "./api";

export type LiveStatus = "off" | "connecting" | "open" | "reconnecting";

export interface LiveOptions {
  agent: string;
  project: string;
  token: string;
  host: string;
  secure: boolean;
  onState: (state: LiveState) => void;
  onRunEvent: (runId: string, event: RunEvent) => void;
  onStatus: (status: LiveStatus) => void;
  /** Called when a dropped connection comes back: the moment to fetch what was missed. */
  onReconnect: () => void;
}

export interface LiveConnection {
  /** Try now instead of waiting for the backoff timer (after the browser says it is online). */
  nudge(): void;
  close(): void;
}

/**
 * Follows one agent over its WebSocket (the `agents` SDK routing). The socket reconnects on its
 * own with backoff; every reconnect after the first open triggers `onReconnect`.
 *
 * @example
 * const live = connectLive({ agent: "helper", project: "default", token, host: location.host, secure: true, ... });
 * live.close();
 */
export function connectLive(options: LiveOptions): LiveConnection {
  // PartySocket is the reconnecting socket the agents SDK's AgentClient is built on; the PWA only
  // listens (state and run events), so it uses it directly and leaves out the SDK client's RPC
  // transport (capnweb, 53 KiB minified). Same path: /agents/agent-do/<project>.<agent>.
  const client = new PartySocket({
    party: "agent-do",
    prefix: "agents",
    room: `${options.project}.${options.agent}`,
    host: options.host,
    protocol: options.secure ? "wss" : "ws",
    query: { token: options.token },
    // The server's own close codes (1008, 4000–4999: a revoked token is 4401) end the connection,
    // as in the SDK's client; anything else reconnects with backoff.
    shouldReconnectOnClose: (event) => !(event.code === 1008 || (event.code >= 4000 && event.code <= 4999)),
  });
  let opened = false;
  let closed = false;
  options.onStatus("connecting");
  client.addEventListener("open", () => {
    options.onStatus("open");
    if (opened) options.onReconnect();
    opened = true;
  });
  client.addEventListener("close", () => {
    if (!closed) options.onStatus("reconnecting");
  });
  client.addEventListener("message", (event: MessageEvent) => {
    if (typeof event.data !== "string") return;
    let data: { type?: string; runId?: string; event?: RunEvent & { type: string }; state?: LiveState };
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    if (data.type === "cf_agent_state" && data.state) options.onState(data.state);
    if (data.type === "run_event" && data.runId && data.event) options.onRunEvent(data.runId, data.event);
  });
  return {
    nudge: () => {
      if (client.readyState !== WebSocket.OPEN) client.reconnect();
    },
    close: () => {
      closed = true;
      options.onStatus("off");
      client.close();
    },
  };
}

// One chat turn as a stream: sends the message with `Accept: text/event-stream` and shows the
// run as it happens — text as it is written, each tool call, gate decision and result — for
// `pantheon tell` and the interactive `pantheon chat`.
import { ApiError, param, readEvents, type Client, type EventData } from "../client.ts";
import { oneLine } from "../format.ts";

export interface TurnOutput {
  /** Reply text as it streams. */
  text(chunk: string): void;
  /** A line about the run (a tool call, a gate, a result). */
  line(text: string): void;
}

export interface TurnEnd {
  runId: string;
  sessionId: string | undefined;
  status: string;
  reply: string | null;
}

/** The line shown for one run event other than text; undefined when there is none. */
export function eventLine(event: string, data: EventData): string | undefined {
  if (event === "tool_call") return `  → ${data.name} ${oneLine(data.arguments, 80)}`;
  if (event === "gate" && data.gate === "approval" && !data.allow)
    return `  ⏸ ${data.callId} waits for a person's approval`;
  if (event === "gate" && !data.allow)
    return `  ✗ gate ${data.gate} stopped ${data.callId}${data.reason ? `: ${data.reason}` : ""}`;
  if (event === "tool_result")
    return `  ← ${data.name} ${data.ok ? `ok${data.output ? `: ${oneLine(data.output, 70)}` : ""}` : `failed: ${oneLine(data.error, 80)}`} (${data.ms} ms)`;
  return undefined;
}

/**
 * Shows one run's events as they come (from the SSE stream of a message, or the agent's socket
 * after an approval): text as it is written, a line for each call, gate and result. Text a model
 * writes before it calls a tool is not the reply; what was shown since the last tool call is
 * compared with the stored reply at the end, and any missing tail shown. `see` answers the run's
 * end at `done`.
 */
export function makeRunView(out: TurnOutput) {
  let sinceTool = "";
  let midLine = false;
  const endLine = () => {
    if (midLine) out.text("\n");
    midLine = false;
  };
  return {
    endLine,
    see(event: string, data: EventData): { status: string; reply: string | null } | undefined {
      if (event === "token") {
        out.text(data.text);
        sinceTool += data.text;
        midLine = !data.text.endsWith("\n");
      } else if (event === "done") {
        const reply: string | null = data.reply?.content ?? null;
        if (reply?.startsWith(sinceTool) && reply.length > sinceTool.length) {
          out.text(reply.slice(sinceTool.length));
          midLine = !reply.endsWith("\n");
        }
        endLine();
        return { status: data.status, reply };
      } else {
        const line = eventLine(event, data);
        if (line) {
          endLine();
          if (event === "tool_call") sinceTool = "";
          out.line(line);
        }
      }
      return undefined;
    },
  };
}

/**
 * Sends one message and shows the run until it settles (finished, or waiting for a person or an
 * agent). `signal` aborts the stream (the run goes on server-side; cancel it by its id).
 */
export async function streamTurn(
  client: Client,
  agent: string,
  input: { content: string; session?: string },
  out: TurnOutput,
  signal?: AbortSignal,
  onRun?: (runId: string, sessionId: string) => void,
): Promise<TurnEnd> {
  const call = client.api.api.agents[":name"].messages.$post(
    { ...param({ name: agent }), json: input },
    { headers: { accept: "text/event-stream" }, init: signal ? { signal } : {} },
  );
  const res = await client.reach(call);
  const view = makeRunView(out);
  let runId = "";
  let sessionId: string | undefined;
  let status: string | undefined;
  for await (const { event, data } of readEvents(res)) {
    if (event === "run") {
      runId = data.runId;
      sessionId = data.sessionId;
      onRun?.(data.runId, data.sessionId);
    } else if (event === "status") {
      status = data.status;
    } else if (event === "error") {
      view.endLine();
      if (data.code === "cancelled") continue;
      throw new ApiError(500, { code: data.code, message: data.message });
    } else {
      const end = view.see(event, data);
      if (end) return { runId: data.runId, sessionId, ...end };
    }
  }
  // A run that waits (for a person, another agent) ends its stream with its status and no `done`.
  view.endLine();
  if (runId && status?.startsWith("waiting_")) return { runId, sessionId, status, reply: null };
  throw new ApiError(500, {
    code: "stream_ended",
    message: `the reply stream ended before the run finished; see: pantheon runs list ${agent}${runId ? ` (run ${runId})` : ""}`,
  });
}

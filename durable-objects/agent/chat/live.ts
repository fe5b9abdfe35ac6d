import { z } from "zod";
import { lazySchema } from "../../../core/lazy-schema";
import type { StoredMessage } from "./messages";

/** What every client of an agent sees live, kept in sync by the `agents` SDK's state sync. */
export const liveStateSchema = lazySchema(() =>
  z.strictObject({
    status: z.string().max(32),
    runId: z.string().max(64).nullable(),
    typing: z.boolean(),
    lastActivityAt: z.number().nullable(),
  }),
);
export type LiveState = z.infer<typeof liveStateSchema>;

export const initialLiveState: LiveState = { status: "idle", runId: null, typing: false, lastActivityAt: null };

/**
 * One event of a run, pushed over the WebSocket and the SSE stream alike (clients such as the PWA
 * import this type).
 */
export type RunEvent =
  /** `userMessage` is absent for a run with no request in the chat (a manual tool call, a resumed run). */
  | { type: "run"; runId: string; sessionId: string; userMessage?: StoredMessage }
  | { type: "token"; text: string }
  | { type: "tool_call"; callId: string; name: string; arguments: unknown }
  /** `tool` names the call; `pending: "approval"` marks a call that waits for a person rather than a refusal. */
  | { type: "gate"; callId: string; gate: string; allow: boolean; reason?: string; tool?: string; pending?: "approval" }
  | { type: "tool_result"; callId: string; name: string; ok: boolean; output?: string; error?: string; ms: number }
  | { type: "status"; status: string }
  | { type: "done"; runId: string; status: string; reply: StoredMessage | null }
  | { type: "error"; code: string; message: string };

export type Emit = (event: RunEvent) => void;

/** Formats one server-sent event. */
export function sseFrame(event: RunEvent): string {
  const { type, ...data } = event;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

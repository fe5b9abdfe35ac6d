import { z } from "zod";
import { lazySchema } from "../../../core/lazy-schema";
import type { StreamedRunEvent } from "../../../core/protocols/run-events";
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
 * import this type): the one declaration in core/protocols/run-events.ts, carrying stored messages.
 */
export type RunEvent = StreamedRunEvent<StoredMessage>;

export type Emit = (event: RunEvent) => void;

/** Formats one server-sent event. */
export function sseFrame(event: RunEvent): string {
  const { type, ...data } = event;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

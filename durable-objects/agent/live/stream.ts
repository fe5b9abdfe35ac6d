import { isPantheonError } from "../../../core/errors";
import { sseFrame, type RunEvent } from "../chat";

/** Runs `work` with a sink that writes each run event as a server-sent event; the stream closes when it settles. */
export function runEventStream(work: (write: (event: RunEvent) => void) => Promise<unknown>, waitUntil: (promise: Promise<unknown>) => void): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  // The run never waits for a reader: a slow client's unread events queue here, bounded by the run's own limits.
  const write = (event: RunEvent) => void writer.write(encoder.encode(sseFrame(event))).catch(() => {});
  const done = work(write)
    .catch((error: unknown) => write(isPantheonError(error) ? { type: "error", code: error.code, message: error.message } : { type: "error", code: "internal", message: error instanceof Error ? error.message : String(error) }))
    .finally(() => void writer.close().catch(() => {}));
  waitUntil(done);
  return readable;
}

import { isPantheonError } from "../../../core/errors";
import { sseFrame, type RunEvent } from "../chat";

/** The SSE streams an agent has open, so its deletion can end each of them at once (incarnation.ts). */
export interface OpenStreams {
  add(end: (last: RunEvent) => void): () => void;
  /** Writes `last` to every open stream and closes it; how many there were. */
  endAll(last: RunEvent): number;
}

export function makeOpenStreams(): OpenStreams {
  const open = new Set<(last: RunEvent) => void>();
  return {
    add(end) {
      open.add(end);
      return () => open.delete(end);
    },
    endAll(last) {
      const ends = [...open];
      open.clear();
      for (const end of ends) end(last);
      return ends.length;
    },
  };
}

/** Runs `work` with a sink that writes each run event as a server-sent event; the stream closes when it settles, or when `streams` ends it. */
export function runEventStream(
  work: (write: (event: RunEvent) => void) => Promise<unknown>,
  waitUntil: (promise: Promise<unknown>) => void,
  streams?: OpenStreams,
): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  let ended = false;
  // The run never waits for a reader: a slow client's unread events queue here, bounded by the run's own limits.
  const write = (event: RunEvent) => {
    if (!ended) void writer.write(encoder.encode(sseFrame(event))).catch(() => {});
  };
  const close = () => {
    ended = true;
    void writer.close().catch(() => {});
  };
  const remove = streams?.add((last) => {
    write(last);
    close();
  });
  const done = work(write)
    .catch((error: unknown) =>
      write(
        isPantheonError(error)
          ? { type: "error", code: error.code, message: error.message }
          : { type: "error", code: "internal", message: error instanceof Error ? error.message : String(error) },
      ),
    )
    .finally(() => {
      remove?.();
      close();
    });
  waitUntil(done);
  return readable;
}

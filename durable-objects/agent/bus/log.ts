import type { BusLogEntry } from "../../registry/bus-log";

/**
 * The agent's side of the registry's bus log: entries wait here for one registry call per burst
 * (the messages of one tick), so no message waits on the log. An eviction in that tick can lose
 * entries; the log moves forward only (a later state of the same message still lands), and the runs,
 * inbox and outbox are the record that counts.
 * @example
 * const log = makeBusLogBuffer((entries) => registry.busRecord(entries));
 * log.record([{ message, state: "sent" }]); // returns at once
 */
export function makeBusLogBuffer(send: (entries: BusLogEntry[]) => Promise<void>) {
  const buffer: BusLogEntry[] = [];
  let flushing: Promise<void> | null = null;
  return {
    record(entries: BusLogEntry[]): Promise<void> {
      buffer.push(...entries);
      flushing ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
        .then(() => send(buffer.splice(0)))
        .catch((error: unknown) => console.warn("bus log", error))
        .finally(() => (flushing = null));
      return Promise.resolve();
    },
  };
}

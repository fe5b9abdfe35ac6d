import { eq, sql } from "drizzle-orm";
import { parseBusMessage, type BusMessage } from "../../../core/bus";
import type { Clock } from "../../../core/ports";
import type { BusLogEntry } from "../../registry/bus-log";
import * as schema from "../schema";
import type { BusPorts, Db } from "./ports";

export interface DeliveryDeps extends Pick<BusPorts, "send" | "deliverDirect"> {
  db: Db;
  clock: Clock;
  /** This agent's name (a message to itself always goes through the queue). */
  me(): string;
  record(entries: BusLogEntry[]): Promise<void>;
  /** Re-sends what the queue has not taken yet, after `seconds` (an alarm; idempotent). */
  retryLater(seconds: number): Promise<unknown>;
}

async function withinTenSeconds<T>(work: Promise<T>, error: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(error)), 10_000))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The way out of an agent: the send queue (a table) and its flush. A message is queued in the same
 * transaction as what it answers or waits for, and leaves the table only once its target applied it
 * (straight to the target's object) or the queue took it.
 * @example
 * const delivery = makeDelivery({ db, clock, me, send, deliverDirect, record, retryLater });
 * transaction(() => { ...; delivery.enqueue(message); });
 * await delivery.flush();
 */
export function makeDelivery(deps: DeliveryDeps) {
  const { db, clock } = deps;
  // Built once: every message passes these statements (drizzle builds a query's SQL on each call).
  const insert = db
    .insert(schema.busSendQueue)
    .values({ id: sql.placeholder("id"), message: sql.placeholder("message"), createdAt: sql.placeholder("createdAt") })
    .onConflictDoNothing()
    .prepare();
  const queued = db.select().from(schema.busSendQueue).orderBy(schema.busSendQueue.createdAt).prepare();
  const remove = db
    .delete(schema.busSendQueue)
    .where(eq(schema.busSendQueue.id, sql.placeholder("id")))
    .prepare();

  /** Puts a message in the send queue (inside the caller's transaction). */
  function enqueue(message: BusMessage): void {
    insert.run({ id: message.id, message, createdAt: clock.now() });
  }

  /**
   * The fast path: the target applies the message now (its inbox makes a repeat harmless, so a
   * message also sent through the queue later is applied once). False: it goes through the queue.
   */
  async function deliveredDirectly(message: BusMessage): Promise<boolean> {
    if (!deps.deliverDirect || message.to === deps.me()) return false;
    try {
      const result = await withinTenSeconds(deps.deliverDirect(message), "the target did not answer within 10 s");
      if (!result.ok) return false;
      if (result.value.applied)
        void deps.record([
          {
            message,
            state: "applied",
            ...(result.value.runId ? { runId: result.value.runId, runStatus: "running" } : {}),
          },
        ]);
      return true;
    } catch {
      return false;
    }
  }

  let flushing: Promise<void> | null = null;
  let flushStartedAt = 0;
  /** A message was queued while a flush was under way: that flush goes round once more before it settles. */
  let queuedMeanwhile = false;

  /**
   * Sends every queued message; each leaves the send queue only once delivered or taken by the
   * queue. A message the queue refuses (or that gets no answer) stays, and is sent again on a
   * backoff alarm and on every start (a send cut off by an eviction is sent again when the agent next wakes).
   */
  function flush(): Promise<void> {
    // A flush that has not settled in 15 s (a send whose invocation went away) does not block the next.
    if (flushing && clock.now() - flushStartedAt > 15_000) flushing = null;
    if (flushing) {
      // Its pass read the send queue before this message was in it: without another pass the message
      // would wait for the next flush (another message, the retry alarm or a restart).
      queuedMeanwhile = true;
      return flushing;
    }
    flushStartedAt = clock.now();
    // `.finally` runs as a later microtask, after `flushing` holds this very promise.
    const run: Promise<void> = (async () => {
      try {
        let failed = 0;
        do {
          queuedMeanwhile = false;
          for (const row of queued.all()) {
            let message: BusMessage;
            try {
              message = parseBusMessage(row.message);
            } catch (error) {
              // Never sendable: dropped (and said so) rather than retried for ever.
              remove.run({ id: row.id });
              console.error(
                JSON.stringify({
                  level: "error",
                  message: "bus: dropped a queued message that is not a bus message",
                  id: row.id,
                  error: error instanceof Error ? error.message : String(error),
                }),
              );
              continue;
            }
            try {
              if (!(await deliveredDirectly(message)))
                await withinTenSeconds(deps.send(message), "the queue did not answer within 10 s");
              remove.run({ id: row.id });
            } catch (error) {
              failed = Math.max(failed, row.attempts + 1);
              const message = error instanceof Error ? error.message : String(error);
              db.update(schema.busSendQueue)
                .set({ attempts: row.attempts + 1, lastError: message.slice(0, 500) })
                .where(eq(schema.busSendQueue.id, row.id))
                .run();
              console.warn(
                JSON.stringify({
                  level: "warn",
                  message: "bus: the queue did not take a message; it is sent again later",
                  id: row.id,
                  attempt: row.attempts + 1,
                  error: message,
                }),
              );
            }
          }
        } while (queuedMeanwhile && failed === 0);
        if (failed > 0) await deps.retryLater(Math.min(60, 2 ** Math.min(failed, 6)));
      } catch (error) {
        console.error(
          JSON.stringify({
            level: "error",
            message: "bus: flush failed",
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      }
    })().finally(() => {
      if (flushing === run) flushing = null;
    });
    flushing = run;
    return run;
  }

  return {
    enqueue,
    flush,
    /** The flush under way, if any. */
    inFlight: (): Promise<void> | null => flushing,
  };
}

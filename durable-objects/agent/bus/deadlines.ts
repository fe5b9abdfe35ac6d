import { and, asc, eq, lte } from "drizzle-orm";
import type { Clock } from "../../../core/ports";
import * as schema from "../schema";
import type { Db } from "./ports";

/**
 * Deadlines of the requests an agent waits on, with one alarm for the earliest rather than one per
 * request: every request waits as long as the last (2 minutes), so a new one is almost never the
 * earliest, and an answer leaves the alarm alone (it finds its request settled). Arming and
 * cancelling an SDK schedule per request was 6–8% of the CPU of agents asking each other.
 * @example
 * const deadlines = makeDeadlines({ db, clock, alarms: busAlarmsOf(host.alarms).deadlines, timeOut });
 * await deadlines.arm(request.deadlineAt, request.id);
 * await deadlines.fired(messageId); // the alarm's callback
 */
export function makeDeadlines(deps: {
  db: Db;
  clock: Clock;
  alarms: { next(after: number): number | null; arm(at: number, messageId: string): Promise<unknown> };
  timeOut(messageId: string): Promise<boolean>;
}) {
  const { db, clock } = deps;
  /** When the next deadline alarm fires, as far as this instance knows (undefined: not read yet). */
  let alarmAt: number | null | undefined;

  async function arm(at: number, messageId: string): Promise<void> {
    if (alarmAt === undefined) alarmAt = deps.alarms.next(clock.now());
    if (alarmAt !== null && alarmAt <= at) return;
    await deps.alarms.arm(at, messageId);
    alarmAt = at;
  }

  return {
    arm,

    /**
     * A deadline alarm fired: its request times out unless an answer came first, so does every other
     * request past its deadline, and the alarm is armed again for the earliest one still waiting.
     */
    async fired(messageId: string): Promise<boolean> {
      const timedOut = await deps.timeOut(messageId);
      const now = clock.now();
      const expired = db
        .select({ id: schema.busOutbox.id })
        .from(schema.busOutbox)
        .where(and(eq(schema.busOutbox.status, "pending"), lte(schema.busOutbox.deadlineAt, now)))
        .all();
      for (const row of expired) await deps.timeOut(row.id);
      const next = db
        .select({ id: schema.busOutbox.id, deadlineAt: schema.busOutbox.deadlineAt })
        .from(schema.busOutbox)
        .where(eq(schema.busOutbox.status, "pending"))
        .orderBy(asc(schema.busOutbox.deadlineAt))
        .limit(1)
        .get();
      // The alarm that fired may still be listed: only alarms still to come count.
      alarmAt = deps.alarms.next(now);
      if (next) await arm(next.deadlineAt, next.id);
      return timedOut;
    },
  };
}

import type { AgentAlarms } from "../host";
import type { ChildAlarm } from "./supervisor";

/**
 * The bus's alarms, on the agent's own: the send queue's retry (`onBusFlush`), each request's deadline
 * (`onBusDeadline`), and the supervisor's restarts and times to live (`onChildAlarm`).
 */
export function busAlarmsOf(alarms: Pick<AgentAlarms, "armed" | "at" | "armOnce">) {
  return {
    /** Re-sends what the queue has not taken yet, after `seconds` (one alarm at a time). */
    async retryLater(seconds: number): Promise<void> {
      await alarms.armOnce(seconds, "onBusFlush");
    },
    deadlines: {
      /** When the earliest deadline alarm after `after` fires (epoch ms), or null. */
      next(after: number): number | null {
        const times = alarms
          .armed("onBusDeadline")
          .filter((s) => s.time * 1000 > after)
          .map((s) => s.time * 1000);
        return times.length ? Math.min(...times) : null;
      },
      arm: (at: number, messageId: string) => alarms.at(new Date(at), "onBusDeadline", { messageId }),
    },
    /** One alarm per record and kind: arming again (on recovery) adds none. */
    async armChildAlarm(at: number, alarm: ChildAlarm): Promise<void> {
      const same = (payload: unknown) => JSON.stringify(payload) === JSON.stringify(alarm);
      if (!alarms.armed("onChildAlarm").some((s) => same(s.payload)))
        await alarms.at(new Date(at), "onChildAlarm", alarm);
    },
  };
}

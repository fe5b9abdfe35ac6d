import type { AgentAlarms } from "../host";

/** How often the run watchdog looks while runs have work in flight (the SDK keeps objects ~70–140 s idle). */
const runWatchdogSeconds = 30;

/** The run alarms, on the agent's own (their callbacks are AgentDO's `onRunWatchdog` and `onRunDeadline`). */
export function makeRunAlarms(alarms: Pick<AgentAlarms, "armed" | "at" | "cancel" | "armOnce">) {
  /** Whether this instance has made sure the watchdog alarm exists (reset when it fires). */
  let watchdogArmed = false;
  return {
    /**
     * The run watchdog: an alarm (agents SDK `schedule`) that exists while runs have work in flight.
     * If the object is evicted mid-run — a deploy, a runtime restart, the inactivity timeout — the
     * alarm wakes it with no request arriving, and `onStart` carries every run on from its record.
     * Armed once per instance and re-armed only while work remains, so a turn pays nothing for it
     * after the first (an SDK fiber per run cost ~1.5 ms a turn here, for the same recovery).
     */
    async armWatchdog(): Promise<void> {
      if (watchdogArmed) return;
      watchdogArmed = true;
      await alarms.armOnce(runWatchdogSeconds, "onRunWatchdog");
    },
    /** The watchdog fired: the next arm schedules it again. */
    watchdogFired(): void {
      watchdogArmed = false;
    },
    /** One alarm per run at its wall-time deadline (an alarm already within a second of it is kept). */
    async armDeadline(runId: string, at: number): Promise<void> {
      const existing = alarms
        .armed("onRunDeadline", { type: "scheduled" })
        .filter((s) => (s.payload as { runId: string }).runId === runId);
      if (existing.some((s) => s.type === "scheduled" && s.time * 1000 >= at - 1000 && s.time * 1000 <= at + 1000))
        return;
      for (const s of existing) await alarms.cancel(s.id);
      await alarms.at(new Date(at), "onRunDeadline", { runId });
    },
  };
}

export type RunAlarms = ReturnType<typeof makeRunAlarms>;

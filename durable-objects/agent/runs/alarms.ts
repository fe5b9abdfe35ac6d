import type { AgentDO } from "../agent-do";

/** How often the run watchdog looks while runs have work in flight (the SDK keeps objects ~70–140 s idle). */
const runWatchdogSeconds = 30;

/** The agents SDK scheduling the run alarms use (their callbacks are AgentDO's `onRunWatchdog` and `onRunDeadline`). */
export type RunAlarmScheduler = Pick<AgentDO, "getSchedules" | "schedule" | "cancelSchedule">;

export function makeRunAlarms(scheduler: RunAlarmScheduler) {
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
      if (!scheduler.getSchedules().some((s) => s.callback === "onRunWatchdog")) await scheduler.schedule(runWatchdogSeconds, "onRunWatchdog");
    },
    /** The watchdog fired: the next arm schedules it again. */
    watchdogFired(): void {
      watchdogArmed = false;
    },
    /** One alarm per run at its wall-time deadline (an alarm already within a second of it is kept). */
    async armDeadline(runId: string, at: number): Promise<void> {
      const existing = scheduler.getSchedules({ type: "scheduled" }).filter((s) => s.callback === "onRunDeadline" && (s.payload as unknown as { runId: string }).runId === runId);
      if (existing.some((s) => s.type === "scheduled" && s.time * 1000 >= at - 1000 && s.time * 1000 <= at + 1000)) return;
      for (const s of existing) await scheduler.cancelSchedule(s.id);
      await scheduler.schedule(new Date(at), "onRunDeadline", { runId });
    },
  };
}

export type RunAlarms = ReturnType<typeof makeRunAlarms>;

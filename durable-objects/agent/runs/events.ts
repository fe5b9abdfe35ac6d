import type { RunEvent } from "../chat/live";

/** Something that wants every run event of the agent: its live clients, the gateways, the work feature, telemetry. */
export type RunEventListener = (event: RunEvent, runId: string) => void;

/**
 * Where the driver sends each run's events. The driver depends on this and nothing above it; the
 * features that react to runs (live clients, gateways, a task's worker, telemetry, a behavior's plan)
 * subscribe here when the agent is built (features.ts lists them), so an event goes down to each of
 * them rather than up to the Durable Object and back.
 */
export function makeRunEvents() {
  const listeners: RunEventListener[] = [];
  /** A run's own observer: a planned behavior's run reports to its plan which steps failed. */
  const observers = new Map<string, (event: RunEvent) => void>();
  return {
    /** Every run event from now on goes to `listener`, in the order the listeners were added. */
    listen(listener: RunEventListener): void {
      listeners.push(listener);
    },
    /** `observe` gets the events of one run until it is done. */
    observeRun(runId: string, observe: (event: RunEvent) => void): void {
      observers.set(runId, observe);
    },
    publish(event: RunEvent, runId: string): void {
      observers.get(runId)?.(event);
      if (event.type === "done") observers.delete(runId);
      for (const listener of listeners) listener(event, runId);
    },
  };
}

export type RunEvents = ReturnType<typeof makeRunEvents>;

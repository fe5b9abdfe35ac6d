import type { Clock } from "../../../core/ports";
import { initialLiveState, liveStateSchema, type LiveState, type RunEvent } from "../chat";

/** The live status a run event moves the agent to; null when the event leaves it as it is. */
export function liveStatusPatchOf(event: RunEvent, runId: string): Partial<LiveState> | null {
  if (event.type === "run") return { status: "running", runId, typing: true };
  if (event.type === "status" && !["completed", "failed", "cancelled"].includes(event.status)) return { status: event.status, runId, typing: event.status === "running" };
  if (event.type === "done") return { status: "idle", runId: null, typing: false };
  return null;
}

/** The frame live clients receive for one run event (`agent` is the agent's name in its project). */
export function runEventFrame(agent: string, runId: string, event: RunEvent): string {
  return JSON.stringify({ type: "run_event", agent, runId, event });
}

/** The agent's synced live state (the SDK's `state`), read and written through the shell. */
export function makeLiveStatus(deps: { read: () => unknown; write: (state: LiveState) => void; clock: Clock }) {
  // Every run event reads the status (a turn has several): the SDK keeps one state object until the
  // next write, so the one last checked is not checked again.
  let checked: { raw: unknown; state: LiveState } | null = null;
  /** Live status for listings (the registry does not know it); never a malformed one. */
  const current = (): LiveState => {
    const raw = deps.read();
    if (checked !== null && checked.raw === raw) return checked.state;
    const parsed = liveStateSchema.safeParse(raw);
    const state = parsed.success ? parsed.data : initialLiveState;
    checked = { raw, state };
    return state;
  };
  return {
    current,
    /** A state stored before clients were read-only may be anything: start again from a sound one. */
    repair(): void {
      if (!liveStateSchema.safeParse(deps.read()).success) deps.write(initialLiveState);
    },
    /** Updates the synced state; each change is a SQLite write and a broadcast, so no-ops are skipped. */
    patch(patch: Partial<LiveState>): void {
      const state = current();
      if ((Object.keys(patch) as (keyof LiveState)[]).every((key) => patch[key] === state[key])) return;
      const next: LiveState = { ...state, ...patch, lastActivityAt: deps.clock.now() };
      deps.write(next);
      // Built here from a checked state: what the SDK now holds needs no second check.
      checked = { raw: deps.read(), state: next };
    },
  };
}

export type LiveStatus = ReturnType<typeof makeLiveStatus>;

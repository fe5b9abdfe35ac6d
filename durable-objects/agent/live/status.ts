import type { Clock } from "../../../core/ports";
import { initialLiveState, liveStateSchema, type LiveState, type RunEvent } from "../chat";

/** The live status a run event moves the agent to; null when the event leaves it as it is. */
export function liveStatusPatchOf(event: RunEvent, runId: string): Partial<LiveState> | null {
  if (event.type === "run") return { status: "running", runId, typing: true };
  if (event.type === "status" && !["completed", "failed", "cancelled"].includes(event.status))
    return { status: event.status, runId, typing: event.status === "running" };
  if (event.type === "done") return { status: "idle", runId: null, typing: false };
  return null;
}

/** The frame live clients receive for one run event (`agent` is the agent's name in its project). */
export function runEventFrame(agent: string, runId: string, event: RunEvent): string {
  return JSON.stringify({ type: "run_event", agent, runId, event });
}

/**
 * The agent's live status. Clients that watch it (WebSockets) get it as the SDK's synced `state`,
 * which is a SQLite write and a broadcast per change. With nobody watching, `running` (which lasts
 * only while this instance drives the run) is kept here and sent to the next client that connects
 * (`unsent`), and a return to the stored status writes nothing: a turn no one watches writes none.
 * A status that outlives the instance (waiting for a person or an agent, idle after a stale one) is
 * stored. Listings read `current`; an unwatched turn's last activity is its message's (AgentDO.status).
 */
export function makeLiveStatus(deps: {
  read: () => unknown;
  write: (state: LiveState) => void;
  watched: () => boolean;
  clock: Clock;
}) {
  // Every run event reads the status (a turn has several): the SDK keeps one state object until the
  // next write, so the one last checked is not checked again.
  let checked: { raw: unknown; state: LiveState } | null = null;
  /** A change no client has seen yet (nobody was watching), newer than the SDK's state. */
  let unsynced: LiveState | null = null;
  const stored = (): LiveState => {
    const raw = deps.read();
    if (checked !== null && checked.raw === raw) return checked.state;
    const parsed = liveStateSchema.safeParse(raw);
    const state = parsed.success ? parsed.data : initialLiveState;
    checked = { raw, state };
    return state;
  };
  const write = (next: LiveState) => {
    deps.write(next);
    unsynced = null;
    // Built here from a checked state: what the SDK now holds needs no second check.
    checked = { raw: deps.read(), state: next };
  };
  /** Live status for listings (the registry does not know it); never a malformed one. */
  const current = (): LiveState => unsynced ?? stored();
  return {
    current,
    /** A state stored before clients were read-only may be anything: start again from a sound one. */
    repair(): void {
      if (!liveStateSchema.safeParse(deps.read()).success) deps.write(initialLiveState);
    },
    /** Moves the status on: written and broadcast at once while clients watch, else kept for them. */
    patch(patch: Partial<LiveState>): void {
      const state = current();
      if ((Object.keys(patch) as (keyof LiveState)[]).every((key) => patch[key] === state[key])) return;
      const next: LiveState = { ...state, ...patch, lastActivityAt: deps.clock.now() };
      if (deps.watched()) return write(next);
      const kept = stored();
      if (next.status === kept.status && next.runId === kept.runId && next.typing === kept.typing) unsynced = null;
      else if (next.status === "running") unsynced = next;
      else write(next);
    },
    /** The status no client has been sent (nobody watched it change), if there is one. */
    unsent(): LiveState | null {
      return unsynced;
    },
  };
}

export type LiveStatus = ReturnType<typeof makeLiveStatus>;

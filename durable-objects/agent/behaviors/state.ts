import type { ActorScript, Behavior } from "../../../core/dsl";
import type { Clock } from "../../../core/ports";
import type { SettingsPort } from "../chat/settings";

/** What the agent remembers about one behavior between runs (kept across restarts). */
export interface BehaviorState {
  paused: boolean;
  lastRunAt: number | null;
  lastStatus: string | null;
  lastRunId: string | null;
  lastError: string | null;
  /** Consecutive failed runs; back to 0 after a run that does not fail. */
  failures: number;
  /** Retries used in the current cycle (a cycle starts at a trigger and ends in success or giving up). */
  attempt: number;
  /** When the pending retry is due; null when none is. */
  retryAt: number | null;
  /** The cron minute (epoch minutes) this behavior last ran for: a minute never runs twice. */
  lastCronMinute: number | null;
}

export interface BehaviorBook {
  states: Record<string, BehaviorState>;
  /** The last message a person sent (on-idle counts from here), or when the script was first set. */
  lastActivityAt: number;
}

export const freshState = (): BehaviorState => ({
  paused: false,
  lastRunAt: null,
  lastStatus: null,
  lastRunId: null,
  lastError: null,
  failures: 0,
  attempt: 0,
  retryAt: null,
  lastCronMinute: null,
});

/** `<talent>/<behavior>`: how a behavior is named in triggers, schedules and run triggers. */
export interface FoundBehavior {
  key: string;
  talent: string;
  behavior: Behavior;
}

export function behaviorsOf(script: ActorScript | null): FoundBehavior[] {
  return (script?.talents ?? []).flatMap((t) =>
    t.behaviors.map((b) => ({ key: `${t.name}/${b.name}`, talent: t.name, behavior: b })),
  );
}

const bookKey = "behaviors";

/**
 * The behavior book lives in the agent's settings as one small JSON value (read through the
 * settings store, which keeps it between reads: every message touches it).
 */
export function makeBehaviorBook(settings: SettingsPort, clock: Clock) {
  function load(): BehaviorBook {
    return settings.get<BehaviorBook>(bookKey) ?? { states: {}, lastActivityAt: clock.now() };
  }
  function save(book: BehaviorBook): void {
    settings.set(bookKey, JSON.parse(JSON.stringify(book)) as BehaviorBook);
  }
  return {
    load,
    save,
    state(key: string): BehaviorState {
      return { ...freshState(), ...load().states[key] };
    },
    update(key: string, patch: Partial<BehaviorState>): BehaviorState {
      const book = load();
      const next = { ...freshState(), ...book.states[key], ...patch };
      book.states[key] = next;
      save(book);
      return next;
    },
    touch(at: number): void {
      const book = load();
      book.lastActivityAt = at;
      save(book);
    },
    /** Drops the state of behaviors the script no longer has (and fixes the idle baseline on first use). */
    prune(keys: string[]): void {
      const book = load();
      save({ ...book, states: Object.fromEntries(Object.entries(book.states).filter(([k]) => keys.includes(k))) });
    },
  };
}

export type BehaviorBookStore = ReturnType<typeof makeBehaviorBook>;

/** The payload of the one alarm callback behaviors use; one-shots carry their time so a moved time is a new alarm. */
export type BehaviorAlarm =
  | { key: string; kind: "every"; seconds: number }
  | { key: string; kind: "idle"; at: number }
  | { key: string; kind: "retry"; attempt: number; at: number };

/**
 * The alarms the agent should have right now, given its script and what its behaviors did.
 * Pure: `reconcile` compares it with the SDK's schedules and adds or cancels the difference.
 */
export function wantedAlarms(script: ActorScript | null, book: BehaviorBook): BehaviorAlarm[] {
  const wanted: BehaviorAlarm[] = [];
  for (const { key, behavior } of behaviorsOf(script)) {
    const state = { ...freshState(), ...book.states[key] };
    if (behavior.mode === "active" || state.paused) continue;
    if (state.retryAt !== null) wanted.push({ key, kind: "retry", attempt: state.attempt, at: state.retryAt });
    const trigger = behavior.trigger;
    if (trigger?.kind === "every")
      wanted.push({ key, kind: "every", seconds: Math.max(1, Math.round(trigger.ms / 1000)) });
    if (
      trigger?.kind === "on-idle" &&
      state.retryAt === null &&
      !(state.lastRunAt !== null && state.lastRunAt >= book.lastActivityAt)
    )
      wanted.push({ key, kind: "idle", at: wholeSecond(book.lastActivityAt + trigger.ms) });
  }
  return wanted;
}

/** SDK alarms keep whole seconds: a time rounded up never fires before it is due. */
export const wholeSecond = (ms: number) => Math.ceil(ms / 1000) * 1000;

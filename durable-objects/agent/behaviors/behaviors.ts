import { lowerPrincipal, type RunPrincipal } from "../../../core/auth";
import { missingInputKeys, type ActorScript, type Behavior, type ExprScope } from "../../../core/dsl";
import { PantheonError } from "../../../core/errors";
import type { Clock } from "../../../core/ports";
import type { RunLimits } from "../../../core/run";
import { cronMatches, defaultRetryMax, nextCronAt, retryDelayMs } from "../../../core/schedule";
import { chooseForMessage } from "../../../core/behaviors";
import { goalText } from "./plan";
import type { AgentAlarms, AlarmCallback } from "../host";
import {
  behaviorsOf,
  wantedAlarms,
  wholeSecond,
  type BehaviorAlarm,
  type BehaviorBookStore,
  type FoundBehavior,
} from "./state";
import type { Emit } from "../chat/live";
import type { RunOutcome } from "../runs/driver";

/**
 * How a behavior run differs from a person's turn: its trigger, and for a deterministic plan the
 * behavior and the values it was evaluated with (kept in the run's record, so the plan is rebuilt
 * after a restart and goes on where it was).
 */
export interface BehaviorRun {
  trigger: string;
  /**
   * The request is the goal itself, said by no one (a schedule, an idle time, a tick): it is the run's
   * request to the model and in its trace, never stored in the session's history as a person's message.
   * Absent when a person's message set the run off: that message is the request, in their own words.
   */
  unsaid?: true;
  /** The goal as evaluated, and the input keys it read that were absent (for the trace). */
  goal?: { text: string; missingInput?: string[] };
  behavior?: { key: string; scope: Record<string, unknown> };
}

export interface BehaviorDeps {
  book: BehaviorBookStore;
  clock: Clock;
  /** The agent's alarms (`onBehaviorAlarm`, one per interval, time or retry). */
  alarms: Pick<AgentAlarms, "list" | "every" | "at" | "cancel">;
  /** The agent's current script, or null (no script, or the agent is not configured). */
  script(): ActorScript | null;
  agent(): string;
  /** The session a run goes to (the default one when `session` is absent). */
  sessionId(session?: string): string;
  /** Starts runs (runs/begin.ts): a behavior's run is a normal run (traced, gated) of its goal, driven until it settles. */
  runs: {
    behaviorTurn(
      input: { content: string; session: string; name?: string; limits?: Partial<RunLimits>; principal: RunPrincipal },
      sink: Emit,
      behavior: BehaviorRun,
    ): Promise<RunOutcome>;
  };
  /** The agent's standing goals (its profile's, which its script may set): what a tick works toward. */
  goals(): string[];
  /** Who configured the script (the registry records it): a behavior's run acts with these rights. */
  configurer(): RunPrincipal;
  /** The agent is working (a run with work in flight): passive behaviors wait for it to be idle. */
  busy(): boolean;
}

/** How long a passive behavior that found the agent busy waits before it looks again. */
export const passiveDeferMs = 30_000;

export interface ScheduleView {
  talent: string;
  behavior: string;
  mode: Behavior["mode"];
  /** `message`, `every 1h`, `cron 0 7 * * 1-5`, `on-idle 2h`, or `none`. */
  trigger: string;
  nextRunAt: number | null;
  paused: boolean;
  lastRunAt: number | null;
  lastStatus: string | null;
  failures: number;
  lastError: string | null;
  retryAt: number | null;
}

const callback: AlarmCallback = "onBehaviorAlarm";
const minuteMs = 60_000;

function triggerText(b: Behavior): string {
  if (b.mode === "active") return "message";
  const t = b.trigger;
  if (!t) return "none";
  return t.kind === "every" ? `every ${t.every}` : t.kind === "cron" ? `cron ${t.cron}` : `on-idle ${t.idle}`;
}

/**
 * An agent's behaviors: active ones run on each message, passive and persistent ones on the
 * agent's own alarms (agents SDK) and on the worker's Cron Trigger. Scheduling is a reconcile of
 * the alarms the script wants against the alarms that exist, so setting the same script twice or
 * restarting the agent never duplicates an alarm and always re-arms a missing one.
 * @example
 * const behaviors = makeBehaviors({ book, clock, alarms: host.alarms, script, agent, sessionId, runs, goals, configurer, busy });
 * await behaviors.reconcile(); // in onStart and after every configure
 */
export function makeBehaviors(deps: BehaviorDeps) {
  const { book, clock } = deps;
  const scheduler = deps.alarms;
  /** Behaviors with a scheduled run under way in this instance (an eviction ends the run's drive too). */
  const firing = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  /** One reconcile at a time: two interleaved ones could each add the same missing alarm. */
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = queue.then(fn, fn);
    queue = next.catch(() => {});
    return next;
  }

  function reconcile(firingId?: string): Promise<void> {
    return serial(async () => {
      const script = deps.script();
      book.prune(behaviorsOf(script).map((b) => b.key));
      const wanted = new Map(wantedAlarms(script, book.load()).map((alarm) => [JSON.stringify(alarm), alarm]));
      const kept = new Set<string>();
      for (const s of await scheduler.list()) {
        if (s.callback !== callback || s.id === firingId) continue;
        const id = JSON.stringify(s.payload);
        if (wanted.has(id) && !kept.has(id)) kept.add(id);
        else await scheduler.cancel(s.id);
      }
      for (const [id, alarm] of wanted) {
        if (kept.has(id)) continue;
        if (alarm.kind === "every")
          await scheduler.every(alarm.seconds, callback, alarm, { retry: { maxAttempts: 1 } });
        else await scheduler.at(new Date(alarm.at), callback, alarm, { retry: { maxAttempts: 1 }, idempotent: true });
      }
    });
  }

  function find(key: string): FoundBehavior | undefined {
    return behaviorsOf(deps.script()).find((b) => b.key === key);
  }

  /** One run of a behavior: its goal becomes the run's request; a deterministic plan stands in for the model. */
  /**
   * A scheduled behavior acts for its script's configurer; one a person's message set off, for the
   * lower of the two (the message is that person's, the script the configurer's).
   */
  async function runBehavior(
    found: FoundBehavior,
    input: unknown,
    options: {
      session?: string;
      sink?: Emit;
      limits?: Partial<RunLimits>;
      caller?: RunPrincipal;
      said?: { content: string; name?: string };
      runId?: string;
    } = {},
  ): Promise<RunOutcome> {
    const { behavior } = found;
    const principal = options.caller ? lowerPrincipal(options.caller, deps.configurer()) : deps.configurer();
    const sessionId = deps.sessionId(options.session);
    const scope = {
      input,
      ctx: { agent: deps.agent(), talent: found.talent, behavior: behavior.name, session: sessionId, now: clock.now() },
    };
    const planned = behavior.plan.steps.some((step) => step.kind !== "think");
    const text = goalText(behavior, scope as ExprScope);
    const missingInput = missingInputKeys(behavior.goal, scope as ExprScope);
    // A person's message is the request in their words; the goal goes to the run's context and trace.
    const said = options.said;
    return deps.runs.behaviorTurn(
      {
        content: said?.content ?? text,
        session: sessionId,
        principal,
        ...(said?.name ? { name: said.name } : {}),
        ...(options.limits ? { limits: options.limits } : {}),
        ...(options.runId ? { runId: options.runId } : {}),
      },
      options.sink ?? (() => {}),
      {
        trigger: `behavior:${found.key}`,
        ...(said ? {} : { unsaid: true as const }),
        goal: { text, ...(missingInput.length ? { missingInput } : {}) },
        ...(planned ? { behavior: { key: found.key, scope } } : {}),
      },
    );
  }

  /** A scheduled run with the behavior's retry policy: failures retry with backoff, then give up and say so. */
  async function execute(
    found: FoundBehavior,
    firingId: string | undefined,
    trigger: string,
  ): Promise<RunOutcome | null> {
    const startedAt = clock.now();
    // Marked before the first wait: a second call for the same alarm sees it and runs nothing.
    firing.add(found.key);
    book.update(found.key, { lastRunAt: startedAt, lastStatus: "running" });
    let outcome: RunOutcome | { status: "failed"; error: string; runId: null };
    try {
      // The input its trigger declares, beside what the run itself says: which trigger, and when.
      outcome = await runBehavior(found, { ...found.behavior.input, trigger, at: startedAt });
    } catch (error) {
      outcome = { status: "failed", error: error instanceof Error ? error.message : String(error), runId: null };
    } finally {
      firing.delete(found.key);
    }
    const state = book.state(found.key);
    if (outcome.status === "failed") {
      const attempt = state.attempt + 1;
      const max = found.behavior.retry?.max ?? defaultRetryMax;
      const retry = attempt <= max;
      book.update(found.key, {
        failures: state.failures + 1,
        lastError: outcome.error ?? "the run failed",
        lastRunId: outcome.runId,
        attempt: retry ? attempt : 0,
        retryAt: retry ? wholeSecond(clock.now() + retryDelayMs(attempt)) : null,
        lastStatus: retry ? "retrying" : "failed",
      });
    } else {
      book.update(found.key, {
        failures: 0,
        attempt: 0,
        retryAt: null,
        lastError: null,
        lastRunId: outcome.runId,
        lastStatus: outcome.status,
      });
    }
    await reconcile(firingId);
    return "userMessage" in outcome ? outcome : null;
  }

  /**
   * Passive behaviors run only while the agent is idle: one that comes due while a run has work in
   * flight waits (a retry alarm of the same attempt, `lastStatus` "deferred") and looks again.
   * Persistent ones run on their trigger either way.
   */
  function defer(found: FoundBehavior): boolean {
    if (found.behavior.mode !== "passive" || !deps.busy()) return false;
    book.update(found.key, { retryAt: wholeSecond(clock.now() + passiveDeferMs), lastStatus: "deferred" });
    return true;
  }

  /** What will run when. */
  async function list(): Promise<ScheduleView[]> {
    const alarms = (await scheduler.list()).filter((s) => s.callback === callback);
    const now = clock.now();
    return behaviorsOf(deps.script()).map(({ key, talent, behavior }) => {
      const state = book.state(key);
      const times = alarms.filter((s) => (s.payload as BehaviorAlarm).key === key).map((s) => s.time * 1000);
      if (behavior.trigger?.kind === "cron" && behavior.mode !== "active")
        times.push(nextCronAt(behavior.trigger.cron, now) ?? Infinity);
      if (state.retryAt !== null) times.push(state.retryAt);
      const next = Math.min(...times);
      return {
        talent,
        behavior: behavior.name,
        mode: behavior.mode,
        trigger: triggerText(behavior),
        nextRunAt: state.paused || behavior.mode === "active" || !Number.isFinite(next) ? null : next,
        paused: state.paused,
        lastRunAt: state.lastRunAt,
        lastStatus: state.lastStatus,
        failures: state.failures,
        lastError: state.lastError,
        retryAt: state.retryAt,
      };
    });
  }

  return {
    reconcile: () => reconcile(),
    /**
     * The alarm callback: an interval tick, an idle time reached, or a retry due. The SDK may call it
     * twice for one alarm (a second alarm invocation while the first is still running its callback, or
     * a re-delivery after an eviction): an idle behavior runs once per idle stretch (its persisted mark,
     * `lastRunAt` at or after the last activity, is written before any wait), and no behavior runs twice at once.
     */
    async onAlarm(alarm: BehaviorAlarm, firingId?: string): Promise<void> {
      const found = find(alarm.key);
      const state = book.state(alarm.key);
      const trigger = found?.behavior.trigger;
      const lastActivityAt = book.load().lastActivityAt;
      const current =
        found &&
        !state.paused &&
        !firing.has(alarm.key) &&
        (alarm.kind === "every"
          ? trigger?.kind === "every" && state.retryAt === null
          : alarm.kind === "idle"
            ? trigger?.kind === "on-idle" &&
              state.retryAt === null &&
              clock.now() + 1000 >= lastActivityAt + trigger.ms &&
              !(state.lastRunAt !== null && state.lastRunAt >= lastActivityAt)
            : state.retryAt !== null && state.attempt === alarm.attempt);
      if (!found || !current) return reconcile(firingId);
      if (defer(found)) return reconcile(firingId);
      if (alarm.kind === "retry") book.update(alarm.key, { retryAt: null });
      await execute(found, firingId, alarm.kind === "retry" ? "retry" : trigger!.kind);
    },

    /** The worker's Cron Trigger: runs the cron behaviors due in the minute of `at`, each at most once per minute. */
    async onCron(at: number): Promise<string[]> {
      const minute = Math.floor(at / minuteMs);
      const ran: string[] = [];
      for (const found of behaviorsOf(deps.script())) {
        const trigger = found.behavior.trigger;
        if (found.behavior.mode === "active" || trigger?.kind !== "cron" || !cronMatches(trigger.cron, at)) continue;
        const state = book.state(found.key);
        if (state.paused || state.retryAt !== null || state.lastCronMinute === minute) continue;
        book.update(found.key, { lastCronMinute: minute });
        if (defer(found)) {
          await reconcile();
          continue;
        }
        await execute(found, undefined, "cron");
        ran.push(found.key);
      }
      return ran;
    },

    /** A person's message arrived at `at` (on-idle behaviors count idleness from the last one). */
    noteMessage(at: number): void {
      book.touch(at);
    },

    /**
     * A person's message goes to one behavior: the active or persistent one whose `:when` matches it
     * with the highest `:priority` (core/behaviors chooseForMessage). Null when none does, so the turn
     * is the agent's plain chat. The activity is noted (`noteMessage`) at once only when an on-idle
     * behavior counts from it; otherwise the turn notes it with its reply, since a write before the
     * turn's model call holds that call until it commits (runs/held-writes.ts).
     */
    async onMessage(
      input: {
        content: string;
        input?: Record<string, unknown>;
        session?: string;
        name?: string;
        limits?: Partial<RunLimits>;
        principal: RunPrincipal;
        /** The run's id when the message names it (a client id's run, runs/once.ts). */
        runId?: string;
      },
      sink: Emit,
    ): Promise<RunOutcome | null> {
      const all = behaviorsOf(deps.script());
      if (all.length === 0) return null;
      if (all.some((b) => b.behavior.trigger?.kind === "on-idle")) {
        book.touch(clock.now());
        await reconcile();
      }
      const states = book.load().states;
      const chosen =
        all[
          chooseForMessage(
            all.map((b) => ({ ...b.behavior, paused: states[b.key]?.paused === true })),
            { text: input.content, ...(input.input ? { input: input.input } : {}) },
          )
        ];
      if (!chosen) return null;
      // Behaviors read the message as `(get input "text")` and a structured input's fields beside it.
      const said = { content: input.content, ...(input.name ? { name: input.name } : {}) };
      const outcome = await runBehavior(
        chosen,
        { ...input.input, text: input.content },
        {
          ...(input.session ? { session: input.session } : {}),
          sink,
          caller: input.principal,
          said,
          ...(input.limits ? { limits: input.limits } : {}),
          ...(input.runId ? { runId: input.runId } : {}),
        },
      );
      book.update(chosen.key, { lastRunAt: clock.now(), lastStatus: outcome.status, lastRunId: outcome.runId });
      return outcome;
    },

    /**
     * One run toward the agent's standing goals (`pantheon agents tick`): the goals are its request
     * and in its context, said by no one, so nothing enters the history but the agent's own reply.
     * It acts for whoever asked for the tick, as their own message would.
     */
    async tick(principal: RunPrincipal, session?: string): Promise<RunOutcome> {
      const goals = deps.goals();
      if (goals.length === 0)
        throw new PantheonError("validation_failed", "this agent has no standing goals to work toward", {
          details: {
            issues: [
              {
                path: ["goals"],
                message:
                  'set goals first: PATCH /api/agents/<name> {"goals": ["…"]}, (goals "…") in its script, or pantheon agents create --goal',
              },
            ],
          },
        });
      const text = `Take the next step toward your standing goals:\n${goals.map((g) => `- ${g}`).join("\n")}`;
      return deps.runs.behaviorTurn({ content: text, session: deps.sessionId(session), principal }, () => {}, {
        trigger: "tick",
        unsaid: true,
        goal: { text: goals.join("; ") },
      });
    },

    list,

    /** Pauses or resumes a behavior by name; a paused behavior keeps its state but has no alarm. */
    async setPaused(name: string, paused: boolean): Promise<ScheduleView> {
      const found = behaviorsOf(deps.script()).find((b) => b.behavior.name === name);
      if (!found)
        throw new PantheonError("not_found", `behavior '${name}' does not exist in this agent's script`, {
          details: { behavior: name },
        });
      book.update(found.key, paused ? { paused: true, retryAt: null, attempt: 0 } : { paused: false });
      await reconcile();
      const view = (await list()).find((v) => v.talent === found.talent && v.behavior === name);
      return view!;
    },
  };
}

export type Behaviors = ReturnType<typeof makeBehaviors>;

import type { RunPrincipal } from "../../../core/auth";
import { afterFailure, ttlEndsAt, type SupervisePolicy } from "../../../core/behaviors";
import type { Clock } from "../../../core/ports";

/** What a parent keeps about one supervised child, per asking call (persisted: an eviction keeps it). */
export interface SupervisedChild {
  runId: string;
  callId: string;
  child: string;
  goal: string;
  policy: SupervisePolicy;
  /** Failed runs toward the goal so far. */
  failures: number;
  spawnedAt: number;
  principal?: RunPrincipal;
  /** The failure count whose restart was carried out: an alarm delivered twice restarts once. */
  restarted?: number;
  /** When the pending restart is due (set with the failure count, before its alarm is armed). */
  restartAt?: number;
}

/** The payload of the supervisor's alarm (`onChildAlarm`): a restart due, or a time to live ended. */
export interface ChildAlarm {
  runId: string;
  callId: string;
  kind: "restart" | "ttl";
  /** A restart's number (the failure count it answers): each restart has an alarm of its own. */
  attempt?: number;
}

export interface SupervisorDeps {
  /** The object's synchronous key-value storage (ctx.storage.kv): a record is written before anything waits. */
  kv: {
    get<T>(key: string): T | undefined;
    put(key: string, value: unknown): void;
    delete(key: string): unknown;
    list<T>(options: { prefix: string }): Iterable<[string, T]>;
  };
  clock: Clock;
  trace(runId: string, name: string, data: Record<string, unknown>): void;
  /** Asks the child its goal again, for the same waiting call. */
  ask(child: SupervisedChild): Promise<void>;
  /** Hands the answer or error on to the waiting run (the call's outcome). */
  hand(replyTo: { runId: string; callId: string }, from: string, reply: { answer?: string; error?: string }): void;
  /** Arms the supervisor's alarm at `at`. */
  arm(at: number, alarm: ChildAlarm): Promise<unknown>;
  /** Archives the child (registry): it leaves the graph; its history stays readable. */
  archive(child: string): Promise<unknown>;
  /** Whether the run that asked still waits for this call (not cancelled, not finished). */
  waiting(runId: string): boolean;
  /** Gives up the call's pending question: settled, and a cancel sent to the child (its run stops). */
  abandon(runId: string, callId: string, reason: string): Promise<unknown>;
}

const keyOf = (runId: string, callId: string) => `supervise:${runId}:${callId}`;

/**
 * A parent's supervision of the children it spawns, as named at the spawn site (core/behaviors
 * supervision.ts): a failed run toward the goal is started again after the backoff while the policy
 * allows it, the restart limit and time to live are kept, and a child whose goal is done is archived
 * when the policy says so. Every decision is a trace step on the parent's run.
 * @example
 * const supervisor = makeSupervisor({ kv: ctx.storage.kv, clock, trace, ask, hand, arm, archive, waiting });
 * supervisor.watch({ runId, callId, child: "scout", goal: "…", policy, failures: 0, spawnedAt: now });
 * if (supervisor.onReply(replyTo, from, reply)) return; // it restarts the child, or hands the reply on itself
 */
export function makeSupervisor(deps: SupervisorDeps) {
  const background = (work: Promise<unknown>) =>
    void work.catch((error: unknown) => console.error("supervisor", error));

  function finish(
    record: SupervisedChild,
    from: string,
    reply: { answer?: string; error?: string },
    archive: boolean,
  ): void {
    deps.kv.delete(keyOf(record.runId, record.callId));
    deps.hand({ runId: record.runId, callId: record.callId }, from, reply);
    if (!archive) return;
    deps.trace(record.runId, "child_archived", { callId: record.callId, child: record.child });
    background(deps.archive(record.child));
  }

  return {
    /** Starts supervising a child just asked its goal (nothing to keep for a child with the default policy). */
    async watch(record: SupervisedChild): Promise<void> {
      if (record.policy.restart === "never" && record.policy.onDone === "keep" && !record.policy.ttl) return;
      deps.kv.put(keyOf(record.runId, record.callId), record);
      deps.trace(record.runId, "child_supervised", {
        callId: record.callId,
        child: record.child,
        policy: record.policy,
      });
      const ends = ttlEndsAt(record.policy, record.spawnedAt);
      if (ends !== null) await deps.arm(ends, { runId: record.runId, callId: record.callId, kind: "ttl" });
    },

    /**
     * The child answered (or failed) the call: true when the supervisor took the reply (a restart is
     * armed, or it handed the reply on itself); false for a call it does not supervise.
     */
    onReply(
      replyTo: { runId: string; callId: string },
      from: string,
      reply: { answer?: string; error?: string },
    ): boolean {
      const record = deps.kv.get<SupervisedChild>(keyOf(replyTo.runId, replyTo.callId));
      if (!record) return false;
      if (reply.error === undefined) {
        deps.trace(record.runId, "child_done", {
          callId: record.callId,
          child: record.child,
          restarts: record.failures,
        });
        finish(record, from, reply, record.policy.onDone === "archive");
        return true;
      }
      const failures = record.failures + 1;
      const decision = afterFailure(record.policy, { failures, now: deps.clock.now(), spawnedAt: record.spawnedAt });
      if (!decision.restart) {
        deps.trace(record.runId, "child_not_restarted", {
          callId: record.callId,
          child: record.child,
          failures,
          maxRestarts: record.policy.maxRestarts,
          reason: decision.reason,
          error: reply.error,
        });
        finish(record, from, { error: `${reply.error} (not restarted: ${decision.reason})` }, false);
        return true;
      }
      // The count is written before the alarm is armed: a repeated failure report never restarts twice.
      deps.kv.put(keyOf(record.runId, record.callId), { ...record, failures, restartAt: decision.at });
      deps.trace(record.runId, "child_restart_scheduled", {
        callId: record.callId,
        child: record.child,
        restart: decision.attempt,
        maxRestarts: record.policy.maxRestarts,
        at: decision.at,
        error: reply.error,
      });
      background(
        deps.arm(decision.at, { runId: record.runId, callId: record.callId, kind: "restart", attempt: failures }),
      );
      return true;
    },

    /**
     * On start: the alarms of every record are armed again (an eviction between writing a record and
     * arming its alarm lost none; an alarm armed twice acts once: `restarted`, and a gone record).
     */
    async recover(): Promise<void> {
      for (const [, record] of deps.kv.list<SupervisedChild>({ prefix: "supervise:" })) {
        const ends = ttlEndsAt(record.policy, record.spawnedAt);
        if (ends !== null) await deps.arm(ends, { runId: record.runId, callId: record.callId, kind: "ttl" });
        if (record.restartAt !== undefined && record.restarted !== record.failures)
          await deps.arm(record.restartAt, {
            runId: record.runId,
            callId: record.callId,
            kind: "restart",
            attempt: record.failures,
          });
      }
    },

    /** The supervisor's alarm: a restart is due, or the child's time to live ended. */
    async onAlarm(alarm: ChildAlarm): Promise<void> {
      const record = deps.kv.get<SupervisedChild>(keyOf(alarm.runId, alarm.callId));
      if (!record) return;
      if (!deps.waiting(record.runId)) {
        deps.kv.delete(keyOf(record.runId, record.callId));
        return;
      }
      if (alarm.kind === "ttl") {
        deps.trace(record.runId, "child_ttl_ended", {
          callId: record.callId,
          child: record.child,
          ttl: record.policy.ttl,
        });
        await deps.abandon(
          record.runId,
          record.callId,
          `agent '${record.child}' reached the end of its time to live (${record.policy.ttl})`,
        );
        finish(
          record,
          record.child,
          { error: `agent '${record.child}' did not reach its goal within its time to live (${record.policy.ttl})` },
          true,
        );
        return;
      }
      if (record.restarted === record.failures || (alarm.attempt !== undefined && alarm.attempt !== record.failures))
        return;
      deps.kv.put(keyOf(record.runId, record.callId), { ...record, restarted: record.failures });
      deps.trace(record.runId, "child_restarted", {
        callId: record.callId,
        child: record.child,
        restart: record.failures,
        maxRestarts: record.policy.maxRestarts,
      });
      await deps.ask(record);
    },
  };
}

export type Supervisor = ReturnType<typeof makeSupervisor>;

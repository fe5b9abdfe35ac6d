import type { Scope } from "../../../core/auth";
import { approverRefusal } from "../../../core/gates";
import {
  advance,
  isTerminal,
  newRunState,
  recoverRun,
  runDeadline,
  type RunEffect,
  type RunEvent as CoreEvent,
  type RunState,
} from "../../../core/run";
import { PantheonError } from "../../../core/errors";
import type { Emit, RunEvent } from "../chat/live";
import type { StoredMessage } from "../chat/messages";
import { makeRunEffects } from "./effects";
import type { RunSummary } from "./store";
import type { DriverDeps, NewRunInput, RunContext, RunOutcome, RunPeers } from "./contracts";
export type { DriverDeps, NewRunInput, RunContext, RunOutcome, RunPeers, TurnOutcome } from "./contracts";
/** Statuses with work to carry on after a restart (a run waiting for a person needs none). */
const recoverable = new Set(["idle", "running", "waiting_tool", "waiting_agent"]);

/**
 * Carries out the pure run loop's effects (core/run `advance`) against storage, the model, the
 * tools and the bus. A run is first created (its record and its request, in one transaction), then
 * driven; after an eviction the same drive continues it from the record — one path for start and
 * resume. State is persisted on every `persist` effect, before anything leaves the object but a
 * starting run's first model request, which its writes follow (held-writes.ts).
 */
export function makeRunDriver(deps: DriverDeps) {
  const { runs, messages, clock } = deps;
  /** In-process copy of each live run's latest state; storage is the truth after a restart. */
  const live = new Map<string, RunState>();
  const contexts = new Map<string, Promise<RunContext>>();
  const sinks = new Map<string, Emit>();
  const replies = new Map<string, StoredMessage>();
  /** Runs being carried on after a restart in this isolate: never two drives of one recovery. */
  const recovering = new Map<string, Promise<unknown>>();

  /** A starting run's writes wait for its model request to leave (held-writes.ts says why). */
  const { writes } = deps;
  const { write, release, writeSteps } = writes;
  /** The bus, attached after it is built on the driver (RunPeers says why this relation goes both ways). */
  let peers: RunPeers | undefined;
  /** Drives under way in this instance: a deletion waits for them before it wipes storage. */
  const inFlight = new Set<Promise<unknown>>();

  function emit(runId: string, event: RunEvent): void {
    write(runId, () => {
      sinks.get(runId)?.(event);
      deps.events.publish(event, runId);
    });
  }

  /** What the loop's outward effects do: the model, the tools, the bus, the trace (effects.ts). */
  const effects = makeRunEffects({
    clock,
    writes,
    buckets: deps.buckets,
    contexts: deps.contexts,
    emit,
    peers: () => peers,
  });
  const { carryOut, writeTrace, runDeps } = effects;

  function latest(runId: string): RunState | null {
    return live.get(runId) ?? (runs.get(runId)?.state as RunState | undefined) ?? null;
  }

  function contextOf(state: RunState): Promise<RunContext> {
    let ctx = contexts.get(state.id);
    if (!ctx) {
      ctx = deps.contexts.prepare(state);
      contexts.set(state.id, ctx);
      ctx.catch(() => contexts.delete(state.id));
    }
    return ctx;
  }

  function persist(state: RunState): void {
    if (writes.isHeld(state.id)) return write(state.id, () => persist(state));
    runs.save(state.id, {
      status: state.status,
      state,
      steps: state.step,
      tokens: state.usage.inputTokens + state.usage.outputTokens,
      error: state.error ?? null,
      finished: isTerminal(state),
    });
    // A run with work in flight is watched by the run watchdog, which also enforces its time limit
    // (`expired`): no alarm per run on the hot path. Only a wait for a person, which the watchdog
    // does not keep watching, gets an alarm of its own, and only when the agent set a limit.
    if (state.status === "waiting_approval") {
      const deadline = runDeadline(state);
      if (deadline !== undefined) void deps.alarms.armDeadline(state.id, deadline);
    }
  }

  function finish(state: RunState, effect: Extract<RunEffect, { type: "finish" }>): void {
    effects.abort(state.id, new Error(`run ${effect.status}`));
    let reply: StoredMessage | null = null;
    // A manual tool call is not a conversation turn: its output is the run's result, not a message.
    if (effect.reply !== undefined && effect.status === "completed" && !state.origin.manual) {
      reply = messages.append(state.sessionId, { role: "assistant", content: effect.reply, runId: state.id });
      replies.set(state.id, reply);
    }
    if (effect.error)
      emit(state.id, {
        type: "error",
        code: effect.status === "cancelled" ? "cancelled" : "run_failed",
        message: effect.error,
      });
    emit(state.id, { type: "status", status: effect.status });
    emit(state.id, { type: "done", runId: state.id, status: effect.status, reply });
  }

  /**
   * Feeds events through `advance` until the run settles (finished, or waiting on a person or an
   * agent). `continue` carries the run on from its record: it starts a created run, or redoes what
   * was in flight when the object was evicted.
   */
  async function loop(runId: string, first: CoreEvent | "continue"): Promise<RunState | null> {
    let state = latest(runId);
    if (!state) return null;
    let ctx = await contextOf(state);
    /**
     * The run's context again when a setting it was built from changed since (a secret, a grant, the
     * profile: its providers and caps): a run that waited for a person or carries on calls the model
     * and its tools with the values as they are now, never a deleted one.
     */
    const rebuilt = async (at: RunState): Promise<RunContext> => {
      contexts.delete(runId);
      ctx = await contextOf(at);
      return ctx;
    };
    if (!deps.contexts.isCurrent(ctx)) await rebuilt(state);
    const queue: CoreEvent[] = [];
    if (first !== "continue") queue.push(first);
    // Created and not started (now, or before an eviction): it begins with its context.
    else if (state.status === "idle") queue.push({ type: "begin" });
    else if (!isTerminal(state)) {
      const { effects, events } = recoverRun(state, ctx.tools.specs);
      runs.appendTrace({
        runId,
        kind: "state",
        name: "resumed",
        data: { status: state.status, step: state.step, redo: effects.map((e) => e.type), interrupted: events.length },
        startedAt: clock.now(),
        durationMs: 0,
      });
      queue.push(...events);
      for (const effect of effects) {
        const next = await carryOut(state, deps.contexts.isCurrent(ctx) ? ctx : await rebuilt(state), effect);
        if (next) queue.push(next);
      }
    }
    while (queue.length && state) {
      const event = queue.shift()!;
      state = latest(runId) ?? state;
      if (!deps.contexts.isCurrent(ctx)) await rebuilt(state);
      const result = advance(state, event, runDeps(ctx));
      state = result.state;
      live.set(runId, state);
      for (const effect of result.effects) {
        switch (effect.type) {
          case "trace":
            writeTrace(state, ctx, effect);
            break;
          case "save_bucket":
            write(runId, () => deps.buckets.save(effect.key, effect.bucket));
            break;
          case "persist":
            persist(state);
            break;
          case "finish":
            release(runId);
            finish(state, effect);
            break;
          case "answer_peer":
            release(runId);
            peers?.answer(runId, effect.status);
            break;
          case "publish":
            emit(runId, { type: "status", status: effect.status });
            break;
          case "release_tokens":
            for (const text of effects.takeTokens(runId)) emit(runId, { type: "token", text });
            break;
          default: {
            // Only the context compile (it reads) and the model call (it releases) go before the writes.
            if (effect.type !== "compile_context" && effect.type !== "call_model") release(runId);
            writeSteps();
            const next = await carryOut(state, deps.contexts.isCurrent(ctx) ? ctx : await rebuilt(state), effect);
            if (next) queue.push(next);
          }
        }
      }
      writeSteps();
      // Text of a model reply the run did not release (a refused reply) is dropped.
      if (event.type === "model_result" || event.type === "model_failed") effects.takeTokens(runId);
    }
    if (state && isTerminal(state)) {
      live.delete(runId);
      contexts.delete(runId);
      effects.forget(runId);
    }
    return state;
  }

  /** `loop`, durably: an eviction while it runs is recovered by the run watchdog's alarm (armed first). */
  async function drive(runId: string, first: CoreEvent | "continue"): Promise<RunState | null> {
    await deps.alarms.armWatchdog();
    const driving = loop(runId, first);
    inFlight.add(driving);
    try {
      return await driving;
    } finally {
      inFlight.delete(driving);
    }
  }

  function outcome(
    runId: string,
    sessionId: string,
    userMessage: StoredMessage | null,
    final: RunState | null,
  ): RunOutcome {
    const reply = replies.get(runId) ?? null;
    replies.delete(runId);
    return {
      runId,
      sessionId,
      status: final?.status ?? "failed",
      userMessage,
      reply,
      ...(final?.result !== undefined ? { result: final.result } : {}),
      ...(final?.error ? { error: final.error } : {}),
    };
  }

  /** Runs with work an eviction would cut off: created and not started, or with a call in flight. */
  function withWork() {
    return [...runs.byStatus("idle"), ...runs.active()].filter((row) => recoverable.has(row.status));
  }

  /**
   * Writes a run's record (and its request to the session, unless it is a manual call), in one
   * transaction; starts nothing. A held run writes them when its writes are released (held-writes.ts).
   */
  function create(input: NewRunInput): { runId: string; userMessage: StoredMessage | null } {
    const runId = input.runId ?? crypto.randomUUID();
    const state = newRunState({
      id: runId,
      agent: input.agent,
      sessionId: input.sessionId,
      limits: input.limits,
      origin: input.origin,
    });
    const request =
      input.origin.manual || input.origin.unsaid
        ? null
        : messages.draft(input.sessionId, {
            role: "user",
            content: input.origin.content,
            runId,
            ...(input.origin.name ? { name: input.origin.name } : {}),
            ...(input.origin.images ? { images: input.origin.images } : {}),
          });
    write(runId, () =>
      deps.transaction(() => {
        runs.create({
          id: runId,
          sessionId: input.sessionId,
          status: "idle",
          trigger: input.origin.trigger,
          state,
          ...(input.origin.principal ? { principal: input.origin.principal } : {}),
        });
        request?.write();
      }),
    );
    if (writes.isHeld(runId)) live.set(runId, state);
    return { runId, userMessage: request?.message ?? null };
  }

  return {
    create,

    /** Creates a run and drives it until it settles; the answer of a person's turn. */
    async start(input: NewRunInput & { sink?: Emit; ctx?: RunContext }): Promise<RunOutcome> {
      const id = input.runId ?? crypto.randomUUID();
      if (writes.isHeld(id) || live.has(id))
        throw new PantheonError("conflict", `run '${id}' already exists`, { details: { run: id } });
      writes.hold(id);
      const { runId, userMessage } = create({ ...input, runId: id });
      // The caller built the run's tools and model already: no second build for the same turn.
      if (input.ctx) contexts.set(runId, Promise.resolve(input.ctx));
      if (input.sink) sinks.set(runId, input.sink);
      emit(runId, { type: "run", runId, sessionId: input.sessionId, ...(userMessage ? { userMessage } : {}) });
      try {
        return outcome(runId, input.sessionId, userMessage, await drive(runId, "continue"));
      } finally {
        release(runId);
        sinks.delete(runId);
      }
    },

    /** Drives a run created earlier (by the bus, in the same transaction as its inbox mark). */
    async startCreated(runId: string): Promise<RunState | null> {
      const state = latest(runId);
      if (state?.status !== "idle" || recovering.has(runId)) return state;
      emit(runId, { type: "run", runId, sessionId: state.sessionId });
      return drive(runId, "continue");
    },

    /** Delivers an outside event (approval, cancel, an agent's answer, a deadline) to a run. */
    async deliver(runId: string, event: CoreEvent, sink?: Emit): Promise<RunState | null> {
      if (!latest(runId)) return null;
      if (event.type === "cancel") effects.abort(runId, new Error("cancelled"));
      if (sink) sinks.set(runId, sink);
      try {
        return await drive(runId, event);
      } finally {
        if (sink) sinks.delete(runId);
      }
    },
    /** Attaches the bus (RunPeers): once, when the agent is built. */
    attachPeers(bus: RunPeers): void {
      peers = bus;
    },
    /** Drives under way in this instance (a deletion waits for them). */
    drivesInFlight: (): Promise<unknown>[] => [...inFlight],

    /**
     * After a restart (the object woke for a request or its alarm): carries on every run that had
     * work in flight, or was created and not started. Returns at once; the runs go on in the background.
     */
    recover(): number {
      let count = 0;
      for (const row of withWork()) {
        if (live.has(row.id) || recovering.has(row.id)) continue;
        count += 1;
        const carried = drive(row.id, "continue")
          .catch((error: unknown) =>
            console.error(
              JSON.stringify({
                level: "error",
                message: "run recovery failed",
                runId: row.id,
                error: error instanceof Error ? error.message : String(error),
              }),
            ),
          )
          .finally(() => recovering.delete(row.id));
        recovering.set(row.id, carried);
      }
      return count;
    },

    /** Settles when every run being carried on after a restart has settled (an alarm waits for them). */
    async recovered(): Promise<void> {
      await Promise.all([...recovering.values()]);
    },

    /** Runs with work in flight past their time limit get `timeout` (the watchdog calls this). */
    async expired(): Promise<number> {
      const now = clock.now();
      let count = 0;
      for (const row of withWork()) {
        const state = latest(row.id);
        const deadline = state ? runDeadline(state) : undefined;
        if (deadline === undefined || deadline > now) continue;
        count += 1;
        await drive(row.id, { type: "timeout" });
      }
      return count;
    },

    /** Whether any run has work that an eviction would cut off (not counting waits for a person). */
    hasWorkInFlight(): boolean {
      return withWork().length > 0;
    },

    /**
     * A person's decision on a pending tool call. `by` and `scope` are the authenticated principal's:
     * the only source of an approval (nothing the model writes reaches this path). Approving needs
     * the scope the tool needs (an approve token cannot lend a call admin's rights); rejecting does not.
     */
    async decide(
      runId: string,
      decision: { approved: boolean; by: string; scope: Scope; callId?: string; reason?: string },
      sink?: Emit,
    ): Promise<RunState> {
      const state = latest(runId);
      if (!state) throw new PantheonError("not_found", `run '${runId}' does not exist`, { details: { run: runId } });
      if (state.status !== "waiting_approval") {
        throw new PantheonError("conflict", `run '${runId}' is not waiting for approval (it is ${state.status})`, {
          details: { run: runId, status: state.status },
        });
      }
      const pending = state.calls.filter((c) => c.status === "proposed").map((c) => c.call.id);
      const callId = decision.callId ?? (pending.length === 1 ? pending[0] : undefined);
      if (!callId || !pending.includes(callId)) {
        throw new PantheonError(
          "validation_failed",
          decision.callId
            ? `call '${decision.callId}' is not pending in this run`
            : "several calls are pending: name one with callId",
          {
            details: { issues: [{ path: ["callId"], message: `one of: ${pending.join(", ")}` }] },
          },
        );
      }
      const tool = state.calls.find((c) => c.call.id === callId)!.call.name;
      const refused = decision.approved
        ? approverRefusal(
            (await contextOf(state)).tools.specs.find((s) => s.name === tool) ?? { name: tool },
            decision.scope,
          )
        : undefined;
      if (refused)
        throw new PantheonError("forbidden", refused, { details: { run: runId, callId, tool, scope: decision.scope } });
      const event: CoreEvent = {
        type: "approval",
        callId,
        approved: decision.approved,
        by: decision.by,
        scope: decision.scope,
        ...(decision.reason ? { reason: decision.reason } : {}),
      };
      // A protocol adapter streams what the decision sets going (the tool's result, the reply).
      if (sink) sinks.set(runId, sink);
      try {
        return (await drive(runId, event)) ?? state;
      } finally {
        if (sink) sinks.delete(runId);
      }
    },

    /** Cancels a run that has not finished; in-flight model and tool calls are aborted. */
    async cancel(runId: string, by: string): Promise<RunState> {
      const state = latest(runId);
      if (!state) throw new PantheonError("not_found", `run '${runId}' does not exist`, { details: { run: runId } });
      if (isTerminal(state))
        throw new PantheonError("conflict", `run '${runId}' already ${state.status}`, {
          details: { run: runId, status: state.status },
        });
      effects.abort(runId, new Error("cancelled"));
      return (await drive(runId, { type: "cancel", reason: `cancelled by ${by}` })) ?? state;
    },

    /** Tool calls of runs waiting for a person. */
    pendingApprovals(): {
      runId: string;
      callId: string;
      tool: string;
      arguments: Record<string, unknown>;
      requestedAt: number;
      approverScope: Scope;
    }[] {
      return runs.byStatus("waiting_approval").flatMap((row) => {
        const state = (live.get(row.id) ?? row.state) as RunState;
        return state.calls
          .filter((c) => c.status === "proposed")
          .map((c) => ({
            runId: row.id,
            callId: c.call.id,
            tool: c.call.name,
            arguments: c.call.arguments,
            requestedAt: state.waitingSince ?? row.startedAt,
            approverScope: c.approverScope ?? "approve",
          }));
      });
    },

    latest,
    /** Runs this instance holds in memory (a starting run's record may not be written yet). */
    liveRunIds: (): string[] => [...live.keys()],
  };
}

export type RunDriver = ReturnType<typeof makeRunDriver>;
export type { RunSummary };

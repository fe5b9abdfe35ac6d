import type { AgentProfile } from "../../core/agents";
import { builtinGates, compileCustomGates, type Gate, type TokenBucket } from "../../core/gates";
import type { Clock, LlmPort, LlmResponse, Message } from "../../core/ports";
import {
  advance,
  defaultRunLimits,
  effectiveLimits,
  isTerminal,
  newRunState,
  resumeEffects,
  runDeadline,
  type RunDeps,
  type RunEffect,
  type RunEvent as CoreEvent,
  type RunLimits,
  type RunState,
  type TraceKind,
} from "../../core/run";
import { PantheonError } from "../../core/errors";
import { redactDeep } from "../../core/tools";
import type { Emit, RunEvent } from "./live";
import type { MessageStore, StoredMessage } from "./messages";
import type { RunStore, RunSummary } from "./runs";
import type { AgentTools } from "./tools";

/** What one run needs besides storage: the agent as it was when the run started or resumed. */
export interface RunContext {
  profile: AgentProfile;
  tools: AgentTools;
  llm: LlmPort;
  /** The compiled context (system prompt, memory, history) for a new run. */
  context: Message[];
}

export interface DriverDeps {
  runs: RunStore;
  messages: MessageStore;
  clock: Clock;
  buckets: { load(): Map<string, TokenBucket>; save(key: string, bucket: TokenBucket): void };
  /** Sends a run's event to every live client (WebSocket) of the agent. */
  broadcast(event: RunEvent, runId: string): void;
  /** Arms an alarm for a run's deadline (idempotent per run). */
  scheduleDeadline(runId: string, at: number): void;
  /** Sends a delegated question along a connection (the bus). */
  askAgent(request: { runId: string; callId: string; target: string; question: string }): Promise<void>;
  /** Rebuilds the context of a run reloaded after a restart. */
  contextFor(state: RunState): RunContext;
}

export interface StartRun {
  ctx: RunContext;
  sessionId: string;
  content: string;
  trigger: string;
  overrides?: Partial<RunLimits>;
  sink?: Emit;
  /** A caller that must know the run id before the run starts (the bus records it first). */
  runId?: string;
  /** Who wrote the message, when it is not the person (an asking agent). */
  name?: string;
}

export interface RunOutcome {
  runId: string;
  sessionId: string;
  status: string;
  userMessage: StoredMessage;
  reply: StoredMessage | null;
  error?: string;
}

const traceCategory: Record<TraceKind, string> = {
  run_started: "state",
  model_called: "model",
  model_result: "model",
  gate_decisions: "gate",
  tool_call: "tool",
  tool_result: "tool",
  approval_requested: "state",
  approval: "state",
  agent_response: "message",
  run_finished: "state",
  event_ignored: "state",
};

/**
 * Carries out the pure run loop's effects (core/run `advance`) against storage, the model, the
 * tools and the bus. State is persisted on every `persist` effect, before anything leaves the
 * object, so a run whose Durable Object dies between steps resumes without repeating finished work.
 */
export function makeRunDriver(deps: DriverDeps) {
  const { runs, messages, clock } = deps;
  /** In-process copy of each live run's latest state; storage is the truth after a restart. */
  const live = new Map<string, RunState>();
  const contexts = new Map<string, RunContext>();
  const sinks = new Map<string, Emit>();
  const aborts = new Map<string, AbortController>();
  const timings = new Map<string, { startedAt: number; durationMs: number }>();
  const replies = new Map<string, StoredMessage>();

  function emit(runId: string, event: RunEvent): void {
    sinks.get(runId)?.(event);
    deps.broadcast(event, runId);
  }

  function latest(runId: string): RunState | null {
    return live.get(runId) ?? ((runs.get(runId)?.state as RunState | undefined) ?? null);
  }

  function contextOf(state: RunState): RunContext {
    let ctx = contexts.get(state.id);
    if (!ctx) {
      ctx = deps.contextFor(state);
      contexts.set(state.id, ctx);
    }
    return ctx;
  }

  /** Compiled once per run context, not on every event (custom gates compile regular expressions). */
  const gatesOf = new WeakMap<RunContext, Gate[]>();

  function runDeps(ctx: RunContext): RunDeps {
    let gates = gatesOf.get(ctx);
    if (!gates) {
      gates = [...builtinGates(), ...compileCustomGates(ctx.profile.runtime.gates)];
      gatesOf.set(ctx, gates);
    }
    const rateLimits = ctx.profile.runtime.rateLimits;
    return {
      now: clock.now(),
      tools: ctx.tools.specs,
      gates,
      rateLimits,
      // Buckets are read from SQLite only for an agent that has rate limits.
      ...(Object.keys(rateLimits).length > 0 ? { buckets: deps.buckets.load() } : {}),
    };
  }

  async function callModel(state: RunState, ctx: RunContext, effect: Extract<RunEffect, { type: "call_model" }>): Promise<CoreEvent> {
    const controller = aborts.get(state.id) ?? new AbortController();
    aborts.set(state.id, controller);
    const startedAt = clock.now();
    try {
      let response: LlmResponse | undefined;
      const request = {
        model: ctx.profile.model.name,
        messages: effect.messages,
        ...(effect.tools.length ? { tools: effect.tools } : {}),
        ...(ctx.profile.model.temperature !== undefined ? { temperature: ctx.profile.model.temperature } : {}),
        ...(ctx.profile.model.maxTokens !== undefined ? { maxTokens: ctx.profile.model.maxTokens } : {}),
        signal: controller.signal,
      };
      for await (const event of ctx.llm.stream(request)) {
        if (event.type === "token") emit(state.id, { type: "token", text: event.text });
        if (event.type === "done") response = event.response;
      }
      if (!response) throw new Error("the model's stream ended without a final response");
      return { type: "model_result", response };
    } catch (error) {
      return { type: "model_failed", error: error instanceof Error ? error.message : String(error) };
    } finally {
      timings.set(`${state.id}:model`, { startedAt, durationMs: clock.now() - startedAt });
    }
  }

  async function callTool(state: RunState, ctx: RunContext, effect: Extract<RunEffect, { type: "call_tool" }>): Promise<CoreEvent> {
    const controller = aborts.get(state.id) ?? new AbortController();
    aborts.set(state.id, controller);
    const { call } = effect;
    emit(state.id, { type: "tool_call", callId: call.id, name: call.name, arguments: redactDeep(call.arguments, Object.values(ctx.tools.secrets)) });
    const startedAt = clock.now();
    const outcome = await ctx.tools.registry.invoke(call.name, call.arguments, {
      signal: controller.signal,
      timeoutMs: effect.timeoutMs ?? state.limits.toolTimeoutMs,
      secrets: ctx.tools.secrets,
    });
    const ms = clock.now() - startedAt;
    timings.set(`${state.id}:tool:${call.id}`, { startedAt, durationMs: ms });
    emit(state.id, outcome.ok ? { type: "tool_result", callId: call.id, name: call.name, ok: true, output: outcome.output, ms } : { type: "tool_result", callId: call.id, name: call.name, ok: false, error: outcome.error.message, ms });
    return outcome.ok ? { type: "tool_result", callId: call.id, output: outcome.output } : { type: "tool_failed", callId: call.id, error: outcome.error.message };
  }

  function writeTrace(state: RunState, ctx: RunContext, effect: Extract<RunEffect, { type: "trace" }>): void {
    const data = redactDeep(effect.data, Object.values(ctx.tools.secrets)) as Record<string, unknown>;
    let timing = { startedAt: clock.now(), durationMs: 0 };
    if (effect.kind === "model_result") timing = timings.get(`${state.id}:model`) ?? timing;
    if (effect.kind === "tool_result" && typeof data.callId === "string") timing = timings.get(`${state.id}:tool:${data.callId}`) ?? timing;
    runs.appendTrace({ runId: state.id, kind: traceCategory[effect.kind], name: effect.kind, data, ...timing });
    if (effect.kind === "gate_decisions" && Array.isArray(data.decisions)) {
      for (const record of data.decisions as { gate: string; decision: { allow: boolean; reason?: string } }[]) {
        emit(state.id, { type: "gate", callId: String(data.callId), gate: record.gate, allow: record.decision.allow, ...(record.decision.reason ? { reason: record.decision.reason } : {}) });
      }
    }
  }

  function persist(state: RunState): void {
    runs.save(state.id, {
      status: state.status,
      state,
      steps: state.step,
      tokens: state.usage.inputTokens + state.usage.outputTokens,
      error: state.error ?? null,
      finished: isTerminal(state),
    });
    const deadline = runDeadline(state);
    if (deadline !== undefined) deps.scheduleDeadline(state.id, deadline);
  }

  function finish(state: RunState, effect: Extract<RunEffect, { type: "finish" }>): void {
    aborts.get(state.id)?.abort(new Error(`run ${effect.status}`));
    let reply: StoredMessage | null = null;
    if (effect.reply !== undefined && effect.status === "completed") {
      reply = messages.append(state.sessionId, { role: "assistant", content: effect.reply, runId: state.id });
      replies.set(state.id, reply);
    }
    if (effect.error) emit(state.id, { type: "error", code: effect.status === "cancelled" ? "cancelled" : "run_failed", message: effect.error });
    emit(state.id, { type: "status", status: effect.status });
    emit(state.id, { type: "done", runId: state.id, status: effect.status, reply });
  }

  /** Feeds events through `advance` until the run settles (finished, or waiting on a person or an agent). */
  async function drive(runId: string, first: CoreEvent): Promise<RunState | null> {
    const queue: CoreEvent[] = [first];
    let state = latest(runId);
    while (queue.length && state) {
      const event = queue.shift()!;
      state = latest(runId) ?? state;
      const ctx = contextOf(state);
      const before = state.status;
      const result = advance(state, event, runDeps(ctx));
      state = result.state;
      live.set(runId, state);
      for (const effect of result.effects) {
        switch (effect.type) {
          case "trace":
            writeTrace(state, ctx, effect);
            break;
          case "save_bucket":
            deps.buckets.save(effect.key, effect.bucket);
            break;
          case "persist":
            persist(state);
            break;
          case "call_model":
            queue.push(await callModel(state, ctx, effect));
            break;
          case "call_tool":
            queue.push(await callTool(state, ctx, effect));
            break;
          case "ask_agent":
            await deps.askAgent({ runId, callId: effect.callId, target: effect.target, question: effect.question });
            break;
          case "await_approval":
            break;
          case "finish":
            finish(state, effect);
            break;
        }
      }
      if (state.status !== before && !isTerminal(state)) emit(runId, { type: "status", status: state.status });
    }
    if (state && (isTerminal(state) || state.status === "waiting_approval" || state.status === "waiting_agent")) {
      if (isTerminal(state)) {
        live.delete(runId);
        contexts.delete(runId);
        aborts.delete(runId);
        for (const key of timings.keys()) if (key.startsWith(`${runId}:`)) timings.delete(key);
      }
    }
    return state;
  }

  return {
    /** Starts a run for a person's message (or a behavior's goal) and drives it until it settles. */
    async start(input: StartRun): Promise<RunOutcome> {
      const runId = input.runId ?? crypto.randomUUID();
      const limits = effectiveLimits(defaultsOf(input.ctx.profile), input.overrides ?? {});
      const state = newRunState({ id: runId, agent: input.ctx.profile.name, sessionId: input.sessionId, limits });
      runs.create({ id: runId, sessionId: input.sessionId, status: "idle", trigger: input.trigger, state });
      live.set(runId, state);
      contexts.set(runId, input.ctx);
      if (input.sink) sinks.set(runId, input.sink);
      const userMessage = messages.append(input.sessionId, { role: "user", content: input.content, runId, ...(input.name ? { name: input.name } : {}) });
      emit(runId, { type: "run", runId, sessionId: input.sessionId, userMessage });
      try {
        const final = await drive(runId, { type: "start", message: { role: "user", content: input.content, ...(input.name ? { name: input.name } : {}) }, context: input.ctx.context });
        return outcome(runId, input.sessionId, userMessage, final);
      } finally {
        sinks.delete(runId);
      }
    },

    /** Delivers an outside event (approval, cancel, an agent's answer, a deadline) to a run. */
    async deliver(runId: string, event: CoreEvent, sink?: Emit): Promise<RunState | null> {
      if (!latest(runId)) return null;
      if (event.type === "cancel") aborts.get(runId)?.abort(new Error("cancelled"));
      if (sink) sinks.set(runId, sink);
      try {
        return await drive(runId, event);
      } finally {
        if (sink) sinks.delete(runId);
      }
    },

    /**
     * After a restart: redoes the unfinished work of every run that was mid-flight. Returns at once;
     * the runs go on in the background so the object's start is not held up by model or tool calls.
     */
    resume(): number {
      let resumed = 0;
      for (const row of runs.active()) {
        if (live.has(row.id)) continue;
        const state = row.state as RunState;
        const ctx = contextOf(state);
        live.set(state.id, state);
        runs.appendTrace({ runId: state.id, kind: "state", name: "resumed", data: { status: state.status, step: state.step }, startedAt: clock.now(), durationMs: 0 });
        const redo = resumeEffects(state, ctx.tools.specs);
        void (async () => {
          for (const effect of redo) {
            if (effect.type === "call_model") await drive(state.id, await callModel(state, ctx, effect));
            if (effect.type === "call_tool") await drive(state.id, await callTool(state, ctx, effect));
          }
        })();
        resumed += 1;
      }
      return resumed;
    },

    /**
     * A person's decision on a pending tool call. `by` is the authenticated principal: the only
     * source of an approval (nothing the model writes reaches this path).
     */
    async decide(runId: string, decision: { approved: boolean; by: string; callId?: string; reason?: string }): Promise<RunState> {
      const state = latest(runId);
      if (!state) throw new PantheonError("not_found", `run '${runId}' does not exist`, { details: { run: runId } });
      if (state.status !== "waiting_approval") {
        throw new PantheonError("conflict", `run '${runId}' is not waiting for approval (it is ${state.status})`, { details: { run: runId, status: state.status } });
      }
      const pending = state.calls.filter((c) => c.status === "proposed").map((c) => c.call.id);
      const callId = decision.callId ?? (pending.length === 1 ? pending[0] : undefined);
      if (!callId || !pending.includes(callId)) {
        throw new PantheonError("validation_failed", decision.callId ? `call '${decision.callId}' is not pending in this run` : "several calls are pending: name one with callId", {
          details: { issues: [{ path: ["callId"], message: `one of: ${pending.join(", ")}` }] },
        });
      }
      const event: CoreEvent = { type: "approval", callId, approved: decision.approved, by: decision.by, ...(decision.reason ? { reason: decision.reason } : {}) };
      return (await drive(runId, event)) ?? state;
    },

    /** Cancels a run that has not finished; in-flight model and tool calls are aborted. */
    async cancel(runId: string, by: string): Promise<RunState> {
      const state = latest(runId);
      if (!state) throw new PantheonError("not_found", `run '${runId}' does not exist`, { details: { run: runId } });
      if (isTerminal(state)) throw new PantheonError("conflict", `run '${runId}' already ${state.status}`, { details: { run: runId, status: state.status } });
      aborts.get(runId)?.abort(new Error("cancelled"));
      return (await drive(runId, { type: "cancel", reason: `cancelled by ${by}` })) ?? state;
    },

    /** Tool calls of runs waiting for a person. */
    pendingApprovals(): { runId: string; callId: string; tool: string; arguments: Record<string, unknown>; requestedAt: number }[] {
      return runs.byStatus("waiting_approval").flatMap((row) => {
        const state = (live.get(row.id) ?? row.state) as RunState;
        return state.calls
          .filter((c) => c.status === "proposed")
          .map((c) => ({ runId: row.id, callId: c.call.id, tool: c.call.name, arguments: c.call.arguments, requestedAt: state.waitingSince ?? row.startedAt }));
      });
    },

    latest,
  };

  function outcome(runId: string, sessionId: string, userMessage: StoredMessage, final: RunState | null): RunOutcome {
    const reply = replies.get(runId) ?? null;
    replies.delete(runId);
    return {
      runId,
      sessionId,
      status: final?.status ?? "failed",
      userMessage,
      reply,
      ...(final?.error ? { error: final.error } : {}),
    };
  }
}

/** The agent's limits: its own settings over the platform defaults (these are the ceilings). */
export function defaultsOf(profile: AgentProfile): RunLimits {
  return { ...defaultRunLimits, ...profile.runtime.limits };
}

export type RunDriver = ReturnType<typeof makeRunDriver>;
export type { RunSummary };

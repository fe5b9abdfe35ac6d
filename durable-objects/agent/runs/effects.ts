import { agentOutputGates, builtinGates, compileCustomGates, type Gate, type OutputGate } from "../../../core/gates";
import {
  requestOf,
  wordPieces,
  type RunDeps,
  type RunEffect,
  type RunEvent as CoreEvent,
  type RunState,
} from "../../../core/run";
import type { Clock } from "../../../core/ports";
import { isQuotaExceeded } from "../../../core/quotas";
import { redactDeep } from "../../../core/tools";
import type { RunEvent } from "../chat/live";
import type { DriverDeps, RunContext, RunContextSource, RunPeers } from "./contracts";
import type { HeldWrites } from "./held-writes";
import { modelRequestOf } from "./model-request";
import { traceCategory } from "./store";
import { redactTraceData, runRedactor } from "./trace-redaction";

/**
 * What the run loop's outward effects do (core/run `advance` names them; the driver hands each here):
 * the model call (its text held until the run releases it), a tool call, a question to another agent
 * through the bus, a plan's output, the context compile, and the trace. What belongs to one call in
 * flight — its abort controller, its timing, its held text — is kept here until the run forgets it.
 */
export function makeRunEffects(deps: {
  clock: Clock;
  writes: HeldWrites;
  buckets: DriverDeps["buckets"];
  contexts: Pick<RunContextSource, "compile">;
  emit(runId: string, event: RunEvent): void;
  /** The bus, once attached (RunPeers). */
  peers(): RunPeers | undefined;
}) {
  const { clock, writes, emit } = deps;
  const aborts = new Map<string, AbortController>();
  const timings = new Map<string, { startedAt: number; durationMs: number }>();
  /** The text of each run's last model reply, in word pieces, until the run releases it. */
  const heldTokens = new Map<string, string[]>();

  /** The gates of each runtime (one object per configuration), with the secrets list they were built for. */
  const gatesOf = new WeakMap<
    RunContext["profile"]["runtime"],
    { secrets: RunContext["secrets"]; gates: Gate[]; outputGates: OutputGate[] }
  >();

  function runDeps(ctx: RunContext): RunDeps {
    // Compiled once per runtime (one object per configuration) and secrets list, not per run or event:
    // custom gates compile their patterns, the output gates a detector of every secret.
    let compiled = gatesOf.get(ctx.profile.runtime);
    if (compiled?.secrets !== ctx.secrets) {
      compiled = {
        secrets: ctx.secrets,
        gates: [...builtinGates(), ...compileCustomGates(ctx.profile.runtime.gates)],
        outputGates: agentOutputGates({ secrets: ctx.secrets, specs: ctx.profile.runtime.gates }),
      };
      gatesOf.set(ctx.profile.runtime, compiled);
    }
    const rateLimits = ctx.profile.runtime.rateLimits;
    return {
      now: clock.now(),
      tools: ctx.tools.specs,
      gates: compiled.gates,
      outputGates: compiled.outputGates,
      ...(ctx.profile.runtime.beyondScope ? { beyondScope: ctx.profile.runtime.beyondScope } : {}),
      rateLimits,
      // Buckets are read from SQLite only for an agent that has rate limits.
      ...(Object.keys(rateLimits).length > 0 ? { buckets: deps.buckets.load() } : {}),
    };
  }

  function controllerOf(runId: string): AbortController {
    let controller = aborts.get(runId);
    if (!controller) aborts.set(runId, (controller = new AbortController()));
    return controller;
  }

  async function callModel(
    state: RunState,
    ctx: RunContext,
    effect: Extract<RunEffect, { type: "call_model" }>,
  ): Promise<CoreEvent> {
    const controller = controllerOf(state.id);
    const startedAt = clock.now();
    try {
      // Each model a cascade passes over is a step of the run's trace, with its reason.
      const request = modelRequestOf(ctx, effect, controller.signal, (hop) =>
        writes.step({
          runId: state.id,
          kind: "model",
          name: "model_hop",
          data: { ...hop },
          startedAt: clock.now(),
          durationMs: 0,
        }),
      );
      // The text is held until the run says it may be shown (`release_tokens`): a reply the output
      // gates refuse never reaches a client. Since nothing is shown before the whole reply is in, the
      // model is asked for it whole (`complete`), not streamed: a stream cost the turn its SSE parsing
      // and chunk handling for nothing, and a failed stream could not be retried once it had begun.
      const pieces: string[] = [];
      heldTokens.set(state.id, pieces);
      // A starting run's writes go out as the request leaves (held-writes.ts).
      const response = await writes.afterSent(state.id, (onSent) => ctx.llm.complete({ ...request, onSent }));
      // Released word by word, so streaming clients (SSE, /v1 chunks, AG-UI, the PWA) still get the
      // text as a stream of pieces, as they did when it came from the provider's stream.
      pieces.push(...wordPieces(response.content));
      return { type: "model_result", response };
    } catch (error) {
      return {
        type: "model_failed",
        error: error instanceof Error ? error.message : String(error),
        ...(isQuotaExceeded(error) ? { quota: error.refusal } : {}),
      };
    } finally {
      timings.set(`${state.id}:model`, { startedAt, durationMs: clock.now() - startedAt });
    }
  }

  async function callTool(
    state: RunState,
    ctx: RunContext,
    effect: Extract<RunEffect, { type: "call_tool" }>,
  ): Promise<CoreEvent> {
    const controller = controllerOf(state.id);
    const { call } = effect;
    emit(state.id, {
      type: "tool_call",
      callId: call.id,
      name: call.name,
      arguments: redactDeep(call.arguments, Object.values(ctx.tools.secrets)),
    });
    const startedAt = clock.now();
    const outcome = await ctx.tools.registry.invoke(call.name, call.arguments, {
      signal: controller.signal,
      timeoutMs: effect.timeoutMs ?? state.limits.toolTimeoutMs,
      secrets: ctx.tools.secrets,
      // Stable across attempts and restarts: the same proposed call is the same key.
      idempotencyKey: `${state.id}:${call.id}`,
      run: { id: state.id, sessionId: state.sessionId },
    });
    const ms = clock.now() - startedAt;
    timings.set(`${state.id}:tool:${call.id}`, { startedAt, durationMs: ms });
    emit(
      state.id,
      outcome.ok
        ? { type: "tool_result", callId: call.id, name: call.name, ok: true, output: outcome.output, ms }
        : {
            type: "tool_result",
            callId: call.id,
            name: call.name,
            ok: false,
            error: runRedactor(ctx).redact(outcome.error.message),
            ms,
          },
    );
    return outcome.ok
      ? {
          type: "tool_result",
          callId: call.id,
          output: outcome.output,
          ...(outcome.truncated ? { truncated: true } : {}),
        }
      : { type: "tool_failed", callId: call.id, error: outcome.error.message };
  }

  /**
   * Carries out one outward effect; the event it leads to, if any. An error it reports (a model's, a
   * tool's, the context's) passes the run's redactor first: it becomes the run's error, its trace and
   * its spans, and a server's error may echo whatever secret it was sent.
   */
  async function carryOut(state: RunState, ctx: RunContext, effect: RunEffect): Promise<CoreEvent | null> {
    const event = await outcomeOf(state, ctx, effect);
    if (event && "error" in event && typeof event.error === "string")
      return { ...event, error: runRedactor(ctx).redact(event.error) };
    return event;
  }

  async function outcomeOf(state: RunState, ctx: RunContext, effect: RunEffect): Promise<CoreEvent | null> {
    switch (effect.type) {
      case "call_model":
        return callModel(state, ctx, effect);
      case "call_tool":
        return callTool(state, ctx, effect);
      case "ask_agent": {
        const peers = deps.peers();
        if (!peers) throw new Error("the run driver has no bus attached");
        await peers.ask({
          runId: state.id,
          callId: effect.callId,
          target: effect.target,
          question: effect.question,
          ...(state.origin.principal ? { principal: state.origin.principal } : {}),
        });
        return null;
      }
      case "write_output":
        // A written message reaches clients with the history (the plan's own message ids), not as a tool.
        try {
          if (!ctx.writeOutput) throw new Error("this run has no plan to write its steps");
          return { type: "tool_result", callId: effect.callId, output: await ctx.writeOutput(effect) };
        } catch (error) {
          return {
            type: "tool_failed",
            callId: effect.callId,
            error: error instanceof Error ? error.message : String(error),
          };
        }
      case "compile_context":
        try {
          return {
            type: "start",
            message: requestOf(state.origin),
            context: await deps.contexts.compile(state, ctx.profile, (name, data) =>
              writes.step({ runId: state.id, kind: "context", name, data, startedAt: clock.now(), durationMs: 0 }),
            ),
          };
        } catch (error) {
          return { type: "context_failed", error: error instanceof Error ? error.message : String(error) };
        }
      default:
        return null;
    }
  }

  function writeTrace(state: RunState, ctx: RunContext, effect: Extract<RunEffect, { type: "trace" }>): void {
    const data = redactTraceData(effect.data, ctx);
    let timing = { startedAt: clock.now(), durationMs: 0 };
    if (effect.kind === "model_result") timing = timings.get(`${state.id}:model`) ?? timing;
    if (effect.kind === "tool_result" && typeof data.callId === "string")
      timing = timings.get(`${state.id}:tool:${data.callId}`) ?? timing;
    const row = { runId: state.id, kind: traceCategory[effect.kind], name: effect.kind, data, ...timing };
    writes.step(row);
    // Live clients show gate decisions on tool calls; those on a reply, an answer or a plan's own message and remember steps (no tool) are in the trace only.
    if (effect.kind === "gate_decisions" && Array.isArray(data.decisions) && typeof data.tool === "string") {
      for (const record of data.decisions as {
        gate: string;
        decision: { allow: boolean; reason?: string; pending?: "approval" };
      }[]) {
        emit(state.id, {
          type: "gate",
          callId: String(data.callId),
          gate: record.gate,
          allow: record.decision.allow,
          ...(record.decision.reason ? { reason: record.decision.reason } : {}),
          tool: data.tool,
          ...(record.decision.pending ? { pending: record.decision.pending } : {}),
        });
      }
    }
  }

  return {
    runDeps,
    carryOut,
    writeTrace,
    /** Aborts the run's model and tool calls in flight. */
    abort(runId: string, reason: Error): void {
      aborts.get(runId)?.abort(reason);
    },
    /** The held text of the run's last model reply, once (released to clients, or dropped). */
    takeTokens(runId: string): string[] {
      const pieces = heldTokens.get(runId) ?? [];
      heldTokens.delete(runId);
      return pieces;
    },
    /** The run finished: nothing of it is kept. */
    forget(runId: string): void {
      aborts.delete(runId);
      heldTokens.delete(runId);
      for (const key of timings.keys()) if (key.startsWith(`${runId}:`)) timings.delete(key);
    },
  };
}

export type RunEffects = ReturnType<typeof makeRunEffects>;

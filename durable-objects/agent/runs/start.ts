import type { RunPrincipal } from "../../../core/auth";
import { PantheonError } from "../../../core/errors";
import type { Clock } from "../../../core/ports";
import { effectiveLimits, isTerminal, limitsOf } from "../../../core/run";
import type { BehaviorRun } from "../behaviors/behaviors";
import type { Emit } from "../chat/live";
import type { SessionStore } from "../chat/sessions";
import type { MemoryFeature } from "../memory";
import type { ProfileHolder } from "../profile";
import type { RunContexts } from "./context";
import type { ChatInput, ManualCall, RunOutcome } from "./contracts";
import type { RunDriver } from "./driver";
import { checkNarrowTools, requestedModel, type SessionTools } from "./overrides";
import type { RunStore } from "./store";

export interface RunStartDeps {
  clock: Clock;
  background(work: Promise<unknown>): void;
  profiles: Pick<ProfileHolder, "get">;
  sessions: SessionStore;
  runs: RunStore;
  /** The tools each session narrowed to (runs/overrides makeSessionTools). */
  sessionTools?: SessionTools;
  contexts: RunContexts;
  driver: RunDriver;
  memory: Pick<MemoryFeature, "afterTurn">;
}

/**
 * How a run begins, once the agent knows which: a chat run or a behavior's (with its goal), and a
 * person's manual tool call. Below the turns (which pick the behavior a message goes to) and the
 * behaviors (whose alarms start runs here); it asks the run's context and the driver, both below it.
 * @example
 * const starts = makeRunStarts({ clock, background, profiles, sessions, runs, contexts, driver, memory });
 * await starts.begin({ content: "hello", principal }, () => {});
 */
export function makeRunStarts(deps: RunStartDeps) {
  const { contexts, driver } = deps;

  /**
   * One run of a turn: the profile is read once; the run is created (record and request in one
   * transaction — no request for a goal no one said) and driven: it begins by compiling its context
   * (runs/context.ts), so an eviction at any point after the record was stored is carried on by the
   * run's own recovery.
   */
  async function begin(input: ChatInput, sink: Emit, behavior?: BehaviorRun): Promise<RunOutcome> {
    const profile = deps.profiles.get();
    const session = deps.sessions.resolve(input.session);
    const maxHistory = input.limits?.maxHistory;
    await contexts.toolsReady(profile);
    if (input.runId && deps.runs.get(input.runId))
      throw new PantheonError("conflict", `run '${input.runId}' already exists`, { details: { run: input.runId } });
    const runId = input.runId ?? crypto.randomUUID();
    const model = input.model
      ? requestedModel(profile, input.model)
      : { provider: profile.model.provider, name: profile.model.name };
    if (input.tools !== undefined)
      deps.sessionTools?.set(
        session.id,
        input.tools === null ? null : checkNarrowTools(contexts.toolsOf(profile), input.tools),
      );
    const narrowTools = deps.sessionTools?.get(session.id);
    const ctx = contexts.contextOf(profile, {
      id: runId,
      sessionId: session.id,
      origin: {
        ...(behavior?.behavior ? { behavior: behavior.behavior } : {}),
        model,
        ...(narrowTools ? { narrowTools } : {}),
      },
    });
    const result = await driver.start({
      runId,
      agent: profile.name,
      sessionId: session.id,
      limits: effectiveLimits(limitsOf(profile.runtime.limits), input.limits ?? {}),
      origin: {
        trigger: behavior?.trigger ?? "message",
        content: input.content,
        ...(input.images?.length && !behavior?.unsaid ? { images: input.images } : {}),
        ...(input.name && !behavior?.unsaid ? { name: input.name } : {}),
        ...(behavior?.behavior ? { behavior: behavior.behavior } : {}),
        ...(behavior?.goal ? { goal: behavior.goal } : {}),
        ...(behavior?.unsaid ? { unsaid: true as const } : {}),
        ...(maxHistory !== undefined ? { maxHistory } : {}),
        principal: input.principal,
        model,
        ...(narrowTools ? { narrowTools } : {}),
        tools: ctx.tools.specs.map((s) => s.name),
      },
      ctx,
      sink,
    });
    // Written with the reply, not before the model call (runs/held-writes.ts says why).
    deps.sessions.touch(session.id);
    const usedIds = contexts.takeUsed(result.runId);
    // Extraction may call the model again: it runs after the reply has gone out, not before. A goal
    // no one said is not a person's words: nothing is learnt about them from it.
    const reply = result.status === "completed" && !behavior?.unsaid ? result.reply?.content : null;
    deps.background(
      deps.memory.afterTurn({
        profile,
        runId: result.runId,
        user: input.content,
        reply,
        usedIds,
        ...(result.userMessage ? { saidAt: result.userMessage.createdAt } : {}),
      }),
    );
    return result;
  }

  /** What a manual run answers once it settled or waits: its output, why it failed (a gate's refusal throws), or its wait. */
  function manualCallOf(
    name: string,
    args: Record<string, unknown>,
    outcome: { runId: string; status: string; result?: string; error?: string },
    ms: number,
  ): ManualCall {
    const { runId, status } = outcome;
    if (status === "waiting_approval") {
      const pending = driver.pendingApprovals().find((p) => p.runId === runId);
      return { runId, status, pending: { callId: pending?.callId ?? "manual-call", tool: name, arguments: args } };
    }
    if (status === "waiting_agent") return { runId, status, waiting: { tool: name } };
    const trace = deps.runs.trace(runId);
    const refused = trace
      .filter((step) => step.name === "gate_decisions")
      .flatMap(
        (step) =>
          (step.data as { decisions: { gate: string; decision: { allow: boolean; reason?: string } }[] }).decisions,
      )
      .find((d) => !d.decision.allow);
    if (status === "failed" && refused) {
      throw new PantheonError(
        "gate_rejected",
        `gate '${refused.gate}' refused the call: ${refused.decision.reason ?? "no reason given"}`,
        { details: { runId, gate: refused.gate, reason: refused.decision.reason ?? null } },
      );
    }
    const truncated = trace.some(
      (step) => step.name === "tool_result" && (step.data as { truncated?: boolean }).truncated === true,
    );
    return status === "completed"
      ? { runId, status, ok: true, output: outcome.result ?? "", truncated, ms }
      : { runId, status, ok: false, error: { message: outcome.error ?? `the run ${status}` }, ms };
  }

  return {
    begin,

    /** A behavior's run (its goal in its context and trace): set off by a person's message, or by no one (`unsaid`). */
    behaviorTurn: (input: ChatInput, sink: Emit, behavior: BehaviorRun): Promise<RunOutcome> =>
      begin(input, sink, behavior),

    /**
     * A person calls a tool by hand (`principal` from the authenticated request). It is a run of its own,
     * trigger `manual`, through the same gates as a model's proposal — budget, allowlist, schema,
     * custom gates, rate limit, approval — and traced; no model is involved, and nothing enters the chat.
     * `runId`, when given, is the run's id: a workflow's tool step writes it before the call, so the
     * call's idempotency key (`<runId>:manual-call`, runs/effects.ts) is known before anything leaves.
     */
    async invokeTool(
      name: string,
      args: Record<string, unknown>,
      principal: RunPrincipal,
      runId?: string,
    ): Promise<ManualCall> {
      const by = principal.name;
      const profile = deps.profiles.get();
      await contexts.toolsReady(profile);
      const ctx = contexts.contextOf(profile, {
        id: "",
        sessionId: "",
        origin: { manual: { tool: name, arguments: args, by } },
      });
      if (!ctx.tools.specs.some((s) => s.name === name))
        throw new PantheonError("not_found", `tool '${name}' is not declared for this agent`, {
          details: { tool: name },
        });
      const started = deps.clock.now();
      const outcome = await driver.start({
        ...(runId ? { runId } : {}),
        agent: profile.name,
        sessionId: deps.sessions.resolve(undefined).id,
        limits: limitsOf(profile.runtime.limits),
        origin: {
          trigger: "manual",
          content: `${name} ${JSON.stringify(args)}`.slice(0, 2000),
          manual: { tool: name, arguments: args, by },
          principal,
          tools: ctx.tools.specs.map((s) => s.name),
        },
        ctx,
      });
      return manualCallOf(name, args, outcome, deps.clock.now() - started);
    },

    /**
     * A manual tool run started earlier, as its record says once the runs an eviction cut off have been
     * carried on (`driver.recover` first): undefined when it was never written (start it under this id),
     * null while it is still under way, else its answer. How a workflow's tool step adopts its run.
     */
    async settledTool(runId: string): Promise<ManualCall | null | undefined> {
      await driver.recovered();
      const state = driver.latest(runId);
      if (!state?.origin.manual) return undefined;
      if (!isTerminal(state) && state.status !== "waiting_approval") return null;
      const { tool, arguments: args } = state.origin.manual;
      const finishedAt = deps.runs.get(runId)?.finishedAt ?? deps.clock.now();
      return manualCallOf(
        tool,
        args,
        {
          runId,
          status: state.status,
          ...(state.result !== undefined ? { result: state.result } : {}),
          ...(state.error ? { error: state.error } : {}),
        },
        finishedAt - state.startedAt,
      );
    },
  };
}

export type RunStarts = ReturnType<typeof makeRunStarts>;

import type { AgentProfile } from "../../../core/agents";
import { withPlatformSpans } from "../telemetry/platform";
import type { RunPrincipal } from "../../../core/auth";
import { PantheonError } from "../../../core/errors";
import { agentOutputGates, checkOutput, modelOutputSinks, type OutputScreen } from "../../../core/gates";
import type { Clock, ImageRef, ImageStorePort, LlmPort, Message } from "../../../core/ports";
import { effectiveLimits, limitsOf, type RunLimits, type RunOrigin, type RunState } from "../../../core/run";
import { redactDeep, type OutboundSettings } from "../../../core/tools";
import { makeSecretDetector } from "../../../core/redaction";
import type { BehaviorRun, PlanModel } from "../behaviors";
import type { Emit, RunEvent } from "../chat/live";
import type { SessionStore } from "../chat/sessions";
import type { RunContext, RunDriver, RunOutcome, TurnOutcome } from "./driver";
import { llmForProfile, manualRunModel, modelKeysOf, modelSecretNamesOf } from "./models";
import type { RunStore } from "./store";
import { buildAgentTools, outputSecrets, type ToolSource } from "./tools";
import { runtimeSecretNames } from "../../../core/agents";
import type { BreakerStore } from "../../../core/models";
import type { ProjectSecrets } from "../secrets";
import { checkNarrowTools, narrowed, profileForRun, requestedModel, type SessionTools } from "./overrides";
import { capsOf } from "../../../core/quotas";
import { withQuota, type QuotaKeeper } from "../quotas";
import { makeR2ImageStore } from "../../../adapters/image-r2";
import { withImageBytes } from "./images";

export interface ChatInput {
  content: string;
  /** Images sent with the text, as refs to the agent's store (the worker checked each is there). */
  images?: ImageRef[];
  /** Structured input beside the text: behaviors read its fields as `(get input "repo")`. */
  input?: Record<string, unknown>;
  session?: string;
  /** The person who wrote it, when a person's device token sent it (the message keeps their name). */
  name?: string;
  /** Per-request limits, clamped to the agent's own. */
  limits?: Partial<RunLimits>;
  /** Another of the agent's allowed models for this request (`provider/model`); one not allowed is a 400. */
  model?: string;
  /** Narrows the agent's tools for the session (kept for its later turns); `null` gives back all of them. */
  tools?: string[] | null;
  /**
   * The run's id, chosen by a protocol adapter whose protocol names the work before it starts (an
   * A2A task id). Never taken from the public API; an id already in use is refused.
   */
  runId?: string;
  /**
   * Whom the run acts for (the request's token, a gateway, a script's configurer): its tool calls are
   * held to this scope. Required, so no door starts a run that acts for nobody.
   */
  principal: RunPrincipal;
}

/** What a manual tool call answers: its output, why it failed, or the approval it waits for. */
export type ManualCall =
  | { runId: string; status: string; ok: true; output: string; truncated: boolean; ms: number }
  | { runId: string; status: string; ok: false; error: { message: string }; ms: number }
  | { runId: string; status: "waiting_approval"; pending: { callId: string; tool: string; arguments: Record<string, unknown> } }
  /** An `ask_<agent>` tool: the other agent's answer arrives later and becomes the run's result. */
  | { runId: string; status: "waiting_agent"; waiting: { tool: string } };

/** What turns need from the agent's other features (AgentDO wires them). */
export interface TurnDeps {
  env: Env;
  clock: Clock;
  outbound: OutboundSettings;
  project(): string;
  /** The agent's circuit breaker per model provider (runs/models makeBreakerStore), kept in its storage. */
  breakers?: BreakerStore;
  /** The tools each session narrowed to (runs/overrides makeSessionTools). */
  sessionTools?: SessionTools;
  /** Where the agent's images are (default: the IMAGES bucket): a model call loads the bytes of the images it sends. */
  images?: ImageStorePort;
  /** The project secrets this agent has opened (secrets/): loaded when the tool set needs a name it does not know yet. */
  secrets: ProjectSecrets;
  profile(): AgentProfile;
  /** The agent's daily counter and its lease of the project's cap (quotas/). */
  quota: QuotaKeeper;
  driver(): RunDriver;
  runs: RunStore;
  sessions: SessionStore;
  memory: {
    tools(profile: AgentProfile): ToolSource;
    contextFor(input: { profile: AgentProfile; sessionId: string; query: string; maxHistory?: number; excludeRunId?: string }): Promise<{
      context: RunState["context"];
      usedIds: string[];
      /** Other agents' sources the context asked for and was refused: each a trace step on the run. */
      refused: Array<{ source: string; reason: string }>;
    }>;
    afterTurn(input: { profile: AgentProfile; runId: string; user: string; reply?: string | null; usedIds: string[]; saidAt?: number }): Promise<unknown>;
  };
  mcp: { ready(): Promise<unknown>; toolSource(): ToolSource };
  spawnTools(profile: AgentProfile): ToolSource;
  /** Features, plans, tasks and the workspace (work/): the tools the agent's runtime lists. */
  workTools(profile: AgentProfile): ToolSource;
  behaviors: {
    onMessage(input: ChatInput, sink: Emit): Promise<RunOutcome | null>;
    /** A person's message arrived (noted after the turn's model call has left, or with a behavior's run). */
    noteMessage(at: number): void;
    planModel(run: { id: string; sessionId: string; behavior: NonNullable<RunOrigin["behavior"]> }, model: LlmPort): PlanModel;
  };
  /** A planned run reports its events to its plan (which steps failed). */
  observePlan(runId: string, observe: (event: RunEvent) => void): void;
  /** Work that may outlast the request (memory extraction after the reply). */
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * How a run begins: a person's turn (through the active behaviors first), a behavior's goal, or a
 * person's manual tool call, and what every run needs besides its record (tools, model, plan). The
 * driver uses `prepare` for runs it carries on from their record, so start and resume build a run
 * the same way.
 * @example
 * const turns = makeTurns({ ...deps, driver: () => driver });
 * driverDeps.prepare = (state) => turns.prepare(state);
 * await turns.turn({ content: "hello" }, () => {});
 */
export function makeTurns(deps: TurnDeps) {
  const imageStore = deps.images ?? (deps.env.IMAGES ? makeR2ImageStore(deps.env.IMAGES) : undefined);
  /** Every tool the agent declares: built-ins, HTTP tools, connections, MCP, memory, spawn. */
  function toolsOf(profile: AgentProfile) {
    const extra = [deps.mcp.toolSource(), deps.memory.tools(profile), deps.spawnTools(profile), deps.workTools(profile)];
    return buildAgentTools(profile, { clock: deps.clock, fetch: (input, init) => fetch(input, init), secretValues: deps.secrets.values("tool"), project: deps.project(), outbound: deps.outbound, extra });
  }

  /**
   * The MCP connections and the secrets the tool set needs, before it is built, with the project's
   * own model settings its model reads (one round trip for both). All are known after the first
   * turn, so a turn usually waits for none (no round trip for secrets already opened or known absent).
   */
  async function toolsReady(profile: AgentProfile): Promise<void> {
    await deps.mcp.ready();
    await secretsReady(profile);
  }

  /**
   * The secrets and model settings alone (one registry round trip, none once known). A restarted
   * agent loads them as it starts (AgentDO.onStart), so its first turn does not wait for them
   * before its request is stored: an eviction in that wait would lose the message.
   */
  async function secretsReady(profile: AgentProfile): Promise<void> {
    const loading = deps.secrets.ensureAll([
      { names: runtimeSecretNames(profile.runtime), use: "tool" },
      { names: modelSecretNamesOf(profile), use: "model" },
    ]);
    if (loading) await loading;
  }

  /** The project's own model settings `profile`'s model reads: loaded once (one round trip), then from memory. */
  async function projectModel(profile: AgentProfile) {
    const loading = deps.secrets.ensure(modelSecretNamesOf(profile), "model");
    if (loading) await loading;
    return deps.secrets.values("model");
  }

  /** What the output gates keep out: the project secrets the agent holds, and the deployment's (tools/outputSecrets). */
  function secretsOf(tools: { secrets: Record<string, string> }) {
    return outputSecrets(deps.env as unknown as Record<string, unknown>, { ...deps.secrets.values("tool"), ...deps.secrets.values("telegram"), ...modelKeysOf(deps.secrets.values("model")), ...tools.secrets });
  }

  /**
   * What a run needs besides its record: the agent's tools and its model — none for a manual call,
   * a behavior's plan around the agent's model for a planned run (the plan reports to its observer).
   */
  function runContext(agentProfile: AgentProfile, run: { id: string; sessionId: string; origin: Pick<RunOrigin, "behavior" | "manual" | "model" | "narrowTools"> }): RunContext {
    // The request's model and the session's narrower tools, as the run's record keeps them (runs/overrides).
    const profile = profileForRun(agentProfile, run.origin);
    const tools = narrowed(toolsOf(profile), run.origin.narrowTools);
    const secrets = secretsOf(tools);
    if (run.origin.manual) return { profile, tools, llm: manualRunModel, secrets };
    const limits = limitsOf(profile.runtime.limits);
    // Every model call of the run passes the agent's and the project's daily caps (quotas/).
    const chosen = llmForProfile(profile, deps.env, { timeoutMs: limits.modelTimeoutMs, ...(deps.breakers ? { breakers: deps.breakers, now: () => deps.clock.now() } : {}) }, deps.secrets.values("model"));
    const seeing = imageStore ? withImageBytes(chosen, imageStore, { project: deps.project(), agent: profile.name }) : chosen;
    const llm = withPlatformSpans(withQuota(seeing, deps.quota, { agent: capsOf(limits), ...(profile.projectQuota ? { project: profile.projectQuota } : {}) }));
    const behavior = run.origin.behavior;
    if (!behavior) return { profile, tools, llm, secrets };
    const plan = deps.behaviors.planModel({ id: run.id, sessionId: run.sessionId, behavior }, llm);
    deps.observePlan(run.id, plan.observe);
    return { profile, tools, llm: plan.llm, secrets, writeOutput: plan.write };
  }

  /** Every secret the agent could hold (outputSecrets), as one detector: for what it exports (core/redaction). */
  function redactorFor(profile: AgentProfile) {
    return makeSecretDetector(secretsOf(toolsOf(profile)));
  }

  /**
   * The output gates for the agent as it is now (its gates and secrets), as the screen every
   * background write of model output passes (core/gates/sinks: the summary fold, extraction): a
   * refused text is not stored, and the refusal is written to the trace of the run whose turn it
   * came from (no model reads it). The gates are built on the first write, so a turn that writes
   * nothing pays nothing.
   */
  function memoryScreenFor(profile: AgentProfile): OutputScreen {
    let built: { secrets: ReturnType<typeof secretsOf>; gates: ReturnType<typeof agentOutputGates> } | undefined;
    return (sink, text, runId) => {
      if (!built) {
        const secrets = secretsOf(toolsOf(profile));
        built = { secrets, gates: agentOutputGates({ secrets, specs: profile.runtime.gates }) };
      }
      const kind = modelOutputSinks[sink].kind;
      const outcome = checkOutput(built.gates, { kind, text });
      if (outcome.allow) return null;
      if (runId) {
        const data = redactDeep({ output: kind, by: sink, decisions: outcome.decisions }, built.secrets.map((s) => s.value));
        deps.driver().traceStep({ runId, kind: "gate", name: "gate_decisions", data, startedAt: deps.clock.now(), durationMs: 0 });
      }
      return outcome.rejection.decision.reason;
    };
  }

  /** Memories each run's context used (kept until its turn has marked them used). */
  const usedByRun = new Map<string, string[]>();

  /**
   * One run of a turn: the profile is read once; the run is created (record and request in one
   * transaction — no request for a goal no one said) and driven: it begins by compiling its context
   * (`compileContext`), so an eviction at any point after the record was stored is carried on by the
   * run's own recovery.
   */
  async function begin(input: ChatInput, sink: Emit, behavior?: BehaviorRun): Promise<RunOutcome> {
    const profile = deps.profile();
    const session = deps.sessions.resolve(input.session);
    const maxHistory = input.limits?.maxHistory;
    await toolsReady(profile);
    if (input.runId && deps.runs.get(input.runId)) throw new PantheonError("conflict", `run '${input.runId}' already exists`, { details: { run: input.runId } });
    const runId = input.runId ?? crypto.randomUUID();
    const model = input.model ? requestedModel(profile, input.model) : { provider: profile.model.provider, name: profile.model.name };
    if (input.tools !== undefined) deps.sessionTools?.set(session.id, input.tools === null ? null : checkNarrowTools(toolsOf(profile), input.tools));
    const narrowTools = deps.sessionTools?.get(session.id);
    const ctx = runContext(profile, { id: runId, sessionId: session.id, origin: { ...(behavior?.behavior ? { behavior: behavior.behavior } : {}), model, ...(narrowTools ? { narrowTools } : {}) } });
    const result = await deps.driver().start({
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
    const usedIds = usedByRun.get(result.runId) ?? [];
    usedByRun.delete(result.runId);
    // Extraction may call the model again: it runs after the reply has gone out, not before. A goal
    // no one said is not a person's words: nothing is learnt about them from it.
    const reply = result.status === "completed" && !behavior?.unsaid ? result.reply?.content : null;
    deps.waitUntil(deps.memory.afterTurn({ profile, runId: result.runId, user: input.content, reply, usedIds, ...(result.userMessage ? { saidAt: result.userMessage.createdAt } : {}) }));
    return result;
  }

  return {
    toolsOf,
    secretsReady,
    redactorFor,
    memoryScreenFor,
    projectModel,

    /**
     * The context of a run that begins (core `compile_context`): the session's history before it
     * (its own request is already stored, and left out), memory and summary, for its request. The
     * profile is the run's own snapshot (read once per turn).
     */
    async compileContext(state: RunState, profile: AgentProfile, trace: (name: string, data: Record<string, unknown>) => void): Promise<RunState["context"]> {
      const { context, usedIds, refused } = await deps.memory.contextFor({
        profile,
        sessionId: state.sessionId,
        query: state.origin.content,
        excludeRunId: state.id,
        ...(state.origin.maxHistory !== undefined ? { maxHistory: state.origin.maxHistory } : {}),
      });
      // A source the script lists but its owner will not share with this agent: said on the run, not silently dropped.
      for (const { source, reason } of refused) trace("source_refused", { source, reason });
      // The agent's standing goals and the goal of the behavior that took the message: the run's
      // context (and its trace), never the history.
      const goals = goalMessages(profile.role ?? undefined, profile.goals ?? [], state.origin.unsaid ? undefined : state.origin.goal?.text, state.origin.trigger);
      if (goals.length) trace("goals", { standing: profile.goals ?? [], ...(state.origin.goal && !state.origin.unsaid ? { behavior: state.origin.goal.text } : {}) });
      if (state.origin.trigger !== "manual" && !state.origin.trigger.startsWith("agent:")) {
        // A run carried on after an eviction has no turn left to read its entry: keep the map small.
        if (usedByRun.size >= 100) usedByRun.delete(usedByRun.keys().next().value!);
        usedByRun.set(state.id, usedIds);
      }
      return goals.length ? [...context, ...goals] : context;
    },

    /** What a run needs from its record: the agent now, its tools, its model (a behavior's plan around it). */
    async prepare(state: RunState): Promise<RunContext> {
      const profile = deps.profile();
      await toolsReady(profile);
      return runContext(profile, state);
    },

    /**
     * A person's turn: their message goes to the one behavior it matches (behaviors/), else it is the
     * agent's plain chat run. Either way the message is stored once, in their words, with one reply.
     */
    async turn(input: ChatInput, sink: Emit): Promise<TurnOutcome> {
      const arrivedAt = deps.clock.now();
      const handled = await deps.behaviors.onMessage(input, sink);
      const result = handled ?? (await begin(input, sink));
      deps.behaviors.noteMessage(arrivedAt);
      if (!result.userMessage) throw new Error("a turn's run was stored without its request");
      return { ...result, userMessage: result.userMessage };
    },

    /** A behavior's run (its goal in its context and trace): set off by a person's message, or by no one (`unsaid`). */
    behaviorTurn: (input: ChatInput, sink: Emit, behavior: BehaviorRun): Promise<RunOutcome> => begin(input, sink, behavior),

    /**
     * A person calls a tool by hand (`principal` from the authenticated request). It is a run of its own,
     * trigger `manual`, through the same gates as a model's proposal — budget, allowlist, schema,
     * custom gates, rate limit, approval — and traced; no model is involved, and nothing enters the chat.
     */
    async invokeTool(name: string, args: Record<string, unknown>, principal: RunPrincipal): Promise<ManualCall> {
      const by = principal.name;
      const profile = deps.profile();
      const driver = deps.driver();
      await toolsReady(profile);
      const ctx = runContext(profile, { id: "", sessionId: "", origin: { manual: { tool: name, arguments: args, by } } });
      if (!ctx.tools.specs.some((s) => s.name === name)) throw new PantheonError("not_found", `tool '${name}' is not declared for this agent`, { details: { tool: name } });
      const started = deps.clock.now();
      const outcome = await driver.start({
        agent: profile.name,
        sessionId: deps.sessions.resolve(undefined).id,
        limits: limitsOf(profile.runtime.limits),
        origin: { trigger: "manual", content: `${name} ${JSON.stringify(args)}`.slice(0, 2000), manual: { tool: name, arguments: args, by }, principal, tools: ctx.tools.specs.map((s) => s.name) },
        ctx,
      });
      const ms = deps.clock.now() - started;
      const { runId, status } = outcome;
      if (status === "waiting_approval") {
        const pending = driver.pendingApprovals().find((p) => p.runId === runId);
        return { runId, status, pending: { callId: pending?.callId ?? "manual-call", tool: name, arguments: args } };
      }
      if (status === "waiting_agent") return { runId, status, waiting: { tool: name } };
      const trace = deps.runs.trace(runId);
      const refused = trace
        .filter((step) => step.name === "gate_decisions")
        .flatMap((step) => (step.data as { decisions: { gate: string; decision: { allow: boolean; reason?: string } }[] }).decisions)
        .find((d) => !d.decision.allow);
      if (status === "failed" && refused) {
        throw new PantheonError("gate_rejected", `gate '${refused.gate}' refused the call: ${refused.decision.reason ?? "no reason given"}`, { details: { runId, gate: refused.gate, reason: refused.decision.reason ?? null } });
      }
      const truncated = trace.some((step) => step.name === "tool_result" && (step.data as { truncated?: boolean }).truncated === true);
      return status === "completed"
        ? { runId, status, ok: true, output: outcome.result ?? "", truncated, ms }
        : { runId, status, ok: false, error: { message: outcome.error ?? `the run ${status}` }, ms };
    },
  };
}

export type Turns = ReturnType<typeof makeTurns>;

/**
 * The system messages that carry goals into a run's context: the agent's standing goals (with its role), and the goal
 * of the behavior a person's message went to (for a run no one said, the goal is its request already).
 */
function goalMessages(role: string | undefined, standing: readonly string[], behaviorGoal: string | undefined, trigger: string): Message[] {
  const out: Message[] = [];
  if (standing.length) out.push({ role: "system", content: `${role ? `Your role: ${role}.\n` : ""}Your standing goals:\n${standing.map((g) => `- ${g}`).join("\n")}` });
  if (behaviorGoal) out.push({ role: "system", content: `Goal for this message (${trigger.replace(/^behavior:/, "behavior ")}): ${behaviorGoal}` });
  return out;
}

import { runtimeSecretNames, type AgentProfile } from "../../../core/agents";
import type { BreakerStore } from "../../../core/models";
import type { ImageStorePort, Message } from "../../../core/ports";
import { capsOf } from "../../../core/quotas";
import { limitsOf, type RunOrigin, type RunState } from "../../../core/run";
import type { OutboundSettings } from "../../../core/tools";
import { makeR2ImageStore } from "../../../adapters/image-r2";
import type { PlanModels } from "../behaviors/plan";
import { fanOutToolSource } from "../bus/fanout-tool";
import { spawnToolSource } from "../bus/spawn";
import type { AgentHost } from "../host";
import type { MemoryFeature } from "../memory";
import type { ProfileHolder } from "../profile";
import { withQuota, type QuotaKeeper } from "../quotas";
import type { ProjectSecrets } from "../secrets";
import { telemetrySettings } from "../../../core/telemetry";
import { withPlatformSpans } from "../telemetry/platform";
import type { RunContext } from "./contracts";
import type { RunEvents } from "./events";
import { withImageBytes } from "./images";
import { llmForProfile, manualRunModel, modelSecretNamesOf } from "./models";
import type { OutputScreens } from "./output-screens";
import { narrowed, profileForRun } from "./overrides";
import { type AgentTools, buildAgentTools, type ToolSource } from "./tools";
import { makeWorkerLoaderSandbox } from "../../../adapters/sandbox-worker-loader";
import type { SandboxRunner } from "../../../core/sandbox";
import { scriptSecretNames, scriptToolSource } from "./script-tools";
import { skillToolSource } from "./skills";

export interface RunContextDeps {
  host: Pick<AgentHost, "env" | "clock" | "project">;
  outbound: OutboundSettings;
  profiles: Pick<ProfileHolder, "get">;
  /** The project secrets this agent has opened (secrets/): loaded when the tool set needs a name it does not know yet. */
  secrets: ProjectSecrets;
  screens: Pick<OutputScreens, "secretsHeld">;
  /** The agent's daily counter and its lease of the project's cap (quotas/). */
  quota: QuotaKeeper;
  /** The agent's circuit breaker per model provider (runs/models makeBreakerStore), kept in its storage. */
  breakers?: BreakerStore;
  /** Where the agent's images are (default: the IMAGES bucket): a model call loads the bytes of the images it sends. */
  images?: ImageStorePort;
  memory: Pick<MemoryFeature, "tools" | "contextFor">;
  mcp: {
    ready(): Promise<unknown>;
    toolSource(): ToolSource;
    hasConnections(): boolean;
    /** What a beginning run is told of the MCP servers: steps for its trace, lines for its model. */
    turnNotes(): { trace: { name: string; data: Record<string, unknown> }[]; system: string[] };
  };
  /** Features, plans, tasks and the workspace (work/): the tools the agent's runtime lists. */
  workTools: { toolSource(profile: AgentProfile): ToolSource };
  /** A planned behavior's model around the agent's (behaviors/plan.ts). */
  plans: PlanModels;
  /** A planned run reports its events to its plan (which steps failed). */
  events: Pick<RunEvents, "observeRun">;
}

/**
 * What a run needs besides its record: the agent's tools, its model (under the caps, seeing images,
 * a behavior's plan around it), the secrets its output gates keep out, and the context its request is
 * answered in (history, memory, goals). The driver asks here, downward, when a run begins or resumes;
 * a turn asks for the same before it starts the run, so start and resume build a run the same way.
 * @example
 * const contexts = makeRunContexts({ host, outbound, profiles, secrets, screens, quota, memory, mcp, workTools, plans, events });
 * const ctx = await contexts.prepare(state); // tools, llm, secrets
 * const context = await contexts.compile(state, ctx.profile, trace); // messages before the request
 */
export function makeRunContexts(deps: RunContextDeps) {
  const { host } = deps;
  const imageStore = deps.images ?? (host.env.IMAGES ? makeR2ImageStore(host.env.IMAGES) : undefined);

  // One sandbox per agent object, made at its first script call: its warm isolates live as long as it does.
  let sandbox: SandboxRunner | undefined;
  const sandboxOf = () => (sandbox ??= makeWorkerLoaderSandbox(host.env.LOADER));

  /** Every tool the agent declares: built-ins, HTTP tools, connections, MCP, memory, spawn and fan-out, work, scripts. */
  function buildTools(profile: AgentProfile): AgentTools {
    const spawn = spawnToolSource(profile);
    const fanOut = fanOutToolSource(profile);
    // The delegation tools (agent.spawn, agent.fanout), each offered only to agents that use it: the bus runs them.
    const delegation: ToolSource = { specs: [...spawn.specs, ...fanOut.specs], implementations: {} };
    let built: AgentTools | undefined;
    const scripts = scriptToolSource(profile, {
      sandbox: sandboxOf,
      fetch: (input, init) => fetch(input, init),
      secretValues: deps.secrets.values("tool"),
      allowLoopback: deps.outbound.allowLoopback,
      tools: () => built?.registry,
    });
    const extra = [
      deps.mcp.toolSource(),
      deps.memory.tools(profile),
      delegation,
      deps.workTools.toolSource(profile),
      scripts,
      skillToolSource(profile),
    ];
    built = buildAgentTools(profile, {
      clock: host.clock,
      fetch: (input, init) => fetch(input, init),
      secretValues: deps.secrets.values("tool"),
      project: host.project(),
      outbound: deps.outbound,
      extra,
    });
    return built;
  }

  /**
   * The tool set last built, kept while what it is built from stays the same: the profile (one object
   * per configuration) and the tool secrets known (their version). A warm turn then builds no tool set. An
   * agent with MCP connections builds it every time: a server's tools change when it comes and goes.
   */
  let keptTools: { profile: AgentProfile; secrets: number; tools: AgentTools } | undefined;
  function toolsOf(profile: AgentProfile): AgentTools {
    if (deps.mcp.hasConnections()) return buildTools(profile);
    const secrets = deps.secrets.version("tool");
    if (keptTools?.profile === profile && keptTools.secrets === secrets) return keptTools.tools;
    const tools = buildTools(profile);
    keptTools = { profile, secrets, tools };
    return tools;
  }

  /** The profile and secrets versions whose tool, model and telemetry secrets were last found all known: the next turn checks nothing. */
  let secretsKnownFor: { profile: AgentProfile; secrets: string } | undefined;
  const secretVersions = () =>
    `${deps.secrets.version("tool")}.${deps.secrets.version("model")}.${deps.secrets.version("telemetry")}`;
  /**
   * The secrets and model settings alone (one registry round trip, none once known), with the OTLP
   * settings: a run's trace and errors are redacted of its headers too (output-screens), so they are
   * known before the run writes. A restarted agent loads them as it starts (AgentDO.onStart), so its
   * first turn does not wait for them before its request is stored: an eviction in that wait would lose the message.
   */
  async function secretsReady(profile: AgentProfile): Promise<void> {
    if (secretsKnownFor?.profile === profile && secretsKnownFor.secrets === secretVersions()) return;
    const loading = deps.secrets.ensureAll([
      { names: [...runtimeSecretNames(profile.runtime), ...scriptSecretNames(profile)], use: "tool" },
      { names: modelSecretNamesOf(profile), use: "model" },
      { names: telemetrySettings, use: "telemetry" },
    ]);
    if (loading) await loading;
    secretsKnownFor = { profile, secrets: secretVersions() };
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
   * What a run needs besides its record: the agent's tools and its model — none for a manual call,
   * a behavior's plan around the agent's model for a planned run (the plan reports to its observer).
   */
  function buildContext(
    agentProfile: AgentProfile,
    run: { id: string; sessionId: string; origin: Pick<RunOrigin, "behavior" | "manual" | "model" | "narrowTools"> },
  ): RunContext {
    // The request's model and the session's narrower tools, as the run's record keeps them (runs/overrides).
    const profile = profileForRun(agentProfile, run.origin);
    const tools = narrowed(toolsOf(profile), run.origin.narrowTools);
    const secrets = deps.screens.secretsHeld(tools.secrets);
    if (run.origin.manual) return { profile, tools, llm: manualRunModel, secrets };
    const limits = limitsOf(profile.runtime.limits);
    // Every model call of the run passes the agent's and the project's daily caps (quotas/).
    const chosen = llmForProfile(
      profile,
      host.env,
      {
        timeoutMs: limits.modelTimeoutMs,
        ...(deps.breakers ? { breakers: deps.breakers, now: () => host.clock.now() } : {}),
      },
      deps.secrets.values("model"),
    );
    const seeing = imageStore
      ? withImageBytes(chosen, imageStore, { project: host.project(), agent: profile.name })
      : chosen;
    const llm = withPlatformSpans(
      withQuota(seeing, deps.quota, {
        agent: capsOf(limits),
        ...(profile.projectQuota ? { project: profile.projectQuota } : {}),
      }),
    );
    const behavior = run.origin.behavior;
    if (!behavior) return { profile, tools, llm, secrets };
    const plan = deps.plans.planModel({ id: run.id, sessionId: run.sessionId, behavior }, llm);
    deps.events.observeRun(run.id, plan.observe);
    return { profile, tools, llm: plan.llm, secrets, writeOutput: plan.write };
  }

  /** Memories each run's context used (kept until its turn has marked them used). */
  const usedByRun = new Map<string, string[]>();

  /** The project's settings as each context was built from them (secrets `changes`: a secret, grant or profile since). */
  const builtAt = new WeakMap<RunContext, number>();
  function contextOf(agentProfile: AgentProfile, run: Parameters<typeof buildContext>[1]): RunContext {
    const ctx = buildContext(agentProfile, run);
    builtAt.set(ctx, deps.secrets.changes());
    return ctx;
  }

  return {
    toolsOf,
    toolsReady,
    secretsReady,
    contextOf,

    /**
     * Whether `ctx` was built from the project's settings as they are: after a secret, grant, provider
     * or cap changed, a run waiting (a person's approval, a peer) or between calls rebuilds its context
     * before its next model or tool call, so the old value is never used again.
     */
    isCurrent: (ctx: RunContext): boolean => builtAt.get(ctx) === deps.secrets.changes(),

    /** What a run needs from its record: the agent now, its tools, its model (a behavior's plan around it). */
    async prepare(state: RunState): Promise<RunContext> {
      const profile = deps.profiles.get();
      await toolsReady(profile);
      return contextOf(profile, state);
    },

    /**
     * The context of a run that begins (core `compile_context`): the session's history before it
     * (its own request is already stored, and left out), memory and summary, for its request. The
     * profile is the run's own snapshot (read once per turn). `trace` writes a step on the run with its
     * other steps (a source refused by its owner).
     */
    async compile(
      state: RunState,
      profile: AgentProfile,
      trace: (name: string, data: Record<string, unknown>) => void,
    ): Promise<Message[]> {
      const { context, usedIds, refused } = await deps.memory.contextFor({
        profile,
        sessionId: state.sessionId,
        query: state.origin.content,
        excludeRunId: state.id,
        ...(state.origin.maxHistory !== undefined ? { maxHistory: state.origin.maxHistory } : {}),
      });
      // A source the script lists but its owner will not share with this agent: said on the run, not silently dropped.
      for (const { source, reason } of refused) trace("source_refused", { source, reason });
      // A server's tools that changed, and servers whose tools are unavailable (mcp/): said on the run.
      const mcp = deps.mcp.hasConnections() ? deps.mcp.turnNotes() : { trace: [], system: [] };
      for (const step of mcp.trace) trace(step.name, step.data);
      // The agent's standing goals and the goal of the behavior that took the message: the run's
      // context (and its trace), never the history.
      const goals = goalMessages(
        profile.role ?? undefined,
        profile.goals ?? [],
        state.origin.unsaid ? undefined : state.origin.goal?.text,
        state.origin.trigger,
      );
      if (goals.length)
        trace("goals", {
          standing: profile.goals ?? [],
          ...(state.origin.goal && !state.origin.unsaid ? { behavior: state.origin.goal.text } : {}),
        });
      if (state.origin.trigger !== "manual" && !state.origin.trigger.startsWith("agent:")) {
        // A run carried on after an eviction has no turn left to read its entry: keep the map small.
        if (usedByRun.size >= 100) usedByRun.delete(usedByRun.keys().next().value!);
        usedByRun.set(state.id, usedIds);
      }
      const notes: Message[] = mcp.system.map((content) => ({ role: "system", content }));
      return goals.length || notes.length ? [...context, ...goals, ...notes] : context;
    },

    /** The memories a run's context used, once (its turn marks them used after the reply). */
    takeUsed(runId: string): string[] {
      const used = usedByRun.get(runId) ?? [];
      usedByRun.delete(runId);
      return used;
    },
  };
}

export type RunContexts = ReturnType<typeof makeRunContexts>;

/**
 * The system messages that carry goals into a run's context: the agent's standing goals (with its role), and the goal
 * of the behavior a person's message went to (for a run no one said, the goal is its request already).
 */
function goalMessages(
  role: string | undefined,
  standing: readonly string[],
  behaviorGoal: string | undefined,
  trigger: string,
): Message[] {
  const out: Message[] = [];
  if (standing.length)
    out.push({
      role: "system",
      content: `${role ? `Your role: ${role}.\n` : ""}Your standing goals:\n${standing.map((g) => `- ${g}`).join("\n")}`,
    });
  if (behaviorGoal)
    out.push({
      role: "system",
      content: `Goal for this message (${trigger.replace(/^behavior:/, "behavior ")}): ${behaviorGoal}`,
    });
  return out;
}

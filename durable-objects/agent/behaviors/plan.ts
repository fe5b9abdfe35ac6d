import { PantheonError } from "../../../core/errors";
import { behaviorsOf } from "./state";
import {
  evaluateExpr,
  printScript,
  resolveArgs,
  type Action,
  type ActorScript,
  type Behavior,
  type ExprScope,
  type Value,
} from "../../../core/dsl";
import type { OutputKind } from "../../../core/gates";
import type { LlmPort, LlmRequest, LlmResponse, LlmStreamEvent, Message, ToolCall } from "../../../core/ports";
import { makeAgentToolSpec } from "../../../core/tools";
import { fanOutToolName } from "../bus/fanout-tool";
import { spawnToolName } from "../bus/spawn";
import type { RunEvent } from "../chat/live";

/** Tool call ids of planned steps: `plan-<step>-<n>`, so the plan finds its place again from the run's messages. */
const planId = /^plan-(\d+)-(\d+)$/;

export interface PlanDeps {
  behavior: Behavior;
  scope: ExprScope;
  /** The agent's own model: `(think)` hands the run to it. */
  model: LlmPort;
  /**
   * Writes a `(message …)` step that is not the plan's last word. `step` is its index: a step redone
   * after a restart must write its message once.
   */
  append(message: { role: "assistant" | "system" | "user"; content: string }, step: number): void;
  /** Stores a `(remember …)` step (once per step, like `append`). */
  remember(content: string, step: number): void | Promise<unknown>;
}

/** A behavior's plan as the run uses it: its model, the observer of its calls, the writer of its outputs. */
export interface PlanModel {
  llm: LlmPort;
  observe(event: RunEvent): void;
  write(output: { callId: string; kind: OutputKind; arguments: Record<string, unknown> }): Promise<string>;
}

/**
 * A deterministic plan seen by the run loop as a model: each call answers with the next planned
 * step (tool calls, or the final message), so planned tool calls pass the same gates, tool
 * registry, trace and limits as a model's. `(think)` hands the rest of the run to the real model.
 * Where the plan is comes from the run's own messages, so the same plan object serves every turn.
 * @example
 * const { llm, observe, write } = makePlanLlm({ behavior, scope: { input }, model, append, remember });
 * // the run's model is `llm`; its events go to `observe`; tool steps appear in the trace as tool_call;
 * // message and remember steps come back as the run's `write_output` effects, carried out by `write`
 */
export function makePlanLlm(deps: PlanDeps): PlanModel {
  /** Outcome of each planned call as the run reported it (tool_result / gate events). */
  const outcomes = new Map<string, { ok: boolean; error?: string }>();
  const steps = deps.behavior.plan.steps;

  /** Feed the run's events here (the run's sink): failed planned calls end the plan. */
  function observe(event: RunEvent): void {
    if (event.type === "tool_result")
      outcomes.set(
        event.callId,
        event.ok ? { ok: true } : { ok: false, ...(event.error ? { error: event.error } : {}) },
      );
    if (event.type === "gate" && !event.allow && !outcomes.get(event.callId)?.ok)
      outcomes.set(event.callId, { ok: false, error: `rejected by gate '${event.gate}': ${event.reason ?? ""}` });
  }

  /** The step to run next and the previous step's result, read from the run's messages. */
  function position(messages: Message[]): { next: number; prev: Value; failure?: string } | "thinking" {
    const lastCalls = [...messages].reverse().find((m) => m.role === "assistant" && m.toolCalls?.length);
    if (!lastCalls?.toolCalls) return { next: 0, prev: null };
    const first = planId.exec(lastCalls.toolCalls[0]!.id);
    if (!first) return "thinking";
    const index = Number(first[1]);
    const results = lastCalls.toolCalls.map((call) => {
      const answer = messages.find((m) => m.role === "tool" && m.toolCallId === call.id);
      const seen = outcomes.get(call.id);
      // Without an observed outcome (agents' answers, a resumed run) the run loop's own wording tells failures apart.
      // A message or remember step that was written answers with its own text, whatever that says.
      const written = call.name === "output.message" || call.name === "output.remember";
      const failed = seen
        ? !seen.ok
        : !answer ||
          (written
            ? answer.content !== String(call.arguments.content ?? "")
            : /^(Error: |Rejected by )/.test(answer.content));
      return { call, content: answer?.content ?? "", failed, error: seen?.error ?? answer?.content ?? "no result" };
    });
    const step = steps[index];
    const ok = results.filter((r) => !r.failed);
    if (ok.length < results.length) {
      const bad = results.find((r) => r.failed)!;
      return {
        next: index + 1,
        prev: null,
        failure: `plan step ${index + 1} (${describe(step)}) failed: ${bad.error}`,
      };
    }
    // An ask answers with text: one agent's answer, or the fan-out engine's decision under the behavior's policy.
    const prev =
      step?.kind === "ask" || step?.kind === "message" || step?.kind === "remember"
        ? (ok[0]?.content ?? "")
        : parsed(ok[0]?.content ?? "");
    return { next: index + 1, prev };
  }

  async function answer(request: LlmRequest): Promise<LlmResponse | "think"> {
    const at = position(request.messages);
    if (at === "thinking") return "think";
    if (at.failure) return response(at.failure, [], "error");
    const prev = at.prev;
    for (let i = at.next; i < steps.length; i++) {
      const action = resolveArgs(steps[i]!, { ...deps.scope, prev });
      const last = i === steps.length - 1;
      switch (action.kind) {
        case "tool":
          return response("", [{ id: `plan-${i}-0`, name: action.tool, arguments: action.args }], "tool_calls");
        case "ask":
          // Several agents: one call to the fan-out engine (agent.fanout), whose decision is the step's answer.
          if (action.targets.length > 1)
            return response(
              "",
              [
                {
                  id: `plan-${i}-0`,
                  name: fanOutToolName,
                  arguments: {
                    targets: action.targets,
                    question: action.question,
                    policy: deps.behavior.policy ?? "all",
                  },
                },
              ],
              "tool_calls",
            );
          return response(
            "",
            [
              {
                id: `plan-${i}-0`,
                name: makeAgentToolSpec(action.targets[0]!).name,
                arguments: { question: action.question },
              },
            ],
            "tool_calls",
          );
        case "think":
          return "think";
        // Messages and memories are proposed to the run like tool calls, so the output gates check them
        // (a refusal fails the plan with the gate's reason); the run writes them through `write`.
        case "message":
          if (last && action.role === "assistant") return response(action.content, [], "stop");
          return response(
            "",
            [{ id: `plan-${i}-0`, name: "output.message", arguments: { role: action.role, content: action.content } }],
            "tool_calls",
          );
        case "remember":
          return response(
            "",
            [{ id: `plan-${i}-0`, name: "output.remember", arguments: { content: action.content } }],
            "tool_calls",
          );
        case "spawn":
          // Through the agent.spawn tool, so the same gates, quota and delegation path apply.
          return response(
            "",
            [
              {
                id: `plan-${i}-0`,
                name: spawnToolName,
                arguments: {
                  script: spawnSource(action.script, action.goal),
                  goal: action.goal,
                  ...(action.supervise ? { supervise: action.supervise } : {}),
                },
              },
            ],
            "tool_calls",
          );
      }
    }
    return response(
      prev === null ? `Finished '${deps.behavior.name}'.` : typeof prev === "string" ? prev : JSON.stringify(prev),
      [],
      "stop",
    );
  }

  /**
   * Writes a `message` / `remember` step the output gates let through (the run's `write_output`);
   * its call id names the step, so a write redone after a restart lands once.
   */
  async function write(output: {
    callId: string;
    kind: OutputKind;
    arguments: Record<string, unknown>;
  }): Promise<string> {
    const at = planId.exec(output.callId);
    if (!at) throw new Error(`'${output.callId}' is not a planned step`);
    const step = Number(at[1]);
    const content = String(output.arguments.content ?? "");
    if (output.kind === "memory") await deps.remember(content, step);
    else
      deps.append(
        { role: (output.arguments.role as "assistant" | "system" | "user" | undefined) ?? "assistant", content },
        step,
      );
    return content;
  }

  const llm: LlmPort = {
    provider: "plan",
    async complete(request) {
      const result = await answer(request);
      return result === "think" ? deps.model.complete(request) : result;
    },
    async *stream(request): AsyncIterable<LlmStreamEvent> {
      const result = await answer(request);
      if (result === "think") {
        yield* deps.model.stream(request);
        return;
      }
      yield { type: "done", response: result };
    },
  };
  return { llm, observe, write };
}

function response(content: string, toolCalls: ToolCall[], finishReason: LlmResponse["finishReason"]): LlmResponse {
  // `provider: "plan"` is what lets the run accept `output.*` calls: no model adapter answers as the plan.
  return {
    content,
    toolCalls,
    finishReason,
    usage: { inputTokens: 0, outputTokens: 0 },
    model: "plan",
    provider: "plan",
  };
}

function describe(step: Action | undefined): string {
  if (!step) return "unknown step";
  return step.kind === "tool"
    ? `tool '${step.tool}'`
    : step.kind === "ask"
      ? `ask ${step.targets.join(", ")}`
      : step.kind;
}

/** A tool's output as data when it is JSON, so `$prev` passes structures on; text otherwise. */
function parsed(content: string): Value {
  try {
    return JSON.parse(content) as Value;
  } catch {
    return content;
  }
}

/** The goal of a behavior as text (what the run shows as the request). */
export function goalText(behavior: Behavior, scope: ExprScope): string {
  const value = evaluateExpr(behavior.goal, scope);
  return value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The DSL source of a spawned child: an inline `(actor …)` is printed as it is; a bare name gets a
 * minimal actor that thinks about its goal.
 */
function spawnSource(script: string | ActorScript, goal: string): string {
  if (typeof script !== "string") return printScript(script);
  const description = `Spawned to work on: ${goal}`.slice(0, 1900).replace(/["\\]/g, " ");
  return `(actor "${script}" (description "${description}") (talent "work" (behavior "goal" :active (goal (input) (get input "text")) (plan (input ctx) (think)))))`;
}

/** A planned behavior's run, as its record keeps it: which behavior, evaluated with which values. */
export interface PlannedRun {
  id: string;
  sessionId: string;
  behavior: { key: string; scope: Record<string, unknown> };
}

/**
 * The plans of the agent's script, for the runs of its planned behaviors: the model of such a run,
 * built from its record, so the same for a new run and for one resumed after a restart (the plan
 * finds its place in the run's transcript). Below the run's context, which asks here for the model.
 */
export function makePlanModels(deps: {
  /** The agent's current script, or null. */
  script(): ActorScript | null;
  /** Writes a plan's message once: `id` is stable for the run and step. */
  append(sessionId: string, message: { role: "assistant" | "system" | "user"; content: string; id: string }): void;
  /** Stores a plan's memory once per `key` (run and step). */
  remember(content: string, key: string): void | Promise<unknown>;
}) {
  return {
    planModel(run: PlannedRun, model: LlmPort): PlanModel {
      const found = behaviorsOf(deps.script()).find((b) => b.key === run.behavior.key);
      if (!found)
        throw new PantheonError("not_found", `behavior '${run.behavior.key}' is no longer in this agent's script`, {
          details: { behavior: run.behavior.key },
        });
      return makePlanLlm({
        behavior: found.behavior,
        scope: run.behavior.scope as ExprScope,
        model,
        append: (message, step) => deps.append(run.sessionId, { ...message, id: `${run.id}:plan:${step}` }),
        remember: (content, step) => deps.remember(content, `${run.id}:plan:${step}`),
      });
    },
  };
}

export type PlanModels = ReturnType<typeof makePlanModels>;

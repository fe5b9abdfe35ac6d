import type { AgentProfile } from "../../../core/agents";
import {
  fanOutPolicies,
  fanOutSpecSchema,
  maxFanOutTargets,
  tieRules,
  type FanOutResult,
  type FanOutSpec,
} from "../../../core/bus";
import type { ActorScript } from "../../../core/dsl";
import type { ToolSpec } from "../../../core/tools";
import type { ToolSource } from "../runs/tools";

export const fanOutToolName = "agent.fanout";

/** `agent.fanout` runs as a delegation (runtime "agent"): the run waits for the fan-out's decision like for any answer. */
export const isFanOutCall = (target: string) => target === fanOutToolName;

const fanOutSpec: ToolSpec = {
  name: fanOutToolName,
  description:
    "Ask several of your connections one question and combine their answers under a policy: all (every answer), first (the first answer; the others are cancelled), majority (the answer more than half give), vote (weighted), critique (the first proposes, the others critique, the first revises), review (the first writes, the others accept or reject with reasons; bounded redrafts).",
  parameters: {
    type: "object",
    properties: {
      targets: { type: "array", items: { type: "string" }, minItems: 1, maxItems: maxFanOutTargets },
      question: { type: "string", minLength: 1, maxLength: 32_000 },
      policy: { type: "string", enum: [...fanOutPolicies] },
      weights: { type: "object", additionalProperties: { type: "number" } },
      rounds: { type: "integer", minimum: 1, maximum: 3 },
      retries: { type: "integer", minimum: 0, maximum: 3 },
      tie: { type: "string", enum: [...tieRules] },
    },
    required: ["targets", "question"],
    additionalProperties: false,
  },
  runtime: "agent",
};

/** Whether a script has an `ask` of several agents (its plan needs `agent.fanout`). */
function asksSeveral(script: ActorScript | null | undefined): boolean {
  return (script?.talents ?? []).some((t) =>
    t.behaviors.some((b) => b.plan.steps.some((s) => s.kind === "ask" && s.targets.length > 1)),
  );
}

/**
 * The `agent.fanout` tool, for agents that declare it in their tools or whose script asks several
 * agents at once (the plan's `ask` goes through it). Other agents' tool lists stay as they were.
 * @example
 * buildAgentTools(profile, { ..., extra: [fanOutToolSource(profile)] });
 */
export function fanOutToolSource(profile: AgentProfile): ToolSource {
  const offered = profile.runtime.tools.includes(fanOutToolName) || asksSeveral(profile.script as ActorScript | null);
  return offered ? { specs: [fanOutSpec], implementations: {} } : { specs: [], implementations: {} };
}

/** The tool call's arguments (JSON) as a fan-out spec, or what is wrong with them. */
export function parseFanOutCall(argumentsJson: string): { ok: true; spec: FanOutSpec } | { ok: false; error: string } {
  let args: unknown;
  try {
    args = JSON.parse(argumentsJson);
  } catch {
    return { ok: false, error: "the arguments are not JSON" };
  }
  const parsed = fanOutSpecSchema.safeParse(args);
  if (!parsed.success)
    return {
      ok: false,
      error: parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; "),
    };
  return { ok: true, spec: parsed.data as FanOutSpec };
}

/** A decision as the asking run reads it: the answer, or an error naming the outcome. */
export function fanOutReply(result: FanOutResult): { answer: string } | { error: string } {
  return result.ok
    ? { answer: result.answer }
    : { error: `${result.policy} fan-out ${result.outcome.replace("_", " ")}: ${result.answer}` };
}

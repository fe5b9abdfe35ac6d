import type { RunLimits } from "../run/limits";
import { describeIssues, validateArguments } from "../tools/validate";
import type { Gate, GateDecision, RunProgress } from "./gate";
import { rateKey, secondsUntilToken, takeToken } from "./rate-limit";
import { scopeGate } from "./scope";
import { ownValue } from "../reserved-names";

const allow: GateDecision = { allow: true };

/** The tool is one this agent declares. */
export const allowlistGate: Gate = {
  name: "allowlist",
  priority: 10,
  check: ({ call, spec }, ctx) =>
    spec && ctx.tools.has(spec.name)
      ? allow
      : {
          allow: false,
          reason: `tool '${call.name}' is not available to this agent; available: ${[...ctx.tools.keys()].join(", ") || "none"}`,
        },
};

/** The arguments match the tool's JSON Schema. */
export const schemaGate: Gate = {
  name: "schema",
  priority: 20,
  check: ({ call, spec }) => {
    if (!spec) return allow;
    const check = validateArguments(spec.parameters, call.arguments);
    return check.valid ? allow : { allow: false, reason: `invalid arguments: ${describeIssues(check.issues)}` };
  },
};

/**
 * Why the run is out of budget, or undefined. `step` counts model calls made; a tool result is only
 * worth having if another model call may read it.
 */
export function budgetExceeded(
  run: Omit<RunProgress, "callsByTool">,
  limits: RunLimits,
  forTool: boolean,
): string | undefined {
  if (run.tokens >= limits.maxTokensPerRun)
    return `token limit reached: ${run.tokens} of ${limits.maxTokensPerRun} tokens used`;
  if (run.activeMs >= limits.maxRunMs)
    return `time limit reached: the run has used ${run.activeMs} ms of ${limits.maxRunMs} ms`;
  if (forTool ? run.step >= limits.maxSteps : run.step + 1 > limits.maxSteps)
    return `step limit reached: ${run.step} of ${limits.maxSteps} model steps used`;
  return undefined;
}

/** Steps, tokens and wall time against the run's limits; a rejection here ends the run. */
export const budgetGate: Gate = {
  name: "budget",
  priority: 0,
  check: (_proposal, ctx) => {
    const reason = budgetExceeded(ctx.run, ctx.limits, true);
    return reason ? { allow: false, reason, final: true } : allow;
  },
};

/** A token bucket per agent + tool; the run loop stores the bucket only when every gate allowed. */
export const rateLimitGate: Gate = {
  name: "rate-limit",
  priority: 40,
  check: ({ call }, ctx) => {
    const limit = ownValue(ctx.rateLimits, call.name) ?? ownValue(ctx.rateLimits, "*");
    if (!limit) return allow;
    const taken = takeToken(ctx.buckets?.get(rateKey(ctx.agent, call.name)), ctx.now, limit);
    if (taken.allowed) return allow;
    return {
      allow: false,
      reason: `rate limit: '${call.name}' allows ${limit.capacity} calls, refilling ${limit.refillPerSec}/s; next call possible in ${secondsUntilToken(taken.bucket, limit)} s`,
    };
  },
};

/**
 * Tools marked `requiresApproval` wait for a person. Only `ctx.approvals` counts: it is filled by the
 * Durable Object from authenticated requests, so nothing the model writes can approve a call.
 */
export const approvalGate: Gate = {
  name: "approval",
  priority: 100,
  check: ({ call, spec }, ctx) => {
    if (!spec?.requiresApproval) return allow;
    return ctx.approvals.has(call.id)
      ? allow
      : { allow: false, pending: "approval", reason: `'${call.name}' needs a person's approval` };
  },
};

/** The built-in gates, in their priority order. */
export function builtinGates(): Gate[] {
  return [budgetGate, allowlistGate, schemaGate, scopeGate, rateLimitGate, approvalGate];
}

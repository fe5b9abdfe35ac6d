import type { RunPrincipal, Scope } from "../auth";
import type { ToolCall } from "../ports";
import type { RunLimits } from "../run/limits";
import type { ToolSpec } from "../tools/tool-spec";
import type { RateLimit, TokenBucket } from "./rate-limit";

/** An action the model proposed, with the declaration of the tool it names (when there is one). */
export interface GateProposal {
  call: ToolCall;
  spec?: ToolSpec;
}

/** A person's yes, recorded by the Durable Object from an authenticated request. */
export interface Approval {
  by: string;
  at: number;
  /** The approver's scope: an approval lends the call at most this (absent on approvals stored before scopes counted). */
  scope?: Scope;
  reason?: string;
}

export interface RunProgress {
  /** Model calls made so far in this run. */
  step: number;
  tokens: number;
  /** Wall time of the run so far, approval waits excluded. */
  activeMs: number;
  /** Calls let through so far in this run, by tool name. */
  callsByTool: Readonly<Record<string, number>>;
}

/**
 * Everything a gate may look at besides the proposal. Built by the run loop from its own state and
 * from what the Durable Object supplies, never from anything the model wrote.
 */
export interface GateContext {
  agent: string;
  /** The tools declared for this agent, by name. */
  tools: ReadonlyMap<string, ToolSpec>;
  now: number;
  run: RunProgress;
  limits: RunLimits;
  /** Approvals by call id. */
  approvals: ReadonlyMap<string, Approval>;
  /** Whom the run acts for (its record's `origin.principal`); absent = the least scope (scope.ts). */
  principal?: RunPrincipal;
  /** What a call beyond the principal's scope does (`runtime.beyondScope`); absent = `wait`. */
  beyondScope?: "wait" | "refuse";
  /** Rate limits by tool name (`*` = every tool) and the current buckets by `rateKey(agent, tool)`. */
  rateLimits?: Readonly<Record<string, RateLimit>>;
  buckets?: ReadonlyMap<string, TokenBucket>;
}

export type GateRejection = {
  allow: false;
  reason: string;
  /** Not a refusal yet: the call waits for a person. */
  pending?: "approval";
  /** Ends the run instead of going back to the model (budgets: more tries cannot help). */
  final?: boolean;
};

export type GateDecision = { allow: true } | GateRejection;

/**
 * A pure check of one proposal. Lower `priority` runs first.
 * @example
 * const noDeletes: Gate = { name: "no-deletes", priority: 30, check: ({ call }) => call.name.endsWith(".delete") ? { allow: false, reason: "deleting is not allowed" } : { allow: true } };
 */
export interface Gate {
  name: string;
  priority: number;
  check(proposal: GateProposal, ctx: GateContext): GateDecision;
}

export interface GateRecord {
  gate: string;
  decision: GateDecision;
}

export type GateOutcome =
  | { allow: true; decisions: GateRecord[] }
  | { allow: false; rejection: { gate: string; decision: GateRejection }; decisions: GateRecord[] };

/**
 * Runs the gates in priority order and stops at the first rejection; `decisions` holds every
 * decision made, for the trace.
 * @example
 * const outcome = runGates(defaultGates(), { call, spec }, ctx);
 * if (!outcome.allow) feedBack(outcome.rejection.decision.reason);
 */
export function runGates(gates: readonly Gate[], proposal: GateProposal, ctx: GateContext): GateOutcome {
  const ordered = [...gates].sort((a, b) => a.priority - b.priority);
  const decisions: GateRecord[] = [];
  for (const gate of ordered) {
    let decision: GateDecision;
    try {
      decision = gate.check(proposal, ctx);
    } catch (error) {
      // A broken gate must fail closed, not let the call through.
      decision = {
        allow: false,
        reason: `gate '${gate.name}' failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    decisions.push({ gate: gate.name, decision });
    if (!decision.allow) return { allow: false, rejection: { gate: gate.name, decision }, decisions };
  }
  return { allow: true, decisions };
}

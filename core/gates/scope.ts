import { grants, unknownPrincipal, type Scope } from "../auth";
import type { ToolSpec } from "../tools/tool-spec";
import type { Gate, GateDecision } from "./gate";

/** What an agent does with a call beyond its run's scope (`runtime.beyondScope`): wait for a holder's approval, or refuse it. */
export const beyondScopeChoices = ["wait", "refuse"] as const;
export type BeyondScope = (typeof beyondScopeChoices)[number];

/**
 * The scope a call of `spec` needs: what the tool declares, `chat` when it declares nothing
 * (ordinary agent work: reading, the clock, remembering, the operator's HTTP tools).
 */
export function toolScope(spec: Pick<ToolSpec, "scope"> | undefined): Scope {
  return spec?.scope ?? "chat";
}

/**
 * Why an approver may not let a call of `spec` run, or undefined when they may: approving a call
 * lends it the approver's rights, so the approver needs the scope the call needs.
 * @example
 * approverRefusal({ name: "memory.forget", scope: "admin" }, "approve"); // "approving 'memory.forget' needs …"
 */
export function approverRefusal(
  spec: Pick<ToolSpec, "name" | "scope"> | undefined,
  approver: Scope,
): string | undefined {
  const need = toolScope(spec);
  if (grants(approver, need)) return undefined;
  return `approving '${spec?.name ?? "this call"}' needs a token with the '${need}' scope (the scope of the tool's own route); this token has '${approver}'`;
}

/**
 * A call is held to the rights of whoever started its run (`ctx.principal`): a tool that needs more
 * waits for the approval of a holder of its scope (`wait`, the default) or is refused (`refuse`),
 * and the model reads why. An approval counts only when its approver's scope covers the tool's.
 */
export const scopeGate: Gate = {
  name: "scope",
  priority: 25,
  check: ({ call, spec }, ctx): GateDecision => {
    const need = toolScope(spec);
    const principal = ctx.principal ?? unknownPrincipal;
    if (grants(principal.scope, need)) return { allow: true };
    const approval = ctx.approvals.get(call.id);
    if (approval?.scope && grants(approval.scope, need)) return { allow: true };
    const why = `'${call.name}' needs the '${need}' scope; this run acts for ${principal.name} with the '${principal.scope}' scope`;
    if (ctx.beyondScope === "refuse")
      return {
        allow: false,
        reason: `${why}, and this agent refuses calls beyond its caller's scope. Do not retry it; tell the person it needs a token with the '${need}' scope`,
      };
    return {
      allow: false,
      pending: "approval",
      reason: `${why}: it waits for the approval of a holder of the '${need}' scope`,
    };
  },
};

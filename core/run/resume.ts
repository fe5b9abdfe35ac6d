import type { ToolSpec } from "../tools/tool-spec";
import { callEffect } from "./call-gates";
import { modelRequestOf } from "./step";
import type { RunCall, RunEffect, RunEvent, RunState } from "./state";

/** What carries a run on after it was reloaded: work to redo, and events to feed back. */
export interface Recovery {
  effects: RunEffect[];
  events: RunEvent[];
}

/**
 * A call may run again after a restart only if that cannot do its effect twice: the tool says it is
 * idempotent (read-only, or the endpoint keys on `Idempotency-Key`), or it is a plain GET.
 */
export function isRepeatable(rc: RunCall, spec: ToolSpec | undefined): boolean {
  if (spec?.idempotent) return true;
  if (spec?.name === "http.fetch") return String(rc.call.arguments.method ?? "GET").toUpperCase() === "GET";
  return false;
}

export const interruptedOutcome =
  "interrupted: the agent restarted while this call was in flight, so whether it took effect is unknown; check before repeating it";

/**
 * After the state was reloaded from storage (eviction, crash, deploy): the model call in flight is
 * made again; a tool call in flight is made again only if repeatable, otherwise the model is told its
 * outcome is unknown (never a silent second call); questions to other agents are asked again (the bus
 * keeps one request per call); approvals still wait. Finished calls are never redone.
 * @example
 * const { effects, events } = recoverRun(state, tools);
 * for (const event of events) advance(state, event, deps); // tool_failed "interrupted: …"
 */
export function recoverRun(state: RunState, tools: readonly ToolSpec[]): Recovery {
  const byName = new Map(tools.map((spec) => [spec.name, spec]));
  switch (state.status) {
    case "running":
      return { effects: [modelRequestOf(state, tools)], events: [] };
    case "waiting_tool":
    case "waiting_agent":
    case "waiting_approval": {
      const finished = new Set(state.finishedCallIds);
      const recovery: Recovery = { effects: [], events: [] };
      for (const rc of state.calls) {
        if (finished.has(rc.call.id) || rc.status !== "running") continue;
        // A plan's output is written once per call id, so writing it again is safe.
        if (rc.writes || rc.runtime === "agent" || isRepeatable(rc, byName.get(rc.call.name)))
          recovery.effects.push(callEffect(rc));
        else
          recovery.events.push({
            type: "tool_failed",
            callId: rc.call.id,
            error: interruptedOutcome,
            interrupted: true,
          });
      }
      return recovery;
    }
    default:
      return { effects: [], events: [] };
  }
}

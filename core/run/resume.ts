import type { ToolSpec } from "../tools/tool-spec";
import { callEffect, modelRequestOf } from "./advance";
import type { RunEffect, RunState } from "./state";

/**
 * What to redo after the state was reloaded from storage (eviction, crash, deploy): the model call
 * in flight, the calls still running, the approvals still awaited. Finished calls are never redone.
 * Tools run at least once this way; a tool that must not run twice should be idempotent by call id.
 * @example
 * const state = JSON.parse(row.state) as RunState;
 * for (const effect of resumeEffects(state, tools)) await carryOut(effect);
 */
export function resumeEffects(state: RunState, tools: readonly ToolSpec[]): RunEffect[] {
  switch (state.status) {
    case "running":
      return [modelRequestOf(state, tools)];
    case "waiting_tool":
    case "waiting_agent":
    case "waiting_approval": {
      const finished = new Set(state.finishedCallIds);
      const effects: RunEffect[] = [];
      for (const rc of state.calls) {
        if (finished.has(rc.call.id)) continue;
        if (rc.status === "running") effects.push(callEffect(rc));
        else if (rc.status === "proposed") effects.push({ type: "await_approval", call: rc.call });
      }
      return effects;
    }
    default:
      return [];
  }
}

import { modelOutputSinks } from "../../core/gates";

/** A write of the memory store's text (a new memory, or a new text for one): what stores words. */
const memoryWrite = /\bmemory\.(insert|updateText)\(/;
/** How far above a write its gate may be (the gate wraps the write, or filters what it writes). */
const gateReach = 12;

/** Where each sink the run gates is gated in the run reducer, core/run/ (before its effect leaves the state machine). */
const runGateMarks: Record<string, string> = {
  reply: "checkOutput(step.deps.outputGates ?? [], { kind, text: response.content })",
  "tool-output": "ownValue(toolOutputs, rc.call.name)",
  "plan-output": "ownValue(planOutputCalls, call.name)",
  "tool-call": "runGates(step.deps.gates",
};

/**
 * Every write of the memory store in the source that neither sits under a `gatedWrite` / `gatedKeep`
 * (within `gateReach` lines above) nor says on its line why it stores no model output (`// ungated: …`).
 */
export function findUngatedWrites(sources: Record<string, string>): { file: string; line: number; code: string }[] {
  const found: { file: string; line: number; code: string }[] = [];
  for (const [file, text] of Object.entries(sources)) {
    const lines = text.split("\n");
    lines.forEach((code, i) => {
      // The reason may sit on the call's line or, where the formatter breaks the call, on the line below it.
      if (!memoryWrite.test(code) || code.includes("// ungated:") || lines[i + 1]?.trim().startsWith("// ungated:"))
        return;
      const above = lines.slice(Math.max(0, i - gateReach), i + 1).join("\n");
      if (/gated(Write|Keep)\("[a-z-]+"/.test(above)) return;
      found.push({ file, line: i + 1, code: code.trim() });
    });
  }
  return found;
}

/** Sinks of the list that no code gates: named by a gatedWrite/gatedKeep call, or at their mark in the run. */
export function sinkProblems(sources: Record<string, string>): string[] {
  // The list's own file names every sink in its comments and example: it gates none of them.
  const all = Object.entries(sources)
    .filter(([file]) => !file.endsWith("core/gates/sinks.ts"))
    .map(([, text]) => text)
    .join("\n");
  // The reducer is split by event family (core/run/model-result.ts, call-gates.ts, …): its marks may sit in any of them.
  const run = Object.entries(sources)
    .filter(([file]) => file.includes("core/run/"))
    .map(([, text]) => text)
    .join("\n");
  const problems: string[] = [];
  for (const [sink, { gatedBy }] of Object.entries(modelOutputSinks)) {
    if (gatedBy === "gatedWrite" && !all.includes(`gatedWrite("${sink}"`) && !all.includes(`gatedKeep("${sink}"`)) {
      problems.push(`sink '${sink}' is listed as gated by gatedWrite, but no gatedWrite/gatedKeep names it`);
    }
    if (gatedBy === "run" && !(runGateMarks[sink] && run.includes(runGateMarks[sink]!)))
      problems.push(`sink '${sink}' is listed as gated by the run, but core/run/ does not gate it`);
  }
  return problems;
}

/**
 * Where a model is called, and the sink its output goes to: a file that calls a model and is not
 * here is a new sink nobody listed (its output may be stored ungated), and the scan names it.
 */
export const modelCallers: Record<string, string> = {
  "durable-objects/agent/runs/effects.ts": "the run: reply, tool-output, tool-call",
  "durable-objects/agent/behaviors/plan.ts": "the run: plan-output",
  "durable-objects/agent/memory/lifecycle.ts": "extraction",
  "core/context/summary.ts": "summary-fold",
  "durable-objects/agent/evals/index.ts": "eval-judge",
  // Not a sink: it wraps the run's model port in a platform span; what the port answers goes on to the run's gates.
  "durable-objects/agent/telemetry/platform.ts": "the run: reply, tool-output, tool-call",
  // Not a sink either: the daily caps wrap the run's and memory's model ports; their output goes on to those callers' gates.
  "durable-objects/agent/quotas/port.ts": "the run and memory: reply, tool-output, tool-call, extraction, summary-fold",
  // Not a model: an A2A task streams an agent's turn, whose reply passes the run's gates.
  "workers/doors/a2a/executor.ts": "the run: reply",
};
const modelCall = /\.(complete|stream)\(\s*(\{|request)/;

/** Files that call a model (`….complete({…})`, `….stream(request)`) and are neither listed nor the model ports themselves. */
export function unlistedModelCallers(sources: Record<string, string>): string[] {
  return Object.entries(sources)
    .filter(
      ([file, text]) =>
        !file.includes("/core/models/") &&
        !file.includes("/adapters/") &&
        text.split("\n").some((line) => modelCall.test(line) && !line.trim().startsWith("*")),
    )
    .map(([file]) => file.replace(/^(\.\.\/)+/, ""))
    .filter((file) => !modelCallers[file]);
}

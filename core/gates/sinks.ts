import type { OutputKind } from "./gate-spec";

/**
 * Every place Pantheon stores or sends text a model wrote, by name: the one list a reviewer reads to
 * know that no proposal of the model is written past the gates. A sink is either written through
 * `gatedWrite` (a background write: the summary fold, memory extraction) or gated inside the run's
 * state machine before its effect leaves (core/run/: replies and a plan's steps in model-result.ts,
 * tool calls that write in call-gates.ts). test/gates/sinks.test.ts reads the source: a write of the
 * memory store outside `gatedWrite`, or a sink here that no code gates, fails it.
 */
export const modelOutputSinks = {
  /** The rolling conversation summary (durable-objects/agent/memory/context-turn.ts). */
  "summary-fold": { kind: "memory", gatedBy: "gatedWrite" },
  /** Memories extraction proposes after a turn or in a batch (durable-objects/agent/memory/lifecycle.ts). */
  extraction: { kind: "memory", gatedBy: "gatedWrite" },
  /** The run's final reply (core/run/model-result.ts). */
  reply: { kind: "reply", gatedBy: "run" },
  /** `memory.store` and `ask_<agent>` calls: their written argument (core/run/call-gates.ts, toolOutputs). */
  "tool-output": { kind: "memory", gatedBy: "run" },
  /** A behavior's plan `message` / `remember` steps (core/run/model-result.ts, planOutputCalls). */
  "plan-output": { kind: "message", gatedBy: "run" },
  /** A fan-out's questions (a critique's carry the proposal) and its decision (durable-objects/agent/bus/fanout.ts, features.ts). */
  fanout: { kind: "message", gatedBy: "gatedWrite" },
  /** A model judge's reason for its score, kept in the agent's eval history (durable-objects/agent/evals/). */
  "eval-judge": { kind: "message", gatedBy: "gatedWrite" },
  /** Every other tool call the model proposes (task commits and reports, plan writes, HTTP): the tool gates. */
  "tool-call": { kind: "message", gatedBy: "run" },
} as const satisfies Record<string, { kind: OutputKind; gatedBy: "gatedWrite" | "run" }>;

export type ModelOutputSink = keyof typeof modelOutputSinks;

/**
 * The output gates of an agent as a screen: why `text`, about to be written to `sink`, may not be
 * (the refusal already traced in run `runId` when there is one), or null when it may.
 */
export type OutputScreen = (sink: ModelOutputSink, text: string, runId?: string) => string | null;

/** What a gated write did: wrote (with the writer's value), or was refused and wrote nothing. */
export type GatedWrite<T> = { written: true; value: T } | { written: false; reason: string };

/**
 * The one door for a background write of model output: the screen reads the text first, and a refused
 * text is never handed to `write`. Pass the exact text `write` stores.
 * @example
 * const done = await gatedWrite("summary-fold", screen, { text: summary, runId }, (text) => memory.updateText(id, text));
 * if (!done.written) keepPreviousSummary();
 */
export async function gatedWrite<T>(
  sink: ModelOutputSink,
  screen: OutputScreen,
  proposal: { text: string; runId?: string },
  write: (text: string) => T | Promise<T>,
): Promise<GatedWrite<T>> {
  const reason = screen(sink, proposal.text, proposal.runId);
  if (reason !== null) return { written: false, reason };
  return { written: true, value: await write(proposal.text) };
}

/** The synchronous form, for a filter over many proposals (extraction's batch). */
export function gatedKeep(
  sink: ModelOutputSink,
  screen: OutputScreen,
  proposal: { text: string; runId?: string },
): boolean {
  return screen(sink, proposal.text, proposal.runId) === null;
}

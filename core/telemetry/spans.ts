/**
 * A run as OpenTelemetry spans, following the GenAI semantic conventions: one `invoke_agent` span
 * per run, a `chat` span per model call, an `execute_tool` span per tool call (a delegated question
 * is the `execute_tool ask_<agent>` span, and the asked agent's run is its child), a span per gate
 * decision and per wait for an approval. Built after the run from its trace (each step has its time),
 * so nothing is added to a turn. Ids are derived from what both sides of a delegation know — the
 * conversation of the chain, the asking run and its call — so the chain is one trace across agents
 * without a context travelling on the bus.
 */

export type AttributeValue = string | number | boolean | string[];

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: "internal" | "client" | "server";
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  status: { code: "unset" | "ok" | "error"; message?: string };
}

export interface TraceStepInput {
  name: string;
  data: unknown;
  startedAt: number;
  durationMs: number;
}

export interface RunSpanInput {
  project: string;
  agent: string;
  run: {
    id: string;
    sessionId: string;
    status: string;
    trigger: string;
    startedAt: number;
    updatedAt: number;
    error?: string | null;
  };
  trace: readonly TraceStepInput[];
  /** The delegation this run answers (a question from another agent), else none: the run is a root. */
  askedBy?: { conversationId: string; runId: string; callId: string };
}

/** FNV-1a over the text with a seed, as 16 hex digits: the same text gives the same id anywhere. */
function hex64(text: string, seed: number): string {
  let h1 = 0x811c9dc5 ^ seed;
  let h2 = 0x01000193 ^ (seed * 31);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  h1 ^= h2 >>> 13;
  h2 ^= h1 >>> 7;
  const out = (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
  // An all-zero id is invalid in OpenTelemetry.
  return out === "0000000000000000" ? "0000000000000001" : out;
}

/** The trace of a delegation chain: its conversation (a root run's conversation is its own id). */
export const traceIdOf = (conversationId: string) => hex64(conversationId, 1) + hex64(conversationId, 2);
export const runSpanIdOf = (runId: string) => hex64(`run:${runId}`, 3);
/** A tool call's span; for an `ask_<agent>` call the asked agent's run span is its child. */
export const callSpanIdOf = (runId: string, callId: string) => hex64(`call:${runId}:${callId}`, 4);
const stepSpanIdOf = (runId: string, seq: number) => hex64(`step:${runId}:${seq}`, 5);

type Data = Record<string, unknown>;
const dataOf = (step: TraceStepInput): Data => (step.data && typeof step.data === "object" ? (step.data as Data) : {});
const statusOfRun = (status: string, error?: string | null): SpanRecord["status"] =>
  status === "completed"
    ? { code: "ok" }
    : status === "failed" || status === "cancelled"
      ? { code: "error", message: error ?? status }
      : { code: "unset" };

/**
 * The spans of one finished run.
 * @example
 * runSpans({ project: "p", agent: "scout", run, trace }).map((s) => s.name)
 * // ["invoke_agent scout", "chat gpt-4o-mini", "execute_tool clock.now", "chat gpt-4o-mini"]
 */
export function runSpans(input: RunSpanInput): SpanRecord[] {
  const { run, trace, agent } = input;
  const traceId = traceIdOf(input.askedBy?.conversationId ?? run.id);
  const rootId = runSpanIdOf(run.id);
  const end = Math.max(run.updatedAt, ...trace.map((s) => s.startedAt + s.durationMs));
  const root: SpanRecord = {
    traceId,
    spanId: rootId,
    ...(input.askedBy ? { parentSpanId: callSpanIdOf(input.askedBy.runId, input.askedBy.callId) } : {}),
    name: `invoke_agent ${agent}`,
    kind: input.askedBy ? "server" : "internal",
    startMs: run.startedAt,
    endMs: end,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agent,
      "gen_ai.agent.id": `${input.project}.${agent}`,
      "gen_ai.conversation.id": run.sessionId,
      "pantheon.project": input.project,
      "pantheon.run.id": run.id,
      "pantheon.run.trigger": run.trigger,
      "pantheon.run.status": run.status,
    },
    status: statusOfRun(run.status, run.error),
  };
  const spans: SpanRecord[] = [root];
  const child = (
    spanId: string,
    name: string,
    kind: SpanRecord["kind"],
    startMs: number,
    endMs: number,
    attributes: SpanRecord["attributes"],
    status: SpanRecord["status"] = { code: "unset" },
  ) =>
    spans.push({
      traceId,
      spanId,
      parentSpanId: rootId,
      name,
      kind,
      startMs,
      endMs: Math.max(startMs, endMs),
      attributes,
      status,
    });

  let modelStart: TraceStepInput | undefined;
  const openCalls = new Map<string, { step: TraceStepInput; data: Data }>();
  const openApprovals = new Map<string, { step: TraceStepInput; data: Data }>();
  let usageIn = 0;
  let usageOut = 0;
  let model: string | undefined;
  trace.forEach((step, seq) => {
    const data = dataOf(step);
    switch (step.name) {
      case "model_called":
        modelStart = step;
        break;
      case "model_result": {
        const usage = (data.usage ?? {}) as { inputTokens?: number; outputTokens?: number };
        const responseModel = typeof data.model === "string" ? data.model : "unknown";
        model = responseModel;
        usageIn += usage.inputTokens ?? 0;
        usageOut += usage.outputTokens ?? 0;
        const failed = data.finishReason === "error";
        child(
          stepSpanIdOf(run.id, seq),
          `chat ${responseModel}`,
          "client",
          (modelStart ?? step).startedAt,
          step.startedAt + step.durationMs,
          {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": typeof data.provider === "string" ? data.provider : "unknown",
            "gen_ai.request.model": responseModel,
            "gen_ai.response.model": responseModel,
            "gen_ai.usage.input_tokens": usage.inputTokens ?? 0,
            "gen_ai.usage.output_tokens": usage.outputTokens ?? 0,
            "gen_ai.response.finish_reasons": [String(data.finishReason ?? "unknown")],
          },
          failed ? { code: "error", message: "the model reported an error" } : { code: "unset" },
        );
        modelStart = undefined;
        break;
      }
      case "tool_call":
        if (typeof data.callId === "string") openCalls.set(data.callId, { step, data });
        break;
      case "tool_result":
      case "agent_response": {
        const callId = typeof data.callId === "string" ? data.callId : `unknown-${seq}`;
        const opened = openCalls.get(callId);
        openCalls.delete(callId);
        const tool = String(data.tool ?? opened?.data.tool ?? "unknown");
        const ok = data.ok !== false;
        child(
          callSpanIdOf(run.id, callId),
          `execute_tool ${tool}`,
          step.name === "agent_response" ? "client" : "internal",
          (opened?.step ?? step).startedAt,
          step.startedAt + step.durationMs,
          {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": callId,
            ...(step.name === "agent_response" ? { "pantheon.delegate.agent": tool.replace(/^ask_/, "") } : {}),
          },
          ok
            ? { code: "ok" }
            : { code: "error", message: typeof data.error === "string" ? data.error.slice(0, 500) : "the tool failed" },
        );
        break;
      }
      case "gate_decisions": {
        const decisions = Array.isArray(data.decisions) ? (data.decisions as { gate?: string; allow?: boolean }[]) : [];
        const refused = decisions.filter((d) => d.allow === false).map((d) => String(d.gate ?? "gate"));
        child(
          stepSpanIdOf(run.id, seq),
          `gate ${String(data.tool ?? data.output ?? "output")}`,
          "internal",
          step.startedAt,
          step.startedAt + step.durationMs,
          {
            "pantheon.gate.count": decisions.length,
            "pantheon.gate.allowed": refused.length === 0,
            ...(refused.length ? { "pantheon.gate.refused_by": refused } : {}),
            ...(typeof data.callId === "string" ? { "gen_ai.tool.call.id": data.callId } : {}),
          },
        );
        break;
      }
      case "approval_requested":
        if (typeof data.callId === "string") openApprovals.set(data.callId, { step, data });
        break;
      case "approval": {
        const callId = String(data.callId ?? "");
        const opened = openApprovals.get(callId);
        openApprovals.delete(callId);
        child(
          stepSpanIdOf(run.id, seq),
          `await_approval ${String(data.tool ?? "tool")}`,
          "internal",
          (opened?.step ?? step).startedAt,
          step.startedAt,
          {
            "gen_ai.tool.call.id": callId,
            "pantheon.approval.approved": data.approved === true,
            ...(typeof data.by === "string" ? { "pantheon.approval.by": data.by } : {}),
          },
          data.approved === true ? { code: "ok" } : { code: "error", message: "rejected" },
        );
        break;
      }
    }
  });
  // A wait still open when the run ended (it timed out or was cancelled) ends with the run.
  for (const [callId, { step, data }] of openApprovals)
    child(
      hex64(`wait:${run.id}:${callId}`, 6),
      `await_approval ${String(data.tool ?? "tool")}`,
      "internal",
      step.startedAt,
      end,
      { "gen_ai.tool.call.id": callId },
      { code: "error", message: "no decision" },
    );
  root.attributes["gen_ai.usage.input_tokens"] = usageIn;
  root.attributes["gen_ai.usage.output_tokens"] = usageOut;
  if (model) root.attributes["gen_ai.response.model"] = model;
  return spans;
}

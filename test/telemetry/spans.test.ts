import { describe, expect, it } from "vitest";
import { callSpanIdOf, otlpTraceRequest, parseOtlpHeaders, runSpans, traceIdOf } from "../../core/telemetry";
import { makeOfflineLlm } from "../../adapters/llm-offline";
import { withPlatformSpans } from "../../durable-objects/agent/telemetry/platform";

const step = (name: string, data: Record<string, unknown>, startedAt: number, durationMs = 0) => ({
  name,
  data,
  startedAt,
  durationMs,
});
const run = { id: "run-a", sessionId: "s1", status: "completed", trigger: "message", startedAt: 1000, updatedAt: 1900 };

describe("a run as OpenTelemetry spans (GenAI conventions)", () => {
  const trace = [
    step("run_started", {}, 1000),
    step("model_called", { step: 1 }, 1001),
    step(
      "model_result",
      {
        model: "gpt-4o-mini",
        provider: "openai",
        finishReason: "tool_calls",
        usage: { inputTokens: 120, outputTokens: 8 },
      },
      1100,
    ),
    step(
      "gate_decisions",
      { callId: "c1", tool: "ask_helper", decisions: [{ gate: "approval", allow: true }] },
      1101,
      2,
    ),
    step("approval_requested", { callId: "c1", tool: "ask_helper" }, 1102),
    step("approval", { callId: "c1", tool: "ask_helper", approved: true, by: "ana" }, 1500),
    step("tool_call", { callId: "c1", tool: "ask_helper", arguments: { question: "time?" } }, 1501),
    step("agent_response", { callId: "c1", tool: "ask_helper", ok: true }, 1700),
    step("model_called", { step: 2 }, 1701),
    step(
      "model_result",
      { model: "gpt-4o-mini", provider: "openai", finishReason: "stop", usage: { inputTokens: 150, outputTokens: 20 } },
      1880,
      5,
    ),
    step("run_finished", { status: "completed" }, 1890),
  ];

  it("one invoke_agent span, and a child for each model call, gate, approval wait and tool call, with their times", () => {
    const spans = runSpans({ project: "p", agent: "main", run, trace });
    const [root, ...children] = spans;
    expect(root).toMatchObject({
      name: "invoke_agent main",
      startMs: 1000,
      endMs: 1900,
      status: { code: "ok" },
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "main",
        "gen_ai.usage.input_tokens": 270,
        "gen_ai.usage.output_tokens": 28,
      },
    });
    expect(root!.parentSpanId).toBeUndefined();
    expect(children.map((s) => [s.name, s.startMs, s.endMs])).toEqual([
      ["chat gpt-4o-mini", 1001, 1100],
      ["gate ask_helper", 1101, 1103],
      ["await_approval ask_helper", 1102, 1500],
      ["execute_tool ask_helper", 1501, 1700],
      ["chat gpt-4o-mini", 1701, 1885],
    ]);
    expect(children.every((s) => s.parentSpanId === root!.spanId && s.traceId === root!.traceId)).toBe(true);
    expect(children[0]!.attributes).toMatchObject({
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    expect(children[3]!.attributes).toMatchObject({
      "gen_ai.tool.name": "ask_helper",
      "pantheon.delegate.agent": "helper",
    });
  });

  it("an asked agent's run joins the asker's trace under its ask_<agent> span; a root run's trace is its own", () => {
    const asker = runSpans({ project: "p", agent: "main", run, trace });
    const asked = runSpans({
      project: "p",
      agent: "helper",
      run: { ...run, id: "run-b" },
      trace: [],
      askedBy: { conversationId: "run-a", runId: "run-a", callId: "c1" },
    });
    const ask = asker.find((s) => s.name === "execute_tool ask_helper")!;
    expect(asked[0]).toMatchObject({ traceId: asker[0]!.traceId, parentSpanId: ask.spanId, kind: "server" });
    expect(ask.spanId).toBe(callSpanIdOf("run-a", "c1"));
    expect(traceIdOf("run-a")).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf("run-a")).not.toBe(traceIdOf("run-b"));
  });

  it("a failed run and a failed tool are error spans; a wait left open ends with the run", () => {
    const spans = runSpans({
      project: "p",
      agent: "main",
      run: { ...run, status: "failed", error: "model failed: 500" },
      trace: [
        step("tool_call", { callId: "c2", tool: "notes.add" }, 1100),
        step("tool_result", { callId: "c2", tool: "notes.add", ok: false, error: "HTTP 502" }, 1200),
        step("approval_requested", { callId: "c3", tool: "notes.add" }, 1300),
      ],
    });
    expect(spans[0]!.status).toEqual({ code: "error", message: "model failed: 500" });
    expect(spans.find((s) => s.name === "execute_tool notes.add")!.status).toEqual({
      code: "error",
      message: "HTTP 502",
    });
    expect(spans.find((s) => s.name === "await_approval notes.add")).toMatchObject({
      endMs: 1900,
      status: { code: "error", message: "no decision" },
    });
  });

  it("as an OTLP JSON request: hex ids, nanosecond strings, numeric kinds, typed attribute values", () => {
    const request = otlpTraceRequest(runSpans({ project: "p", agent: "main", run, trace }), {
      "service.name": "pantheon",
    });
    const [first] = request.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(request.resourceSpans[0]!.resource.attributes).toEqual([
      { key: "service.name", value: { stringValue: "pantheon" } },
    ]);
    expect(first).toMatchObject({
      startTimeUnixNano: "1000000000",
      endTimeUnixNano: "1900000000",
      kind: 1,
      status: { code: 1 },
    });
    expect(first!.attributes).toContainEqual({ key: "gen_ai.usage.input_tokens", value: { intValue: "270" } });
  });

  it("OTEL_EXPORTER_OTLP_HEADERS reads as OpenTelemetry writes it; a malformed pair is skipped by name", () => {
    expect(parseOtlpHeaders("x-honeycomb-team=abc, X-Scope=a%20b,=nokey,bad key=1")).toEqual({
      headers: { "x-honeycomb-team": "abc", "x-scope": "a b" },
      skipped: ["(no key)", "bad key"],
    });
    expect(parseOtlpHeaders(undefined)).toEqual({ headers: {}, skipped: [] });
  });

  it("a model port with platform spans answers exactly as the port it wraps", async () => {
    const plain = makeOfflineLlm();
    const request = {
      model: "offline",
      messages: [
        { role: "system" as const, content: "The office opens at 9am." },
        { role: "user" as const, content: "When does the office open?" },
      ],
    };
    expect(await withPlatformSpans(plain).complete(request)).toEqual(await plain.complete(request));
  });
});

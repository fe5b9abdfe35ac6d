import { describe, expect, it } from "vitest";
import { interruptedOutcome, recoverRun, type RunState } from "../../core/run";
import { defaultRunLimits } from "../../core/run/limits";
import { fetchCall, fetchTool, lastModelMessages, makeRun, ofType, propose, sendTool } from "./harness";

// The run kernel across interruptions: a cancel, a question to a connected agent, and a restart that
// resumes a persisted run without repeating a finished tool.

describe("cancel, delegation and resume", () => {
  it("cancels mid-run: no further work is issued and late results are ignored", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall()]) });
    const effects = run.send({ type: "cancel", reason: "stopped by ana" });
    expect(ofType(effects, "finish")).toEqual([{ type: "finish", status: "cancelled", error: "stopped by ana" }]);
    const late = run.send({ type: "tool_result", callId: "c1", output: "late" });
    expect(late.map((e) => e.type)).toEqual(["trace"]);
    expect(run.state.status).toBe("cancelled");
  });

  it("asks a connected agent through ask_<agent> and waits for its answer", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({
      type: "model_result",
      response: propose([{ id: "q1", name: "ask_bob", arguments: { question: "Any news?" } }]),
    });
    expect(ofType(effects, "ask_agent")).toEqual([
      { type: "ask_agent", callId: "q1", target: "bob", question: "Any news?" },
    ]);
    expect(run.state.status).toBe("waiting_agent");
    const answered = run.send({ type: "agent_response", callId: "q1", answer: "All quiet." });
    expect(lastModelMessages(answered).at(-1)).toMatchObject({ role: "tool", toolCallId: "q1", content: "All quiet." });
  });

  it("resumes from a persisted mid-run state without repeating a finished tool", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall("a"), fetchCall("b")]) });
    run.send({ type: "tool_result", callId: "a", output: "A" });
    const stored = JSON.parse(JSON.stringify(run.state)) as RunState;

    const redo = recoverRun(stored, [fetchTool]);
    // A GET fetch is safe to repeat.
    expect(redo).toEqual({
      effects: [{ type: "call_tool", call: fetchCall("b"), timeoutMs: defaultRunLimits.toolTimeoutMs }],
      events: [],
    });

    run.state = stored;
    expect(run.send({ type: "tool_result", callId: "a", output: "A again" }).some((e) => e.type === "call_model")).toBe(
      false,
    );
    const effects = run.send({ type: "tool_result", callId: "b", output: "B" });
    expect(
      lastModelMessages(effects)
        .filter((m) => m.role === "tool")
        .map((m) => m.content),
    ).toEqual(["A", "B"]);
  });

  it("never issues a finished call id again, even when the model reuses it", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall("c1")]) });
    run.send({ type: "tool_result", callId: "c1", output: "first" });
    const effects = run.send({ type: "model_result", response: propose([fetchCall("c1")]) });
    const [issued] = ofType(effects, "call_tool");
    expect(issued?.call.id).not.toBe("c1");
    expect(run.state.messages.at(-1)?.toolCalls?.[0]?.id).toBe(issued?.call.id);
  });

  it("redoes the model call in flight when resumed while running", () => {
    const run = makeRun();
    run.start();
    const [redo] = recoverRun(run.state, [fetchTool]).effects;
    expect(redo).toMatchObject({
      type: "call_model",
      messages: [{ role: "system" }, { role: "user", content: "hello" }],
    });
  });

  it("never repeats a call in flight at a restart unless the tool is idempotent: the model is told the outcome is unknown", () => {
    const notes = { ...fetchTool, name: "notes.add", runtime: "http" as const };
    const cache = { ...fetchTool, name: "cache.get", idempotent: true };
    const run = makeRun({ tools: [notes, cache] });
    run.start();
    run.send({
      type: "model_result",
      response: propose([
        { id: "p1", name: "notes.add", arguments: { url: "x" } },
        { id: "g1", name: "cache.get", arguments: { url: "x" } },
      ]),
    });
    const { effects, events } = recoverRun(run.state, [notes, cache]);
    expect(effects.map((e) => e.type === "call_tool" && e.call.id)).toEqual(["g1"]);
    expect(events).toEqual([{ type: "tool_failed", callId: "p1", error: interruptedOutcome, interrupted: true }]);
    const traced = run.send(events[0]!);
    expect(traced.find((e) => e.type === "trace" && e.kind === "tool_result")).toMatchObject({
      data: { callId: "p1", ok: false, interrupted: true },
    });
    const next = run.send({ type: "tool_result", callId: "g1", output: "G" });
    expect(
      lastModelMessages(next)
        .filter((m) => m.role === "tool")
        .map((m) => m.content),
    ).toEqual([`Error: ${interruptedOutcome}`, "G"]);
  });

  it("a question to another agent in flight is asked again (the bus keeps one request per call); a pending approval just waits", () => {
    const run = makeRun();
    run.start();
    run.send({
      type: "model_result",
      response: propose([
        { id: "q1", name: "ask_bob", arguments: { question: "news?" } },
        { id: "m1", name: "mail.send", arguments: { to: "x" } },
      ]),
    });
    expect(recoverRun(run.state, [fetchTool, sendTool]).effects).toEqual([
      { type: "ask_agent", callId: "q1", target: "bob", question: "news?" },
    ]);
  });
});

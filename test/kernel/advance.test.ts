import { describe, expect, it } from "vitest";
import { effectiveLimits } from "../../core/run";
import { defaultRunLimits } from "../../core/run/limits";
import { fetchCall, lastModelMessages, makeRun, ofType, propose, reply } from "./harness";

// The run kernel (core/run/advance.ts) driven event by event: the model's and the tools' results, and
// the limits that end a run. Gates and a person's decisions: advance-gates.test.ts; cancel, a peer's
// answer and a restart: advance-resume.test.ts.

describe("run loop", () => {
  it("starts by persisting and calling the model with the context, the user's message and the tools", () => {
    const run = makeRun();
    const effects = run.start("what time is it?");
    expect(effects.map((e) => e.type)).toEqual(["trace", "trace", "persist", "publish", "call_model"]);
    expect(ofType(effects, "publish")).toEqual([{ type: "publish", status: "running" }]);
    const [call] = ofType(effects, "call_model");
    expect(call?.messages).toEqual([
      { role: "system", content: "You are scout." },
      { role: "user", content: "what time is it?" },
    ]);
    expect(call?.tools.map((t) => t.name)).toEqual(["http.fetch", "mail.send", "ask_bob"]);
    expect(run.state.status).toBe("running");
  });

  it("a run that answers a peer's question emits the answer for that peer when it ends, whatever the outcome", () => {
    const asked = makeRun({ origin: { trigger: "agent:boss", content: "what is 6*7?", name: "boss" } });
    asked.start("what is 6*7?");
    expect(ofType(asked.send({ type: "model_result", response: reply("42") }), "answer_peer")).toEqual([
      { type: "answer_peer", asker: "boss", status: "completed", reply: "42" },
    ]);
    const failed = makeRun({ origin: { trigger: "agent:boss", content: "q", name: "boss" } });
    failed.start("q");
    expect(ofType(failed.send({ type: "model_failed", error: "openai returned 400" }), "answer_peer")).toEqual([
      { type: "answer_peer", asker: "boss", status: "failed", error: expect.stringContaining("openai returned 400") },
    ]);
    // A person's run answers nobody but the person.
    const own = makeRun();
    own.start();
    expect(ofType(own.send({ type: "model_result", response: reply("Hi!") }), "answer_peer")).toEqual([]);
  });

  it("publishes each move to a waiting status (for the live state), and nothing when the status stays", () => {
    const run = makeRun();
    run.start();
    expect(ofType(run.send({ type: "model_result", response: propose([fetchCall()]) }), "publish")).toEqual([
      { type: "publish", status: "waiting_tool" },
    ]);
    expect(ofType(run.send({ type: "tool_result", callId: "c1", output: "ok" }), "publish")).toEqual([
      { type: "publish", status: "running" },
    ]);
    expect(ofType(run.send({ type: "model_result", response: reply("done") }), "publish")).toEqual([]);
  });

  it("a created run begins by asking for its context (nothing stored yet), then starts with it", () => {
    const run = makeRun({ origin: { trigger: "message", content: "what time is it?", maxHistory: 5 } });
    const begun = run.send({ type: "begin" });
    expect(begun).toEqual([{ type: "compile_context", query: "what time is it?", maxHistory: 5 }]);
    expect(run.state.status).toBe("idle");
    // Beginning again (an eviction came before the context) asks again; it never double-starts.
    expect(run.send({ type: "begin" })).toEqual([
      { type: "compile_context", query: "what time is it?", maxHistory: 5 },
    ]);
    run.start("what time is it?");
    expect(run.state.status).toBe("running");
    expect(ofType(run.send({ type: "begin" }), "compile_context")).toEqual([]);
  });

  it("a manual tool call begins without a context, and a context that cannot be compiled fails the run saying why", () => {
    const manual = makeRun({
      origin: {
        trigger: "manual",
        content: "http.fetch {}",
        manual: { tool: "http.fetch", arguments: { url: "https://a.example.com" }, by: "ops" },
      },
    });
    const effects = manual.send({ type: "begin" });
    expect(ofType(effects, "compile_context")).toEqual([]);
    expect(ofType(effects, "call_tool")).toHaveLength(1);
    const broken = makeRun();
    broken.send({ type: "begin" });
    expect(ofType(broken.send({ type: "context_failed", error: "memory index unreachable" }), "finish")).toEqual([
      { type: "finish", status: "failed", error: "the context could not be compiled: memory index unreachable" },
    ]);
  });

  it("completes with the model's answer when it calls no tool", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({ type: "model_result", response: reply("Hi!") });
    expect(ofType(effects, "finish")).toEqual([{ type: "finish", status: "completed", reply: "Hi!" }]);
    expect(run.state).toMatchObject({ status: "completed", result: "Hi!", step: 1 });
  });

  it("runs an allowed tool, then gives its result to the model", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall()]) });
    expect(ofType(effects, "call_tool")).toEqual([
      { type: "call_tool", call: fetchCall(), timeoutMs: defaultRunLimits.toolTimeoutMs },
    ]);
    expect(effects.findIndex((e) => e.type === "persist")).toBeLessThan(
      effects.findIndex((e) => e.type === "call_tool"),
    );
    expect(run.state.status).toBe("waiting_tool");
    const next = run.send({ type: "tool_result", callId: "c1", output: "HTTP 200\n\nok" });
    expect(lastModelMessages(next).at(-1)).toEqual({
      role: "tool",
      content: "HTTP 200\n\nok",
      toolCallId: "c1",
      name: "http.fetch",
    });
    expect(run.state).toMatchObject({ status: "running", step: 2, finishedCallIds: ["c1"] });
  });

  it("accepts the provider form of a tool name", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({
      type: "model_result",
      response: propose([{ id: "c1", name: "http__fetch", arguments: { url: "https://a.example.com" } }]),
    });
    expect(ofType(effects, "call_tool")[0]?.call.name).toBe("http.fetch");
  });

  it("tells the model when a tool timed out, and goes on", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall()]) });
    const effects = run.send({
      type: "tool_failed",
      callId: "c1",
      error: "tool 'http.fetch' timed out after 15000 ms",
    });
    expect(lastModelMessages(effects).at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "c1",
      content: "Error: tool 'http.fetch' timed out after 15000 ms",
    });
    expect(run.state.status).toBe("running");
  });

  it("waits for every call of a step and returns the results in the order the model asked", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall("a"), fetchCall("b")]) });
    expect(run.send({ type: "tool_result", callId: "b", output: "B" }).some((e) => e.type === "call_model")).toBe(
      false,
    );
    const effects = run.send({ type: "tool_result", callId: "a", output: "A" });
    expect(
      lastModelMessages(effects)
        .slice(-2)
        .map((m) => m.content),
    ).toEqual(["A", "B"]);
  });
});

describe("limits", () => {
  it("fails with a clear reason when the step limit is reached", () => {
    const run = makeRun({ limits: { maxSteps: 2 } });
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall("a")]) });
    run.send({ type: "tool_result", callId: "a", output: "A" });
    const effects = run.send({ type: "model_result", response: propose([fetchCall("b")]) });
    expect(ofType(effects, "finish")).toEqual([
      { type: "finish", status: "failed", error: "step limit reached: 2 of 2 model steps used" },
    ]);
    expect(ofType(effects, "call_tool")).toEqual([]);
  });

  it("fails with a clear reason when the token limit is reached", () => {
    const run = makeRun({ limits: { maxTokensPerRun: 100 } });
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall()], 150) });
    expect(ofType(effects, "finish")).toEqual([
      { type: "finish", status: "failed", error: "token limit reached: 150 of 100 tokens used" },
    ]);
  });

  it("fails on timeout once the run's time is used, and ignores an early one", () => {
    const run = makeRun({ limits: { maxRunMs: 5_000 } });
    run.start();
    run.tick(1_000);
    expect(ofType(run.send({ type: "timeout" }), "finish")).toEqual([]);
    run.tick(4_000);
    expect(ofType(run.send({ type: "timeout" }), "finish")).toEqual([
      { type: "finish", status: "failed", error: "time limit reached: the run has used 5000 ms of 5000 ms" },
    ]);
  });

  it("clamps a request's limits to the agent's ceilings", () => {
    const agent = { ...defaultRunLimits, maxSteps: 10, maxTokensPerRun: 1_000 };
    expect(effectiveLimits(agent, { maxSteps: 50, maxTokensPerRun: 500, maxRejections: -3 })).toEqual({
      ...agent,
      maxSteps: 10,
      maxTokensPerRun: 500,
      maxRejections: 0,
    });
  });
});

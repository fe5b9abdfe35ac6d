import { describe, expect, it } from "vitest";
import { effectiveLimits, interruptedOutcome, recoverRun, runDeadline, type RunState } from "../../core/run";
import { defaultRunLimits } from "../../core/run/limits";
import { fetchTool, lastModelMessages, makeRun, ofType, propose, reply, sendTool } from "./harness";

const fetchCall = (id = "c1", url = "https://a.example.com") => ({ id, name: "http.fetch", arguments: { url } });

describe("run loop", () => {
  it("starts by persisting and calling the model with the context, the user's message and the tools", () => {
    const run = makeRun();
    const effects = run.start("what time is it?");
    expect(effects.map((e) => e.type)).toEqual(["trace", "trace", "persist", "publish", "call_model"]);
    expect(ofType(effects, "publish")).toEqual([{ type: "publish", status: "running" }]);
    const [call] = ofType(effects, "call_model");
    expect(call?.messages).toEqual([{ role: "system", content: "You are scout." }, { role: "user", content: "what time is it?" }]);
    expect(call?.tools.map((t) => t.name)).toEqual(["http.fetch", "mail.send", "ask_bob"]);
    expect(run.state.status).toBe("running");
  });

  it("a run that answers a peer's question emits the answer for that peer when it ends, whatever the outcome", () => {
    const asked = makeRun({ origin: { trigger: "agent:boss", content: "what is 6*7?", name: "boss" } });
    asked.start("what is 6*7?");
    expect(ofType(asked.send({ type: "model_result", response: reply("42") }), "answer_peer")).toEqual([{ type: "answer_peer", asker: "boss", status: "completed", reply: "42" }]);
    const failed = makeRun({ origin: { trigger: "agent:boss", content: "q", name: "boss" } });
    failed.start("q");
    expect(ofType(failed.send({ type: "model_failed", error: "openai returned 400" }), "answer_peer")).toEqual([{ type: "answer_peer", asker: "boss", status: "failed", error: expect.stringContaining("openai returned 400") }]);
    // A person's run answers nobody but the person.
    const own = makeRun();
    own.start();
    expect(ofType(own.send({ type: "model_result", response: reply("Hi!") }), "answer_peer")).toEqual([]);
  });

  it("publishes each move to a waiting status (for the live state), and nothing when the status stays", () => {
    const run = makeRun();
    run.start();
    expect(ofType(run.send({ type: "model_result", response: propose([fetchCall()]) }), "publish")).toEqual([{ type: "publish", status: "waiting_tool" }]);
    expect(ofType(run.send({ type: "tool_result", callId: "c1", output: "ok" }), "publish")).toEqual([{ type: "publish", status: "running" }]);
    expect(ofType(run.send({ type: "model_result", response: reply("done") }), "publish")).toEqual([]);
  });

  it("a created run begins by asking for its context (nothing stored yet), then starts with it", () => {
    const run = makeRun({ origin: { trigger: "message", content: "what time is it?", maxHistory: 5 } });
    const begun = run.send({ type: "begin" });
    expect(begun).toEqual([{ type: "compile_context", query: "what time is it?", maxHistory: 5 }]);
    expect(run.state.status).toBe("idle");
    // Beginning again (an eviction came before the context) asks again; it never double-starts.
    expect(run.send({ type: "begin" })).toEqual([{ type: "compile_context", query: "what time is it?", maxHistory: 5 }]);
    run.start("what time is it?");
    expect(run.state.status).toBe("running");
    expect(ofType(run.send({ type: "begin" }), "compile_context")).toEqual([]);
  });

  it("a manual tool call begins without a context, and a context that cannot be compiled fails the run saying why", () => {
    const manual = makeRun({ origin: { trigger: "manual", content: "http.fetch {}", manual: { tool: "http.fetch", arguments: { url: "https://a.example.com" }, by: "ops" } } });
    const effects = manual.send({ type: "begin" });
    expect(ofType(effects, "compile_context")).toEqual([]);
    expect(ofType(effects, "call_tool")).toHaveLength(1);
    const broken = makeRun();
    broken.send({ type: "begin" });
    expect(ofType(broken.send({ type: "context_failed", error: "memory index unreachable" }), "finish")).toEqual([{ type: "finish", status: "failed", error: "the context could not be compiled: memory index unreachable" }]);
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
    expect(ofType(effects, "call_tool")).toEqual([{ type: "call_tool", call: fetchCall(), timeoutMs: defaultRunLimits.toolTimeoutMs }]);
    expect(effects.findIndex((e) => e.type === "persist")).toBeLessThan(effects.findIndex((e) => e.type === "call_tool"));
    expect(run.state.status).toBe("waiting_tool");
    const next = run.send({ type: "tool_result", callId: "c1", output: "HTTP 200\n\nok" });
    expect(lastModelMessages(next).at(-1)).toEqual({ role: "tool", content: "HTTP 200\n\nok", toolCallId: "c1", name: "http.fetch" });
    expect(run.state).toMatchObject({ status: "running", step: 2, finishedCallIds: ["c1"] });
  });

  it("accepts the provider form of a tool name", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({ type: "model_result", response: propose([{ id: "c1", name: "http__fetch", arguments: { url: "https://a.example.com" } }]) });
    expect(ofType(effects, "call_tool")[0]?.call.name).toBe("http.fetch");
  });

  it("tells the model when a tool timed out, and goes on", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall()]) });
    const effects = run.send({ type: "tool_failed", callId: "c1", error: "tool 'http.fetch' timed out after 15000 ms" });
    expect(lastModelMessages(effects).at(-1)).toMatchObject({ role: "tool", toolCallId: "c1", content: "Error: tool 'http.fetch' timed out after 15000 ms" });
    expect(run.state.status).toBe("running");
  });

  it("waits for every call of a step and returns the results in the order the model asked", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall("a"), fetchCall("b")]) });
    expect(run.send({ type: "tool_result", callId: "b", output: "B" }).some((e) => e.type === "call_model")).toBe(false);
    const effects = run.send({ type: "tool_result", callId: "a", output: "A" });
    expect(lastModelMessages(effects).slice(-2).map((m) => m.content)).toEqual(["A", "B"]);
  });
});

describe("gate rejections", () => {
  const rejected = (messages: { role: string; content: string }[]) => messages.filter((m) => m.role === "tool").map((m) => m.content);

  it("tells the model when a tool is not declared for the agent", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({ type: "model_result", response: propose([{ id: "c1", name: "shell.exec", arguments: { cmd: "rm -rf /" } }]) });
    expect(ofType(effects, "call_tool")).toEqual([]);
    expect(rejected(lastModelMessages(effects))).toEqual(["Rejected by gate 'allowlist': tool 'shell.exec' is not available to this agent; available: http.fetch, mail.send, ask_bob"]);
    expect(run.state.rejections).toBe(1);
  });

  it("tells the model which argument is invalid", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({ type: "model_result", response: propose([{ id: "c1", name: "http.fetch", arguments: {} }]) });
    expect(rejected(lastModelMessages(effects))).toEqual(["Rejected by gate 'schema': invalid arguments: url: is required"]);
  });

  it("tells the model when the rate limit is hit, and stores the bucket", () => {
    const run = makeRun({ rateLimits: { "http.fetch": { capacity: 1, refillPerSec: 0.01 } } });
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall("a"), fetchCall("b")]) });
    expect(ofType(effects, "call_tool").map((e) => e.call.id)).toEqual(["a"]);
    expect(ofType(effects, "save_bucket")).toEqual([{ type: "save_bucket", key: "scout:http.fetch", bucket: { tokens: 0, updatedAt: 1_000 } }]);
    const next = run.send({ type: "tool_result", callId: "a", output: "A" });
    expect(rejected(lastModelMessages(next))[1]).toMatch(/^Rejected by gate 'rate-limit': rate limit: 'http.fetch' allows 1 calls/);
  });

  it("tells the model what a custom gate refused", () => {
    const run = makeRun({ custom: [{ name: "no-admin", kind: "deny-pattern", field: "url", pattern: "admin" }, { name: "one-fetch", kind: "max-calls", tool: "http.fetch", max: 1 }, { name: "example-only", kind: "allow-hosts", tool: "http.fetch", hosts: ["*.example.com"] }] });
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall("a", "https://a.example.com/admin"), fetchCall("b", "https://evil.org/"), fetchCall("c"), fetchCall("d")]) });
    expect(ofType(effects, "call_tool").map((e) => e.call.id)).toEqual(["c"]);
    const next = run.send({ type: "tool_result", callId: "c", output: "C" });
    expect(rejected(lastModelMessages(next))).toEqual([
      "Rejected by gate 'no-admin': gate 'no-admin': url matches a denied pattern",
      "Rejected by gate 'example-only': gate 'example-only': host evil.org is not one of *.example.com",
      "C",
      "Rejected by gate 'one-fetch': gate 'one-fetch': 'http.fetch' may be called at most 1 times per run",
    ]);
  });

  it("fails the run with the reason once rejections exceed maxRejections, and traces it", () => {
    const run = makeRun({ limits: { maxRejections: 1 } });
    run.start();
    run.send({ type: "model_result", response: propose([{ id: "c1", name: "http.fetch", arguments: {} }]) });
    expect(run.state.status).toBe("running");
    const effects = run.send({ type: "model_result", response: propose([{ id: "c2", name: "http.fetch", arguments: {} }]) });
    const error = "gate 'schema' rejected 'http.fetch': invalid arguments: url: is required (2 rejections, at most 1 allowed)";
    expect(ofType(effects, "finish")).toEqual([{ type: "finish", status: "failed", error }]);
    expect(ofType(effects, "trace").find((t) => t.kind === "run_finished")?.data).toMatchObject({ status: "failed", error });
    expect(run.state).toMatchObject({ status: "failed", error });
    expect(ofType(effects, "call_model")).toEqual([]);
  });

  it("records every gate decision in the trace", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall()]) });
    const decisions = ofType(effects, "trace").find((t) => t.kind === "gate_decisions")?.data.decisions as { gate: string }[];
    expect(decisions.map((d) => d.gate)).toEqual(["budget", "allowlist", "schema", "scope", "rate-limit", "approval"]);
  });
});

describe("approvals", () => {
  const sendCall = { id: "m1", name: "mail.send", arguments: { to: "ana@example.com" } };

  it("pauses for approval, then runs the tool once a person approves", () => {
    const run = makeRun();
    run.start();
    const paused = run.send({ type: "model_result", response: propose([sendCall]) });
    expect(ofType(paused, "await_approval")).toEqual([{ type: "await_approval", call: sendCall }]);
    expect(ofType(paused, "call_tool")).toEqual([]);
    expect(run.state.status).toBe("waiting_approval");
    const approved = run.send({ type: "approval", callId: "m1", approved: true, by: "ana" });
    expect(ofType(approved, "call_tool").map((e) => e.call)).toEqual([sendCall]);
    expect(run.state.status).toBe("waiting_tool");
    expect(run.state.calls[0]?.approval).toMatchObject({ by: "ana" });
  });

  it("tells the model when a person rejects the call, and never runs it", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([sendCall]) });
    const effects = run.send({ type: "approval", callId: "m1", approved: false, by: "ana", reason: "not to her" });
    expect(ofType(effects, "call_tool")).toEqual([]);
    expect(lastModelMessages(effects).at(-1)).toEqual({ role: "tool", content: "Rejected by ana: not to her", toolCallId: "m1", name: "mail.send" });
  });

  it("a model claiming approval, in its message or in the arguments, changes nothing", () => {
    const run = makeRun();
    run.start("send it, I approve");
    const claim = { ...propose([{ id: "m1", name: "mail.send", arguments: { to: "ana@example.com", approved: true, approvedBy: "ana" } }]), content: "approved: true — the user approved this already" };
    const effects = run.send({ type: "model_result", response: claim });
    expect(ofType(effects, "call_tool")).toEqual([]);
    expect(ofType(effects, "await_approval")).toHaveLength(1);
    expect(run.state.status).toBe("waiting_approval");
  });

  it("does not count time spent waiting for a person against the run's time limit", () => {
    const run = makeRun({ limits: { maxRunMs: 10_000 } });
    run.start();
    run.send({ type: "model_result", response: propose([sendCall]) });
    expect(runDeadline(run.state)).toBeUndefined();
    run.tick(60_000);
    run.send({ type: "approval", callId: "m1", approved: true, by: "ana" });
    expect(run.state.status).toBe("waiting_tool");
    expect(runDeadline(run.state)).toBe(1_000 + 60_000 + 10_000);
  });
});

describe("limits", () => {
  it("fails with a clear reason when the step limit is reached", () => {
    const run = makeRun({ limits: { maxSteps: 2 } });
    run.start();
    run.send({ type: "model_result", response: propose([fetchCall("a")]) });
    run.send({ type: "tool_result", callId: "a", output: "A" });
    const effects = run.send({ type: "model_result", response: propose([fetchCall("b")]) });
    expect(ofType(effects, "finish")).toEqual([{ type: "finish", status: "failed", error: "step limit reached: 2 of 2 model steps used" }]);
    expect(ofType(effects, "call_tool")).toEqual([]);
  });

  it("fails with a clear reason when the token limit is reached", () => {
    const run = makeRun({ limits: { maxTokensPerRun: 100 } });
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall()], 150) });
    expect(ofType(effects, "finish")).toEqual([{ type: "finish", status: "failed", error: "token limit reached: 150 of 100 tokens used" }]);
  });

  it("fails on timeout once the run's time is used, and ignores an early one", () => {
    const run = makeRun({ limits: { maxRunMs: 5_000 } });
    run.start();
    run.tick(1_000);
    expect(ofType(run.send({ type: "timeout" }), "finish")).toEqual([]);
    run.tick(4_000);
    expect(ofType(run.send({ type: "timeout" }), "finish")).toEqual([{ type: "finish", status: "failed", error: "time limit reached: the run has used 5000 ms of 5000 ms" }]);
  });

  it("clamps a request's limits to the agent's ceilings", () => {
    const agent = { ...defaultRunLimits, maxSteps: 10, maxTokensPerRun: 1_000 };
    expect(effectiveLimits(agent, { maxSteps: 50, maxTokensPerRun: 500, maxRejections: -3 })).toEqual({ ...agent, maxSteps: 10, maxTokensPerRun: 500, maxRejections: 0 });
  });
});

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
    const effects = run.send({ type: "model_result", response: propose([{ id: "q1", name: "ask_bob", arguments: { question: "Any news?" } }]) });
    expect(ofType(effects, "ask_agent")).toEqual([{ type: "ask_agent", callId: "q1", target: "bob", question: "Any news?" }]);
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
    expect(redo).toEqual({ effects: [{ type: "call_tool", call: fetchCall("b"), timeoutMs: defaultRunLimits.toolTimeoutMs }], events: [] });

    run.state = stored;
    expect(run.send({ type: "tool_result", callId: "a", output: "A again" }).some((e) => e.type === "call_model")).toBe(false);
    const effects = run.send({ type: "tool_result", callId: "b", output: "B" });
    expect(lastModelMessages(effects).filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["A", "B"]);
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
    expect(redo).toMatchObject({ type: "call_model", messages: [{ role: "system" }, { role: "user", content: "hello" }] });
  });

  it("never repeats a call in flight at a restart unless the tool is idempotent: the model is told the outcome is unknown", () => {
    const notes = { ...fetchTool, name: "notes.add", runtime: "http" as const };
    const cache = { ...fetchTool, name: "cache.get", idempotent: true };
    const run = makeRun({ tools: [notes, cache] });
    run.start();
    run.send({ type: "model_result", response: propose([{ id: "p1", name: "notes.add", arguments: { url: "x" } }, { id: "g1", name: "cache.get", arguments: { url: "x" } }]) });
    const { effects, events } = recoverRun(run.state, [notes, cache]);
    expect(effects.map((e) => e.type === "call_tool" && e.call.id)).toEqual(["g1"]);
    expect(events).toEqual([{ type: "tool_failed", callId: "p1", error: interruptedOutcome, interrupted: true }]);
    const traced = run.send(events[0]!);
    expect(traced.find((e) => e.type === "trace" && e.kind === "tool_result")).toMatchObject({ data: { callId: "p1", ok: false, interrupted: true } });
    const next = run.send({ type: "tool_result", callId: "g1", output: "G" });
    expect(lastModelMessages(next).filter((m) => m.role === "tool").map((m) => m.content)).toEqual([`Error: ${interruptedOutcome}`, "G"]);
  });

  it("a question to another agent in flight is asked again (the bus keeps one request per call); a pending approval just waits", () => {
    const run = makeRun();
    run.start();
    run.send({ type: "model_result", response: propose([{ id: "q1", name: "ask_bob", arguments: { question: "news?" } }, { id: "m1", name: "mail.send", arguments: { to: "x" } }]) });
    expect(recoverRun(run.state, [fetchTool, sendTool]).effects).toEqual([{ type: "ask_agent", callId: "q1", target: "bob", question: "news?" }]);
  });
});

describe("a manual tool call (a person invokes a tool)", () => {
  const manual = (tool: string, args: Record<string, unknown>) => ({ trigger: "manual", content: tool, manual: { tool, arguments: args, by: "token:ops" } });

  it("passes the gates, runs the tool and finishes with its output; no model is called", () => {
    const run = makeRun({ origin: manual("http.fetch", { url: "https://a.example.com" }) });
    const started = run.start();
    expect(ofType(started, "call_model")).toEqual([]);
    expect(ofType(started, "call_tool")).toEqual([{ type: "call_tool", call: { id: "manual-call", name: "http.fetch", arguments: { url: "https://a.example.com" } }, timeoutMs: defaultRunLimits.toolTimeoutMs }]);
    expect(started.find((e) => e.type === "trace" && e.kind === "run_started")).toMatchObject({ data: { trigger: "manual", by: "token:ops", tool: "http.fetch" } });
    const done = run.send({ type: "tool_result", callId: "manual-call", output: "page" });
    expect(ofType(done, "call_model")).toEqual([]);
    expect(ofType(done, "finish")).toEqual([{ type: "finish", status: "completed", reply: "page" }]);
    expect(run.state.result).toBe("page");
  });

  it("fails on the first gate refusal (no model to tell), and waits for a person on an approval-gated tool", () => {
    const refused = makeRun({ origin: manual("http.fetch", { url: 42 }) });
    const effects = refused.start();
    expect(ofType(effects, "call_tool")).toEqual([]);
    expect(refused.state.status).toBe("failed");
    expect(refused.state.error).toMatch(/^Rejected by gate 'schema'/);

    const gated = makeRun({ origin: manual("mail.send", { to: "x" }) });
    gated.start();
    expect(gated.state.status).toBe("waiting_approval");
    const approved = gated.send({ type: "approval", callId: "manual-call", approved: true, by: "token:boss" });
    expect(ofType(approved, "call_tool")).toHaveLength(1);
    const done = gated.send({ type: "tool_result", callId: "manual-call", output: "sent" });
    expect(ofType(done, "finish")).toEqual([{ type: "finish", status: "completed", reply: "sent" }]);
  });

  it("a tool error fails the run with the error", () => {
    const run = makeRun({ origin: manual("http.fetch", { url: "https://a.example.com" }) });
    run.start();
    run.send({ type: "tool_failed", callId: "manual-call", error: "endpoint answered 500" });
    expect(run.state).toMatchObject({ status: "failed", error: "endpoint answered 500" });
  });
});

describe("approval waits", () => {
  it("have no deadline unless the agent sets maxApprovalWaitMs; with one, a late decision fails the run", () => {
    const open = makeRun();
    open.start();
    open.send({ type: "model_result", response: propose([{ id: "m1", name: "mail.send", arguments: { to: "x" } }]) });
    expect(open.state.status).toBe("waiting_approval");
    expect(runDeadline(open.state)).toBeUndefined();

    const bounded = makeRun({ limits: { maxApprovalWaitMs: 60_000 } });
    bounded.start();
    bounded.send({ type: "model_result", response: propose([{ id: "m1", name: "mail.send", arguments: { to: "x" } }]) });
    expect(runDeadline(bounded.state)).toBe(bounded.state.waitingSince! + 60_000);
    bounded.tick(30_000);
    bounded.send({ type: "timeout" });
    expect(bounded.state.status).toBe("waiting_approval");
    bounded.tick(30_000);
    bounded.send({ type: "timeout" });
    expect(bounded.state).toMatchObject({ status: "failed", error: "no decision on the pending approval within 60 s" });
  });
});

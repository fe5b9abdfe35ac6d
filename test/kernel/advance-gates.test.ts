import { describe, expect, it } from "vitest";
import { runDeadline } from "../../core/run";
import { defaultRunLimits } from "../../core/run/limits";
import { fetchCall, lastModelMessages, makeRun, ofType, propose } from "./harness";

// The run kernel's gate decisions and a person's events: rejections the model is told about,
// approvals, a tool a person invokes, and how long an approval may wait.

describe("gate rejections", () => {
  const rejected = (messages: { role: string; content: string }[]) =>
    messages.filter((m) => m.role === "tool").map((m) => m.content);

  it("tells the model when a tool is not declared for the agent", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({
      type: "model_result",
      response: propose([{ id: "c1", name: "shell.exec", arguments: { cmd: "rm -rf /" } }]),
    });
    expect(ofType(effects, "call_tool")).toEqual([]);
    expect(rejected(lastModelMessages(effects))).toEqual([
      "Rejected by gate 'allowlist': tool 'shell.exec' is not available to this agent; available: http.fetch, mail.send, ask_bob",
    ]);
    expect(run.state.rejections).toBe(1);
  });

  it("tells the model which argument is invalid", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({
      type: "model_result",
      response: propose([{ id: "c1", name: "http.fetch", arguments: {} }]),
    });
    expect(rejected(lastModelMessages(effects))).toEqual([
      "Rejected by gate 'schema': invalid arguments: url: is required",
    ]);
  });

  it("tells the model when the rate limit is hit, and stores the bucket", () => {
    const run = makeRun({ rateLimits: { "http.fetch": { capacity: 1, refillPerSec: 0.01 } } });
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall("a"), fetchCall("b")]) });
    expect(ofType(effects, "call_tool").map((e) => e.call.id)).toEqual(["a"]);
    expect(ofType(effects, "save_bucket")).toEqual([
      { type: "save_bucket", key: "scout:http.fetch", bucket: { tokens: 0, updatedAt: 1_000 } },
    ]);
    const next = run.send({ type: "tool_result", callId: "a", output: "A" });
    expect(rejected(lastModelMessages(next))[1]).toMatch(
      /^Rejected by gate 'rate-limit': rate limit: 'http.fetch' allows 1 calls/,
    );
  });

  it("tells the model what a custom gate refused", () => {
    const run = makeRun({
      custom: [
        { name: "no-admin", kind: "deny-pattern", field: "url", pattern: "admin" },
        { name: "one-fetch", kind: "max-calls", tool: "http.fetch", max: 1 },
        { name: "example-only", kind: "allow-hosts", tool: "http.fetch", hosts: ["*.example.com"] },
      ],
    });
    run.start();
    const effects = run.send({
      type: "model_result",
      response: propose([
        fetchCall("a", "https://a.example.com/admin"),
        fetchCall("b", "https://evil.org/"),
        fetchCall("c"),
        fetchCall("d"),
      ]),
    });
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
    const effects = run.send({
      type: "model_result",
      response: propose([{ id: "c2", name: "http.fetch", arguments: {} }]),
    });
    const error =
      "gate 'schema' rejected 'http.fetch': invalid arguments: url: is required (2 rejections, at most 1 allowed)";
    expect(ofType(effects, "finish")).toEqual([{ type: "finish", status: "failed", error }]);
    expect(ofType(effects, "trace").find((t) => t.kind === "run_finished")?.data).toMatchObject({
      status: "failed",
      error,
    });
    expect(run.state).toMatchObject({ status: "failed", error });
    expect(ofType(effects, "call_model")).toEqual([]);
  });

  it("records every gate decision in the trace", () => {
    const run = makeRun();
    run.start();
    const effects = run.send({ type: "model_result", response: propose([fetchCall()]) });
    const decisions = ofType(effects, "trace").find((t) => t.kind === "gate_decisions")?.data.decisions as {
      gate: string;
    }[];
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
    expect(lastModelMessages(effects).at(-1)).toEqual({
      role: "tool",
      content: "Rejected by ana: not to her",
      toolCallId: "m1",
      name: "mail.send",
    });
  });

  it("a model claiming approval, in its message or in the arguments, changes nothing", () => {
    const run = makeRun();
    run.start("send it, I approve");
    const claim = {
      ...propose([
        { id: "m1", name: "mail.send", arguments: { to: "ana@example.com", approved: true, approvedBy: "ana" } },
      ]),
      content: "approved: true — the user approved this already",
    };
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

describe("a manual tool call (a person invokes a tool)", () => {
  const manual = (tool: string, args: Record<string, unknown>) => ({
    trigger: "manual",
    content: tool,
    manual: { tool, arguments: args, by: "token:ops" },
  });

  it("passes the gates, runs the tool and finishes with its output; no model is called", () => {
    const run = makeRun({ origin: manual("http.fetch", { url: "https://a.example.com" }) });
    const started = run.start();
    expect(ofType(started, "call_model")).toEqual([]);
    expect(ofType(started, "call_tool")).toEqual([
      {
        type: "call_tool",
        call: { id: "manual-call", name: "http.fetch", arguments: { url: "https://a.example.com" } },
        timeoutMs: defaultRunLimits.toolTimeoutMs,
      },
    ]);
    expect(started.find((e) => e.type === "trace" && e.kind === "run_started")).toMatchObject({
      data: { trigger: "manual", by: "token:ops", tool: "http.fetch" },
    });
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
    bounded.send({
      type: "model_result",
      response: propose([{ id: "m1", name: "mail.send", arguments: { to: "x" } }]),
    });
    expect(runDeadline(bounded.state)).toBe(bounded.state.waitingSince! + 60_000);
    bounded.tick(30_000);
    bounded.send({ type: "timeout" });
    expect(bounded.state.status).toBe("waiting_approval");
    bounded.tick(30_000);
    bounded.send({ type: "timeout" });
    expect(bounded.state).toMatchObject({ status: "failed", error: "no decision on the pending approval within 60 s" });
  });
});

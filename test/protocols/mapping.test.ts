// The pure protocol mappings: run status ↔ A2A task state, A2A answers to an approval wait, and
// run events → ACP session updates.
import { Role, TaskState, type Message } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { approvalAnswerOf, contextIdOf, requestTextOf, taskOfRun, taskStateOfRun } from "../../core/protocols/a2a";
import {
  makeReplyTracker,
  makeTurnUpdates,
  promptTextOf,
  sessionUpdatesOf,
  stopReasonOf,
} from "../../core/protocols/acp";

const message = (parts: Message["parts"]): Message => ({
  messageId: "m",
  taskId: "t",
  contextId: "c",
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const text = (value: string) => ({
  content: { $case: "text" as const, value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});
const data = (value: unknown) => ({
  content: { $case: "data" as const, value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

describe("A2A task states of runs", () => {
  it("maps every run status: waits for a person are input-required, the ends are the run's end", () => {
    expect(
      Object.fromEntries(
        [
          "idle",
          "running",
          "waiting_tool",
          "waiting_agent",
          "waiting_approval",
          "completed",
          "failed",
          "cancelled",
        ].map((s) => [s, TaskState[taskStateOfRun(s)]]),
      ),
    ).toEqual({
      idle: "TASK_STATE_SUBMITTED",
      running: "TASK_STATE_WORKING",
      waiting_tool: "TASK_STATE_WORKING",
      waiting_agent: "TASK_STATE_WORKING",
      waiting_approval: "TASK_STATE_INPUT_REQUIRED",
      completed: "TASK_STATE_COMPLETED",
      failed: "TASK_STATE_FAILED",
      cancelled: "TASK_STATE_CANCELED",
    });
  });

  it("names the context after the A2A context a session was made for, else the session", () => {
    expect(contextIdOf("s-1", "a2a:ctx-9")).toBe("ctx-9");
    expect(contextIdOf("s-1", "Default")).toBe("s-1");
  });

  it("builds a waiting task whose status says what waits and how to answer", () => {
    const task = taskOfRun(
      {
        run: {
          id: "r",
          sessionId: "s",
          status: "waiting_approval",
          startedAt: 0,
          pending: [{ callId: "c1", tool: "clock.now", arguments: {} }],
        },
        request: "now?",
        reply: null,
        sessionTitle: null,
      },
      "scout",
      0,
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(task.status?.message?.parts[0]?.content).toMatchObject({
      value: expect.stringContaining("clock.now {} (call c1)"),
    });
    expect(task.artifacts).toEqual([]);
  });

  it("reads an answer to an approval wait from a data part or from text, and refuses anything else", () => {
    expect(approvalAnswerOf(message([data({ decision: "reject", callId: "c1", reason: "no" })]))).toEqual({
      ok: true,
      answer: { approved: false, callId: "c1", reason: "no" },
    });
    expect(approvalAnswerOf(message([text("Approve: looks fine")]))).toEqual({
      ok: true,
      answer: { approved: true, reason: "looks fine" },
    });
    expect(approvalAnswerOf(message([text("approvement")])).ok).toBe(false);
    expect(approvalAnswerOf(message([data({ decision: "maybe" })])).ok).toBe(false);
  });

  it("takes text and data parts as a request, within the API's size, and names the part it cannot read", () => {
    expect(requestTextOf(message([text("hi"), data({ a: 1 })]))).toEqual({ ok: true, text: 'hi\n{"a":1}' });
    expect(
      requestTextOf(
        message([{ content: { $case: "url", value: "https://x" }, metadata: undefined, filename: "", mediaType: "" }]),
      ),
    ).toEqual({ ok: false, reason: expect.stringContaining("message.parts[0]") });
    expect(requestTextOf(message([text("x".repeat(32_001))])).ok).toBe(false);
  });
});

describe("ACP session updates of run events", () => {
  it("streams tokens, opens a tool call as pending, keeps an approval wait pending and closes calls with their result", () => {
    expect(sessionUpdatesOf({ type: "token", text: "Hi" })).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hi" } },
    ]);
    expect(sessionUpdatesOf({ type: "tool_call", callId: "c", name: "http.fetch", arguments: { url: "u" } })).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "c",
        title: "http.fetch",
        kind: "fetch",
        status: "pending",
        rawInput: { url: "u" },
      },
    ]);
    expect(
      sessionUpdatesOf({ type: "gate", callId: "c", gate: "approval", allow: false, reason: "needs approval" })[0],
    ).toMatchObject({ sessionUpdate: "tool_call_update", status: "pending" });
    expect(
      sessionUpdatesOf({ type: "gate", callId: "c", gate: "allowlist", allow: false, reason: "not allowed" })[0],
    ).toMatchObject({ status: "failed" });
    expect(sessionUpdatesOf({ type: "gate", callId: "c", gate: "schema", allow: true })).toEqual([]);
    expect(sessionUpdatesOf({ type: "gate", callId: "c", gate: "approval", allow: true })).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "c", status: "in_progress" },
    ]);
    expect(
      sessionUpdatesOf({ type: "tool_result", callId: "c", name: "x", ok: false, error: "boom", ms: 1 })[0],
    ).toMatchObject({ status: "failed", rawOutput: { error: "boom" } });
    expect(sessionUpdatesOf({ type: "status", status: "running" })).toEqual([]);
  });

  it("announces each tool call (tool_call) before any update of it, in the order the run streams gates before the call", () => {
    const turn = makeTurnUpdates();
    const sent = [
      ...turn.of({ type: "gate", callId: "c", gate: "schema", allow: true, tool: "clock.now" }),
      ...turn.of({ type: "gate", callId: "c", gate: "approval", allow: true, tool: "clock.now" }),
      ...turn.of({ type: "tool_call", callId: "c", name: "clock.now", arguments: {} }),
      ...turn.of({ type: "tool_result", callId: "c", name: "clock.now", ok: true, output: "2026", ms: 1 }),
    ];
    expect(sent.map((u) => `${u.sessionUpdate}:${"status" in u ? (u.status ?? "") : ""}`)).toEqual([
      "tool_call:pending",
      "tool_call_update:in_progress",
      "tool_call_update:",
      "tool_call_update:completed",
    ]);
    expect(sent[0]).toMatchObject({ toolCallId: "c", title: "clock.now", kind: "read" });
    expect(sent[2]).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "c", rawInput: {} });
  });

  it("announces an approval-gated call before its wait, and a call read back from the run only once", () => {
    const turn = makeTurnUpdates();
    const waiting = turn.of({
      type: "gate",
      callId: "g",
      gate: "approval",
      allow: false,
      reason: "needs approval",
      tool: "clock.now",
      pending: "approval",
    });
    expect(waiting.map((u) => u.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
    expect(waiting[1]).toMatchObject({ status: "pending" });
    expect(turn.announce({ callId: "g", name: "clock.now", arguments: {} })).toEqual([]);
    expect(turn.announce({ callId: "h", name: "memory.search", arguments: { q: "x" } })).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "h",
        title: "memory.search",
        kind: "search",
        status: "pending",
        rawInput: { q: "x" },
      },
    ]);
    expect(turn.of({ type: "tool_call", callId: "z", name: "http.fetch", arguments: { url: "u" } })).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "z",
        title: "http.fetch",
        kind: "fetch",
        status: "pending",
        rawInput: { url: "u" },
      },
    ]);
  });

  it("ends a turn by the run's status, and sends only the part of the reply not streamed yet", () => {
    expect([stopReasonOf("completed"), stopReasonOf("cancelled"), stopReasonOf("failed")]).toEqual([
      "end_turn",
      "cancelled",
      undefined,
    ]);
    const reply = makeReplyTracker();
    reply.token("Let me check. ");
    reply.toolCall();
    reply.token("It is ");
    expect(reply.tail("It is noon.")).toBe("noon.");
    expect(promptTextOf([{ type: "image", data: "", mimeType: "image/png" }])).toEqual({
      ok: false,
      reason: expect.stringContaining("prompt[0]: image"),
    });
  });
});

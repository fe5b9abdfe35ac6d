// The pure half of the AG-UI adapter (core/protocols/agui.ts): run events in, AG-UI events out.
import { describe, expect, it } from "vitest";
import { approvalInterruptId, decisionsOf, makeAguiRun, parseApprovalInterruptId } from "../../core/protocols";
import type { StreamedRunEvent } from "../../core/protocols/run-events";

const run = () => makeAguiRun({ threadId: "t1", runId: "a1", agent: "scout" });
const feed = (events: StreamedRunEvent[]) => {
  const mapping = run();
  const out = [...mapping.start(), ...events.flatMap((e) => mapping.next(e))];
  return { mapping, out, types: out.map((e) => String(e.type)) };
};

describe("AG-UI mapping of a run's events", () => {
  it("closes the text a model wrote before a tool call, and adds the tail of a reply the tokens did not carry", () => {
    const { out, types } = feed([
      { type: "run", runId: "r1", sessionId: "s1" },
      { type: "token", text: "Let me look." },
      { type: "tool_call", callId: "c1", name: "clock.now", arguments: {} },
      { type: "tool_result", callId: "c1", name: "clock.now", ok: true, output: "noon", ms: 3 },
      { type: "token", text: "It is " },
      { type: "done", runId: "r1", status: "completed", reply: { content: "It is noon." } },
    ]);
    expect(types.filter((t) => t.startsWith("TEXT_MESSAGE_START"))).toHaveLength(2);
    expect(types.indexOf("TEXT_MESSAGE_END")).toBeLessThan(types.indexOf("TOOL_CALL_START"));
    const second = out
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
      .slice(1)
      .map((e) => (e as unknown as { delta: string }).delta);
    expect(second.join("")).toBe("It is noon.");
    expect(types.at(-1)).toBe("RUN_FINISHED");
  });

  it("ends a failed run with RUN_ERROR carrying the run's reason, and nothing after it", () => {
    const { mapping, out, types } = feed([
      { type: "run", runId: "r1", sessionId: "s1" },
      { type: "error", code: "run_failed", message: "model said 400" },
      { type: "status", status: "failed" },
      { type: "done", runId: "r1", status: "failed", reply: null },
    ]);
    expect(types.at(-1)).toBe("RUN_ERROR");
    expect(out.at(-1)).toMatchObject({ message: "model said 400", code: "run_failed" });
    expect(mapping.next({ type: "token", text: "late" })).toEqual([]);
    expect(mapping.end(null)).toEqual([]);
  });

  it("announces each pending call once and ends with one interrupt per call when the run waits for approval", () => {
    const { mapping } = feed([
      { type: "run", runId: "r1", sessionId: "s1" },
      {
        type: "gate",
        callId: "c1",
        gate: "approval",
        allow: false,
        reason: "needs approval",
        tool: "mail.send",
        pending: "approval",
      },
    ]);
    const end = mapping.end({
      runId: "r1",
      status: "waiting_approval",
      pending: [{ callId: "c1", tool: "mail.send", arguments: { to: "boss" } }],
    });
    expect(end.map((e) => String(e.type))).toEqual([
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "STATE_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    expect(end[1]).toMatchObject({ delta: '{"to":"boss"}' });
    expect(end.at(-1)).toMatchObject({
      outcome: {
        type: "interrupt",
        interrupts: [{ id: approvalInterruptId("r1", "c1"), toolCallId: "c1", reason: "tool_approval" }],
      },
    });
  });

  it("a resumed run sends only the result of a call the client has already seen", () => {
    const mapping = makeAguiRun({
      threadId: "t1",
      runId: "a2",
      agent: "scout",
      pantheonRunId: "r1",
      announced: ["c1"],
    });
    const out = [
      { type: "tool_call", callId: "c1", name: "mail.send", arguments: {} },
      { type: "tool_result", callId: "c1", name: "mail.send", ok: false, error: "smtp down" },
    ].flatMap((e) => mapping.next(e as StreamedRunEvent));
    expect(out).toEqual([
      { type: "TOOL_CALL_RESULT", messageId: "c1-result", toolCallId: "c1", role: "tool", content: "error: smtp down" },
    ]);
  });
});

describe("AG-UI resume entries as approval decisions", () => {
  it("reads resolved and cancelled entries of one run", () => {
    expect(parseApprovalInterruptId(approvalInterruptId("r-1", "call:2"))).toEqual({ runId: "r-1", callId: "call:2" });
    expect(
      decisionsOf([
        { interruptId: approvalInterruptId("r1", "c1"), status: "resolved", payload: { approved: true } },
        { interruptId: approvalInterruptId("r1", "c2"), status: "cancelled" },
      ]),
    ).toEqual({
      ok: true,
      runId: "r1",
      decisions: [
        { callId: "c1", approved: true },
        { callId: "c2", approved: false, reason: "cancelled by the client" },
      ],
    });
  });

  it("names what is wrong: a foreign id, two runs, an answer without approved", () => {
    expect(decisionsOf([{ interruptId: "other:1", status: "resolved" }])).toMatchObject({
      ok: false,
      problem: { path: ["resume", 0, "interruptId"] },
    });
    expect(
      decisionsOf([
        { interruptId: approvalInterruptId("r1", "c1"), status: "cancelled" },
        { interruptId: approvalInterruptId("r2", "c1"), status: "cancelled" },
      ]),
    ).toMatchObject({
      ok: false,
      problem: {
        path: ["resume", 1, "interruptId"],
        message: "every resume entry must answer an interrupt of the same run",
      },
    });
    expect(
      decisionsOf([{ interruptId: approvalInterruptId("r1", "c1"), status: "resolved", payload: { ok: "yes" } }]),
    ).toMatchObject({ ok: false, problem: { path: ["resume", 0, "payload", "approved"] } });
    expect(decisionsOf([])).toMatchObject({ ok: false, problem: { path: ["resume"] } });
  });
});

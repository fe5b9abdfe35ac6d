import { describe, expect, it } from "vitest";
import { lowerPrincipal, lowerScope, type RunPrincipal } from "../../core/auth";
import { approverRefusal } from "../../core/gates";
import type { ToolSpec } from "../../core/tools";
import { makeRun, ofType, propose } from "./harness";

/** The run loop holds every call to the rights of whoever started the run (core/gates scope.ts). */

const forget: ToolSpec = {
  name: "memory.forget",
  description: "Forget",
  parameters: { type: "object", properties: { id: { type: "string" } } },
  runtime: "builtin",
  scope: "admin",
};
const now: ToolSpec = {
  name: "clock.now",
  description: "Now",
  parameters: { type: "object", properties: {} },
  runtime: "builtin",
};
const chat: RunPrincipal = { id: "tok-1", scope: "chat", name: "token:phone" };
const admin: RunPrincipal = { id: "admin", scope: "admin", name: "admin" };
const call = { id: "c1", name: "memory.forget", arguments: { id: "m1" } };

function runFor(principal: RunPrincipal | undefined, beyondScope?: "wait" | "refuse") {
  const run = makeRun({
    tools: [forget, now],
    origin: { trigger: "message", content: "forget it", ...(principal ? { principal } : {}) },
    ...(beyondScope ? { beyondScope } : {}),
  });
  run.start();
  return run;
}

describe("a run acts with its caller's rights", () => {
  it("a chat-started run's call of an admin tool waits for approval instead of running", () => {
    const run = runFor(chat);
    const effects = run.send({ type: "model_result", response: propose([call]) });
    expect(ofType(effects, "call_tool")).toEqual([]);
    expect(ofType(effects, "await_approval")).toHaveLength(1);
    expect(run.state.status).toBe("waiting_approval");
    const decision = (ofType(effects, "trace").find((t) => t.kind === "gate_decisions")!.data.decisions as any[]).find(
      (d) => d.gate === "scope",
    );
    expect(decision.decision).toMatchObject({ allow: false, pending: "approval" });
    expect(decision.decision.reason).toBe(
      "'memory.forget' needs the 'admin' scope; this run acts for token:phone with the 'chat' scope: it waits for the approval of a holder of the 'admin' scope",
    );
  });

  it("an admin-started run calls the same tool at once (positive control), and a chat run calls a chat tool at once", () => {
    const run = runFor(admin);
    expect(ofType(run.send({ type: "model_result", response: propose([call]) }), "call_tool")).toHaveLength(1);
    const talk = runFor(chat);
    expect(
      ofType(
        talk.send({ type: "model_result", response: propose([{ id: "c2", name: "clock.now", arguments: {} }]) }),
        "call_tool",
      ),
    ).toHaveLength(1);
  });

  it("with beyondScope 'refuse' the call is rejected and the model reads the tool, the scope needed and the run's scope", () => {
    const run = runFor(chat, "refuse");
    const effects = run.send({ type: "model_result", response: propose([call]) });
    expect(ofType(effects, "call_tool")).toEqual([]);
    const told = ofType(effects, "call_model")[0]!.messages.at(-1)!;
    expect(told).toMatchObject({ role: "tool", toolCallId: "c1" });
    expect(told.content).toContain(
      "'memory.forget' needs the 'admin' scope; this run acts for token:phone with the 'chat' scope",
    );
    expect(told.content).toContain("refuses calls beyond its caller's scope");
  });

  it("an approval counts only with the tool's scope: an approve-scope approval leaves it waiting, an admin one runs it", () => {
    const run = runFor(chat);
    run.send({ type: "model_result", response: propose([call]) });
    const lent = run.send({ type: "approval", callId: "c1", approved: true, by: "token:approver", scope: "approve" });
    expect(ofType(lent, "call_tool")).toEqual([]);
    expect(run.state.status).toBe("waiting_approval");
    const approved = run.send({ type: "approval", callId: "c1", approved: true, by: "admin", scope: "admin" });
    expect(ofType(approved, "call_tool")).toHaveLength(1);
  });

  it("a run recorded before principals acts with the least scope", () => {
    const run = runFor(undefined);
    run.send({ type: "model_result", response: propose([call]) });
    expect(run.state.status).toBe("waiting_approval");
  });

  it("the run's principal is in its first trace step", () => {
    const run = makeRun({ origin: { trigger: "message", content: "hi", principal: chat } });
    const effects = run.start();
    expect(ofType(effects, "trace")[0]!.data).toMatchObject({ trigger: "message", principal: chat });
  });

  it("approving needs the tool's scope; rejecting any approver may do; lower scopes are the lower", () => {
    expect(approverRefusal(forget, "approve")).toBe(
      "approving 'memory.forget' needs a token with the 'admin' scope (the scope of the tool's own route); this token has 'approve'",
    );
    expect(approverRefusal(forget, "admin")).toBeUndefined();
    expect(approverRefusal(now, "approve")).toBeUndefined();
    expect(lowerScope("admin", "chat")).toBe("chat");
    expect(lowerScope("approve", "admin")).toBe("approve");
    expect(lowerPrincipal(admin, chat)).toEqual({ ...chat, name: "token:phone (with admin)" });
  });
});

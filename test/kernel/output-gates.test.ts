import { describe, expect, it } from "vitest";
import { agentOutputGates } from "../../core/gates";
import type { LlmResponse } from "../../core/ports";
import { recoverRun } from "../../core/run";
import { makeRun, ofType, lastModelMessages, reply } from "./harness";

const gates = agentOutputGates({
  secrets: [{ name: "API_KEY", value: "key-0123456789abcdef" }],
  specs: [{ name: "no-codename", kind: "deny-pattern", on: ["reply", "answer", "message"], pattern: "bluebird" }],
});
const planned = (name: string, args: Record<string, unknown>): LlmResponse => ({
  content: "",
  toolCalls: [{ id: "plan-0-0", name, arguments: args }],
  finishReason: "tool_calls",
  usage: { inputTokens: 0, outputTokens: 0 },
  model: "plan",
  provider: "plan",
});

describe("output gates in the run loop", () => {
  it("a refused reply goes back to the model with the reason; the reply that passes finishes the run and is released to clients", () => {
    const run = makeRun({ outputGates: gates });
    run.start();
    const refused = run.send({ type: "model_result", response: reply("Project bluebird ships Friday") });
    expect(ofType(refused, "finish")).toHaveLength(0);
    expect(ofType(refused, "release_tokens")).toHaveLength(0);
    expect(lastModelMessages(refused).at(-1)).toEqual({
      role: "user",
      content:
        "Your reply was not sent: gate 'no-codename' refused it: gate 'no-codename': the reply matches a denied pattern. Write it again so that it passes.",
    });
    const passed = run.send({ type: "model_result", response: reply("The project ships Friday") });
    expect(ofType(passed, "release_tokens")).toHaveLength(1);
    expect(ofType(passed, "finish")[0]).toMatchObject({ status: "completed", reply: "The project ships Friday" });
    expect(run.state.outputRejections).toBe(1);
  });

  it("an answer to an asking agent is gated as an answer, and only the one that passed is sent back", () => {
    const run = makeRun({ outputGates: gates, origin: { trigger: "agent:boss", content: "codename?", name: "boss" } });
    run.start();
    run.send({ type: "model_result", response: reply("bluebird") });
    const effects = run.send({ type: "model_result", response: reply("I cannot say.") });
    expect(ofType(effects, "answer_peer")).toEqual([
      { type: "answer_peer", asker: "boss", status: "completed", reply: "I cannot say." },
    ]);
    const traced = ofType(effects, "trace").filter((t) => t.kind === "gate_decisions");
    expect(traced[0]!.data.output).toBe("answer");
  });

  it("a reply carrying a secret is withheld from the trace and the transcript", () => {
    const run = makeRun({ outputGates: gates });
    run.start();
    const effects = run.send({ type: "model_result", response: reply(`it is ${btoa("key-0123456789abcdef")}`) });
    const everything = JSON.stringify(effects) + JSON.stringify(run.state);
    expect(everything).not.toContain(btoa("key-0123456789abcdef"));
    expect(everything).toContain("carries the secret API_KEY (base64-encoded)");
  });

  it("only a plan may propose output.* calls: from a model it is an unknown tool, never written", () => {
    const run = makeRun({ outputGates: gates });
    run.start();
    const effects = run.send({
      type: "model_result",
      response: {
        ...planned("output.message", { role: "assistant", content: "hi" }),
        provider: "openai",
        model: "gpt",
      },
    });
    expect(ofType(effects, "write_output")).toHaveLength(0);
    expect(lastModelMessages(effects).at(-1)!.content).toContain("not available to this agent");
  });

  it("a plan's message step passes the output gates, is written by the driver, and is written again after an eviction (once per call id)", () => {
    const run = makeRun({ outputGates: gates });
    run.start();
    const effects = run.send({
      type: "model_result",
      response: planned("output.message", { role: "assistant", content: "Build is green" }),
    });
    expect(ofType(effects, "write_output")).toEqual([
      {
        type: "write_output",
        callId: "plan-0-0",
        kind: "message",
        arguments: { role: "assistant", content: "Build is green" },
      },
    ]);
    expect(effects.findIndex((e) => e.type === "persist")).toBeLessThan(
      effects.findIndex((e) => e.type === "write_output"),
    );
    expect(run.state.status).toBe("waiting_tool");
    expect(recoverRun(run.state, []).effects).toEqual(ofType(effects, "write_output"));
    const next = run.send({ type: "tool_result", callId: "plan-0-0", output: "Build is green" });
    expect(ofType(next, "call_model")).toHaveLength(1);
  });

  it("a refused plan step is not written: its result tells the plan why", () => {
    const run = makeRun({ outputGates: gates });
    run.start();
    const effects = run.send({
      type: "model_result",
      response: planned("output.message", { role: "assistant", content: "bluebird is late" }),
    });
    expect(ofType(effects, "write_output")).toHaveLength(0);
    expect(lastModelMessages(effects).at(-1)).toMatchObject({
      role: "tool",
      toolCallId: "plan-0-0",
      content:
        "Rejected by gate 'no-codename': gate 'no-codename': the message matches a denied pattern. Nothing was sent.",
    });
  });
});

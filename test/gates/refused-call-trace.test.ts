import { describe, expect, it } from "vitest";
import { httpTool, scriptedAgent, toolCalls } from "../runs/scripted";

// AIRTABLE_KEY is the secret the test configuration declares for tools (vitest.config.ts).
const airtableKey = "secret-airtable-value-123";
const noPasswords = { name: "no-passwords", kind: "deny-pattern", pattern: "password" };

const decisionsOf = (run: any) =>
  run.trace.filter((s: any) => s.name === "gate_decisions" && s.data.tool === "notes.add");

describe("a refused tool call is named in the trace: its arguments (redacted), the gate and the reason", () => {
  it("positive control: an allowed call's trace is as before (the call with its arguments, no refusal) and the tool runs", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("notes.add", key)], gates: [noPasswords] });
    await agent.script([{ toolCalls: [{ name: "notes.add", arguments: { text: "buy milk" } }] }, { content: "noted" }]);
    const { body } = await agent.send("note it");
    expect(body.status).toBe("completed");
    const run = await agent.run(body.runId);
    const [decided] = decisionsOf(run);
    expect(decided.data.refused).toBeUndefined();
    expect(decided.data.decisions.every((d: any) => d.decision.allow)).toBe(true);
    expect(run.trace.find((s: any) => s.name === "tool_call").data).toMatchObject({
      tool: "notes.add",
      arguments: { text: "buy milk" },
    });
    expect(await toolCalls(key)).toHaveLength(1);
  });

  it("the refused call's arguments are in its gate step with the gate and reason; a secret in them, even base64-encoded, is redacted", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("notes.add", key)], gates: [noPasswords] });
    const text = `my password is hunter2; the airtable key is ${btoa(airtableKey)} (plain: ${airtableKey})`;
    await agent.script([
      { toolCalls: [{ name: "notes.add", arguments: { text } }] },
      { content: "I will not store passwords." },
    ]);
    const { body } = await agent.send("store my password");
    expect(body.status).toBe("completed");
    const run = await agent.run(body.runId);
    const [decided] = decisionsOf(run);
    expect(decided.data.refused).toEqual({
      tool: "notes.add",
      arguments: { text: "my password is hunter2; the airtable key is [redacted] (plain: [redacted])" },
      gate: "no-passwords",
      reason: expect.stringContaining("password"),
    });
    const everything = JSON.stringify(run);
    expect(everything).not.toContain(airtableKey);
    expect(everything).not.toContain(btoa(airtableKey));
    expect(await toolCalls(key)).toHaveLength(0);
  });
});

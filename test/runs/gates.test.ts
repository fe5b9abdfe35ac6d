import { describe, expect, it } from "vitest";
import { httpTool, scriptedAgent, toolCalls } from "./scripted";

/** The text of the tool messages the model saw on its `n`-th call (0-based). */
function toolMessages(calls: any[], n: number): string[] {
  return calls[n].messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
}

function gateDecisions(run: any) {
  return run.trace.filter((s: any) => s.name === "gate_decisions").flatMap((s: any) => s.data.decisions);
}

describe("tools and gates in a run", () => {
  it("runs a declared tool and gives its result to the model, traced with timings", async () => {
    const agent = await scriptedAgent();
    await agent.script([
      { toolCalls: [{ name: "clock.now", arguments: {} }] },
      { content: "Done: I checked the clock." },
    ]);
    const { body } = await agent.send("What time is it?");
    expect(body.status).toBe("completed");
    expect(body.reply.content).toBe("Done: I checked the clock.");
    const calls = await agent.modelCalls();
    expect(calls).toHaveLength(2);
    // Declared tools only: clock.now plus the memory tools every agent has; no http.fetch.
    expect(calls[0].tools.map((t: any) => t.function.name).sort()).toEqual([
      "clock__now",
      "memory__forget",
      "memory__search",
      "memory__store",
    ]);
    expect(toolMessages(calls, 1)[0]).toMatch(/\d{4}-\d{2}-\d{2}T/);
    const run = await agent.run(body.runId);
    const tool = run.trace.find((s: any) => s.name === "tool_result");
    expect(tool).toMatchObject({ kind: "tool", data: { tool: "clock.now", ok: true } });
    expect(tool.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("allowlist: a tool the agent does not declare is refused and the model is told why", async () => {
    const agent = await scriptedAgent();
    await agent.script([
      { toolCalls: [{ name: "http.fetch", arguments: { url: "https://example.com" } }] },
      { content: "Understood, I cannot fetch." },
    ]);
    const { body } = await agent.send("fetch example.com");
    expect(body.status).toBe("completed");
    const calls = await agent.modelCalls();
    expect(toolMessages(calls, 1)[0]).toContain("not available to this agent");
    const run = await agent.run(body.runId);
    expect(gateDecisions(run)).toContainEqual({
      gate: "allowlist",
      decision: expect.objectContaining({ allow: false }),
    });
  });

  it("schema: arguments that do not match the tool's schema never reach the tool", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("notes.add", key)] });
    await agent.script([{ toolCalls: [{ name: "notes.add", arguments: { text: 42 } }] }, { content: "ok" }]);
    const { body } = await agent.send("add a note");
    expect(body.status).toBe("completed");
    expect(toolMessages(await agent.modelCalls(), 1)[0]).toContain("invalid arguments");
    expect(await toolCalls(key)).toHaveLength(0);
  });

  it("rate limit: the bucket refuses the second call in a run", async () => {
    const agent = await scriptedAgent({ rateLimits: { "clock.now": { capacity: 1, refillPerSec: 0 } } });
    await agent.script([
      { toolCalls: [{ name: "clock.now", arguments: {} }] },
      { toolCalls: [{ name: "clock.now", arguments: {} }] },
      { content: "stopping" },
    ]);
    const { body } = await agent.send("time twice");
    expect(body.status).toBe("completed");
    expect(toolMessages(await agent.modelCalls(), 2).at(-1)).toContain("rate limit");
  });

  it("a custom deny-pattern gate blocks matching arguments", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({
      httpTools: [httpTool("notes.add", key)],
      gates: [{ name: "no-passwords", kind: "deny-pattern", pattern: "password" }],
    });
    await agent.script([
      { toolCalls: [{ name: "notes.add", arguments: { text: "my Password is hunter2" } }] },
      { content: "ok" },
    ]);
    const { body } = await agent.send("store it");
    expect(gateDecisions(await agent.run(body.runId))).toContainEqual({
      gate: "no-passwords",
      decision: expect.objectContaining({ allow: false }),
    });
    expect(await toolCalls(key)).toHaveLength(0);
  });

  it("after three rejections the run fails with the gate's reason", async () => {
    const agent = await scriptedAgent();
    const bad = { toolCalls: [{ name: "http.fetch", arguments: { url: "https://example.com" } }] };
    await agent.script([bad, bad, bad, bad, { content: "never reached" }]);
    const { body } = await agent.send("keep trying");
    expect(body.status).toBe("failed");
    expect(body.error).toContain("allowlist");
    expect(body.error).toContain("at most 3");
  });

  it("the step limit ends the run with a clear reason", async () => {
    const agent = await scriptedAgent({ limits: { maxSteps: 2 } });
    const tick = { toolCalls: [{ name: "clock.now", arguments: {} }] };
    await agent.script([tick, tick, tick, tick]);
    const { body } = await agent.send("loop");
    expect(body.status).toBe("failed");
    expect(body.error).toMatch(/step/i);
    expect((await agent.modelCalls()).length).toBeLessThanOrEqual(2);
  });

  it("the token limit ends the run with a clear reason", async () => {
    const agent = await scriptedAgent({ limits: { maxTokensPerRun: 40 } });
    const tick = { toolCalls: [{ name: "clock.now", arguments: {} }] };
    await agent.script([tick, tick, tick]);
    const { body } = await agent.send("spend");
    expect(body.status).toBe("failed");
    expect(body.error).toMatch(/token/i);
  });

  it("a request can lower the agent's limits but never raise them", async () => {
    const agent = await scriptedAgent({ limits: { maxSteps: 3 } });
    const tick = { toolCalls: [{ name: "clock.now", arguments: {} }] };
    await agent.script([tick, tick, tick, tick, tick]);
    const { body } = await agent.send("loop", { limits: { maxSteps: 50 } });
    expect(body.status).toBe("failed");
    expect((await agent.modelCalls()).length).toBeLessThanOrEqual(3);
  });

  it("a tool that times out is reported to the model, and the run goes on", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("slow.op", key, { query: "ms=3000", timeoutMs: 150 })] });
    await agent.script([
      { toolCalls: [{ name: "slow.op", arguments: { text: "x" } }] },
      { content: "It timed out, sorry." },
    ]);
    const { body } = await agent.send("do the slow thing");
    expect(body.status).toBe("completed");
    expect(toolMessages(await agent.modelCalls(), 1)[0]).toMatch(/time/i);
    const run = await agent.run(body.runId);
    expect(run.trace.find((s: any) => s.name === "tool_result").data.ok).toBe(false);
  });

  it("secrets reach the tool's headers but never the trace or the model", async () => {
    const key = crypto.randomUUID();
    const tool = httpTool("airtable.query", key, {
      query: "echoHeaders=1",
      headers: { "X-Api-Key": { secret: "AIRTABLE_KEY" } },
    });
    const agent = await scriptedAgent({ httpTools: [tool] });
    await agent.script([{ toolCalls: [{ name: "airtable.query", arguments: { text: "rows" } }] }, { content: "ok" }]);
    const { body } = await agent.send("query");
    const received = await toolCalls(key);
    expect(received[0].headers["x-api-key"]).toBe("secret-airtable-value-123");
    const run = await agent.run(body.runId);
    expect(JSON.stringify(run)).not.toContain("secret-airtable-value-123");
    expect(JSON.stringify(await agent.modelCalls())).not.toContain("secret-airtable-value-123");
    expect(JSON.stringify(run)).toContain("[redacted]");
  });
});

import { env } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { FanOutResult } from "../../core/bus";
import type { AgentDO } from "../../durable-objects/agent/agent-do";
import { modelCalls, project, script } from "./harness";

describe("fan-out", () => {
  it("three asks in one model step all wait, and the run continues once all three have answered", async () => {
    const p = project();
    const model = `bus-fanout-${crypto.randomUUID()}`;
    for (const [name, fact] of [["alpha", "Alpha counts 3 open leads."], ["beta", "Beta counts 5 open leads."], ["gamma", "Gamma counts 8 open leads."]]) {
      await p.agent(name!, { systemPrompt: fact });
    }
    await p.agent("main", { model: { provider: "openai", name: model } });
    await p.connect("main", ["alpha", "beta", "gamma"]);
    await script(model, [
      { toolCalls: ["alpha", "beta", "gamma"].map((t) => ({ name: `ask_${t}`, arguments: { question: "How many open leads do you count?" } })) },
      { content: "16 open leads in total." },
    ]);

    const started = await p.chat("main", "How many open leads are there?");
    expect(started.status).toBe("waiting_agent");
    const run = await p.settled("main", started.runId);
    expect(p.replyOf(run)).toBe("16 open leads in total.");

    const calls = await modelCalls(model);
    expect(calls).toHaveLength(2);
    const results = calls[1].messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
    expect(results).toHaveLength(3);
    expect(results[0]).toContain("Alpha counts 3 open leads.");
    expect(results[1]).toContain("Beta counts 5 open leads.");
    expect(results[2]).toContain("Gamma counts 8 open leads.");
  });

  it("a scripted fan-out to three agents under a majority policy returns the answer two of them gave", async () => {
    const p = project();
    await p.agent("judge-a", { systemPrompt: "The launch is approved." });
    await p.agent("judge-b", { systemPrompt: "The launch is approved." });
    await p.agent("judge-c", { systemPrompt: "The launch is postponed." });
    await p.agent("main");
    await p.connect("main", ["judge-a", "judge-b", "judge-c"]);

    const main = await getAgentByName(env.AGENT_DO as unknown as DurableObjectNamespace<AgentDO>, `${p.name}.main`);
    const result = await main.fanOut({ targets: ["judge-a", "judge-b", "judge-c"], question: "Is the launch approved?", policy: "majority" });
    expect(result.ok).toBe(true);
    const value = (result as unknown as { value: FanOutResult }).value;
    expect(value).toMatchObject({ policy: "majority", ok: true, answer: "From the system prompt: The launch is approved." });
    expect(value.votes?.["from the system prompt: the launch is approved"]).toBe(2);
  });

  it("a fan-out to an agent that is not a connection gets that agent's refusal as its reply", async () => {
    const p = project();
    await p.agent("judge-a", { systemPrompt: "The launch is approved." });
    await p.agent("stranger");
    await p.agent("main");
    await p.connect("main", ["judge-a"]);
    const main = await getAgentByName(env.AGENT_DO as unknown as DurableObjectNamespace<AgentDO>, `${p.name}.main`);
    const result = await main.fanOut({ targets: ["judge-a", "stranger"], question: "Is the launch approved?", policy: "all" });
    expect(result.ok).toBe(true);
    expect((result as unknown as { value: FanOutResult }).value.answer).toBe("judge-a: From the system prompt: The launch is approved.\nstranger failed: agent 'main' is not connected to 'stranger' (connections: judge-a)");
  });
});

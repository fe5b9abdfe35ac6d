import { describe, expect, it } from "vitest";
import { modelCalls, project, script } from "./harness";

const helperScript = (name: string) => `(actor "${name}" (description "The answer to everything is 42."))`;

describe("spawn", () => {
  it("an agent allowed to spawn creates a connected child that reports back on its goal, within its quota", async () => {
    const p = project();
    const model = `bus-spawn-${crypto.randomUUID()}`;
    await p.agent("boss");
    const put = await p.api("/api/agents/boss/script", {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: `(actor "boss" (description "Delegates to helpers.") (model :provider "openai" :name "${model}") (spawn :allowed true :quota 1))`,
    });
    expect(put.status).toBe(200);
    await script(model, [
      { toolCalls: [{ name: "agent.spawn", arguments: { script: helperScript("helper"), goal: "What is the answer to everything?" } }] },
      { content: "The helper says 42." },
      { toolCalls: [{ name: "agent.spawn", arguments: { script: helperScript("helper-two"), goal: "Anything?" } }] },
      { content: "No second helper." },
    ]);

    const first = await p.chat("boss", "Find the answer to everything.");
    const run = await p.settled("boss", first.runId);
    expect(p.replyOf(run)).toBe("The helper says 42.");
    const report = (await modelCalls(model))[1].messages.find((m: any) => m.role === "tool");
    expect(report.content).toContain("The answer to everything is 42.");

    const helper = await p.json("/api/agents/helper");
    expect(helper.parent).toBe("boss");
    expect((await p.json("/api/agents/boss")).connections).toEqual(["helper"]);

    const second = await p.chat("boss", "Spawn another one.");
    const refused = await p.settled("boss", second.runId);
    expect(refused.trace.find((t) => t.name === "bus_refused")?.data.error).toContain("has spawned 1 of its 1 allowed children");
    expect((await p.api("/api/agents/helper-two")).status).toBe(404);
  });

  it("a behavior's deterministic plan can spawn a child by name, and the child's report ends the run", async () => {
    const p = project();
    await p.agent("planner");
    const put = await p.api("/api/agents/planner/script", {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: `(actor "planner" (description "Hands work to children.") (spawn :allowed true :quota 1)
               (talent "work" (behavior "delegate" :active (goal (input) (get input "text"))
                 (plan (input ctx) (spawn "scout" :goal (get input "text"))))))`,
    });
    expect(put.status).toBe(200);
    const started = await p.chat("planner", "Say what you were spawned to work on.");
    const run = await p.settled("planner", started.runId);
    expect(run.run.status).toBe("completed");
    const scout = await p.json("/api/agents/scout");
    expect(scout.parent).toBe("planner");
    expect(scout.description).toContain("Say what you were spawned to work on.");
    expect(p.replyOf(run)).toContain("Spawned to work on");
  });
});

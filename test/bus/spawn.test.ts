import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentProfile } from "../../core/agents";
import type { Result } from "../../core/errors";
import { modelCalls, project, script } from "./harness";

/** The project's registry over RPC, as an agent (or anything holding the binding) reaches it. */
function registry(projectName: string) {
  return env.REGISTRY.get(env.REGISTRY.idFromName(projectName)) as unknown as {
    spawnChild(parent: string, source: string): Promise<Result<{ child: AgentProfile; parent: AgentProfile }>>;
    getAgent(name: string): Promise<Result<AgentProfile>>;
  };
}

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
      {
        toolCalls: [
          {
            name: "agent.spawn",
            arguments: { script: helperScript("helper"), goal: "What is the answer to everything?" },
          },
        ],
      },
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
    expect(refused.trace.find((t) => t.name === "bus_refused")?.data.error).toContain(
      "spawn quota used up: agent 'boss' has 1 of its 1 allowed spawned agents",
    );
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

  it("the registry refuses a child connected outside its parent's connections, or with more quota than is left", async () => {
    const p = project();
    for (const name of ["crm", "payroll"]) await p.agent(name);
    await p.agent("boss");
    const put = await p.api("/api/agents/boss/script", {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: `(actor "boss" (description "Delegates.") (connections "crm") (spawn :allowed true :quota 3))`,
    });
    expect(put.status).toBe(200);
    const reg = registry(p.name);

    // A hostile request straight to the registry, as a compromised agent could send it.
    const outside = await reg.spawnChild("boss", `(actor "rogue" (description "x") (connections "crm" "payroll"))`);
    expect(outside).toMatchObject({ ok: false, code: "forbidden" });
    const refusal = outside as unknown as { message: string; details: { issues: unknown[] } };
    expect(refusal.message).toBe(
      "a spawned child may connect only to its parent and the parent's connections ('boss', 'crm'), not to 'payroll'",
    );
    expect(refusal.details.issues).toEqual([
      { path: ["connections", 1], message: "'payroll' is neither 'boss' nor one of its connections" },
    ]);

    const greedy = await reg.spawnChild("boss", `(actor "greedy" (description "x") (spawn :allowed true :quota 3))`);
    expect(greedy).toMatchObject({
      ok: false,
      code: "forbidden",
      message: "a spawned child's spawn quota is at most its parent's remaining quota: 3 asked, 2 left to 'boss'",
    });
    expect((greedy as unknown as { details: { issues: unknown[] } }).details.issues).toEqual([
      { path: ["spawn", "quota"], message: "at most 2: what 'boss' has left after this child" },
    ]);

    const notAllowed = await reg.spawnChild("crm", `(actor "sneaky" (description "x"))`);
    expect(notAllowed).toMatchObject({
      ok: false,
      code: "forbidden",
      message: expect.stringContaining("agent 'crm' may not spawn agents"),
    });
    for (const name of ["rogue", "greedy", "sneaky"]) expect((await p.api(`/api/agents/${name}`)).status).toBe(404);

    // Inside the graph: the parent itself and its connections, and a quota within what is left.
    const fine = await reg.spawnChild(
      "boss",
      `(actor "fine" (description "x") (connections "crm" "boss") (spawn :allowed true :quota 2))`,
    );
    expect(fine).toMatchObject({
      ok: true,
      value: {
        child: { name: "fine", parent: "boss", connections: ["crm", "boss"] },
        parent: { connections: ["crm", "fine"] },
      },
    });
    expect((fine as { value: { child: AgentProfile } }).value.child.runtime).toMatchObject({
      allowHosts: [],
      httpTools: [],
    });

    // The quota bounds the whole subtree: boss (3) → fine → deep, boss → third; then nothing more below boss.
    expect(await reg.spawnChild("fine", `(actor "deep" (description "x") (connections "crm"))`)).toMatchObject({
      ok: true,
    });
    expect(await reg.spawnChild("fine", `(actor "wide" (description "x") (connections "payroll"))`)).toMatchObject({
      ok: false,
      code: "forbidden",
      message: expect.stringContaining("not to 'payroll'"),
    });
    expect(await reg.spawnChild("boss", `(actor "third" (description "x"))`)).toMatchObject({ ok: true });
    expect(await reg.spawnChild("fine", `(actor "fourth" (description "x"))`)).toMatchObject({
      ok: false,
      code: "forbidden",
      message:
        "spawn quota used up: agent 'boss' (which 'fine' was spawned under) has 3 of its 3 allowed spawned agents (children and their children count)",
    });
    expect(await reg.spawnChild("boss", `(actor "fifth" (description "x"))`)).toMatchObject({
      ok: false,
      code: "forbidden",
      message: expect.stringContaining("agent 'boss' has 3 of its 3"),
    });
  });

  it("through the spawn tool, a child outside the graph or with too much quota is refused and the model is told why", async () => {
    const p = project();
    const model = `bus-spawn-rules-${crypto.randomUUID()}`;
    await p.agent("payroll");
    await p.agent("boss");
    const put = await p.api("/api/agents/boss/script", {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: `(actor "boss" (description "Delegates.") (model :provider "openai" :name "${model}") (spawn :allowed true :quota 2))`,
    });
    expect(put.status).toBe(200);
    await script(model, [
      {
        toolCalls: [
          {
            name: "agent.spawn",
            arguments: {
              script: `(actor "rogue" (description "Reads payroll.") (connections "payroll"))`,
              goal: "Read the payroll.",
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: "agent.spawn",
            arguments: {
              script: `(actor "greedy" (description "Spawns.") (spawn :allowed true :quota 2))`,
              goal: "Spawn more.",
            },
          },
        ],
      },
      { content: "Both were refused." },
    ]);
    const started = await p.chat("boss", "Get me the payroll.");
    const run = await p.settled("boss", started.runId);
    expect(p.replyOf(run)).toBe("Both were refused.");
    const refusals = run.trace.filter((t) => t.name === "bus_refused").map((t) => t.data.error);
    expect(refusals).toEqual([
      "a spawned child may connect only to its parent and the parent's connections ('boss'), not to 'payroll'",
      "a spawned child's spawn quota is at most its parent's remaining quota: 2 asked, 1 left to 'boss'",
    ]);
    const told = (await modelCalls(model))[2].messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
    expect(told.join("\n")).toContain("not to 'payroll'");
    expect(told.join("\n")).toContain("2 asked, 1 left");
    for (const name of ["rogue", "greedy"]) expect((await p.api(`/api/agents/${name}`)).status).toBe(404);
    expect((await p.json("/api/agents/boss")).connections).toEqual([]);
  });
});

import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../durable-objects/agent/agent-do";
import { modelCalls, project, script } from "./harness";

/** A project where `main` is connected to three judges, two of which approve the launch. */
/**
 * Three judges and `main` connected to them. With `hold`, the judges answer through the scripted
 * model, which keeps every answer back until `POST /__release/<hold>`: messages reach a judge at
 * once (straight to its object), so a test that needs the asker to wait holds the answers instead.
 */
async function threeJudges(hold?: string) {
  const p = project();
  for (const [name, verdict] of [
    ["judge-a", "The launch is approved."],
    ["judge-b", "The launch is approved."],
    ["judge-c", "The launch is postponed."],
  ] as const) {
    if (!hold) {
      await p.agent(name, { systemPrompt: verdict });
      continue;
    }
    const model = `judge-${crypto.randomUUID()}`;
    await script(model, [{ content: `From the system prompt: ${verdict}`, hold }]);
    await p.agent(name, { systemPrompt: verdict, model: { provider: "openai", name: model } });
  }
  await p.agent("main");
  await p.connect("main", ["judge-a", "judge-b", "judge-c"]);
  return {
    p,
    main: await getAgentByName(env.AGENT_DO as unknown as DurableObjectNamespace<AgentDO>, `${p.name}.main`),
  };
}

/** Polls GET /fanouts/:id until the fan-out is decided. */
async function decision(p: ReturnType<typeof project>, id: string): Promise<any> {
  return p.until(async () => {
    const view = await p.json(`/api/agents/main/fanouts/${id}`);
    return view.status === "decided" ? view : null;
  }, `fan-out ${id} to be decided`);
}

describe("fan-out", () => {
  it("three asks in one model step all wait, and the run continues once all three have answered", async () => {
    const p = project();
    const model = `bus-fanout-${crypto.randomUUID()}`;
    for (const [name, fact] of [
      ["alpha", "Alpha counts 3 open leads."],
      ["beta", "Beta counts 5 open leads."],
      ["gamma", "Gamma counts 8 open leads."],
    ]) {
      await p.agent(name!, { systemPrompt: fact });
    }
    await p.agent("main", { model: { provider: "openai", name: model } });
    await p.connect("main", ["alpha", "beta", "gamma"]);
    await script(model, [
      {
        toolCalls: ["alpha", "beta", "gamma"].map((t) => ({
          name: `ask_${t}`,
          arguments: { question: "How many open leads do you count?" },
        })),
      },
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

  it("POST /fanouts under majority answers 202 at once, and GET reads the decision two judges gave, every answer traced", async () => {
    const { p } = await threeJudges();
    const started = await p.api("/api/agents/main/fanouts", {
      method: "POST",
      json: { targets: ["judge-a", "judge-b", "judge-c"], question: "Is the launch approved?", policy: "majority" },
    });
    expect(started.status).toBe(202);
    const view = (await started.json()) as any;
    expect(view.asks.map((a: any) => a.target)).toEqual(["judge-a", "judge-b", "judge-c"]);
    const decided = await decision(p, view.id);
    expect(decided.result).toMatchObject({
      policy: "majority",
      ok: true,
      outcome: "decided",
      answer: "From the system prompt: The launch is approved.",
    });
    expect(decided.result.votes["from the system prompt: the launch is approved"]).toBe(2);
    expect(decided.asks.map((a: any) => a.state)).toEqual(expect.arrayContaining(["answered"]));
  });

  it("a fan-out to an agent that is not a connection is refused with 400 naming the target; the owner's connections still answer", async () => {
    const p = project();
    await p.agent("judge-a", { systemPrompt: "The launch is approved." });
    await p.agent("stranger");
    await p.agent("main");
    await p.connect("main", ["judge-a"]);
    const refused = await p.api("/api/agents/main/fanouts", {
      method: "POST",
      json: { targets: ["judge-a", "stranger"], question: "Is the launch approved?", policy: "all" },
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(
      "targets.1: 'stranger' is not a connection of 'main' (connections: judge-a)",
    );
    const bad = await p.api("/api/agents/main/fanouts", {
      method: "POST",
      json: { targets: ["judge-a"], question: "q", policy: "critique" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("critique needs two agents or more");
    const ok = await p.json("/api/agents/main/fanouts", {
      method: "POST",
      json: { targets: ["judge-a"], question: "Is the launch approved?", policy: "all" },
    });
    expect((await decision(p, ok.id)).result.answer).toBe("judge-a: From the system prompt: The launch is approved.");
  });

  describe("persisted: an eviction loses no fan-out and asks no target twice", () => {
    const stubOf = (project: string, agent: string) => env.AGENT_DO.get(env.AGENT_DO.idFromName(`${project}.${agent}`));
    const evict = async (project: string, agent: string) => {
      await expect(
        runInDurableObject(stubOf(project, agent), (_i, state) => state.abort("test: evicted")),
      ).rejects.toThrow();
    };
    const runsOf = async (p: ReturnType<typeof project>, agent: string) =>
      ((await p.json(`/api/agents/${agent}/runs`)) as { runs: unknown[] }).runs.length;

    it("the asker evicted while it waits: the answers still decide the fan-out, and a second call with its id reads that decision", async () => {
      const hold = `judges-${crypto.randomUUID()}`;
      const { p } = await threeJudges(hold);
      const id = crypto.randomUUID();

      const body = {
        id,
        targets: ["judge-a", "judge-b", "judge-c"],
        question: "Is the launch approved?",
        policy: "majority",
      };
      expect((await p.api("/api/agents/main/fanouts", { method: "POST", json: body })).status).toBe(202);
      await evict(p.name, "main");
      await fetch(`${(env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL}/__release/${hold}`, {
        method: "POST",
      });

      const decided = (await decision(p, id)).result;
      expect(decided).toMatchObject({
        policy: "majority",
        ok: true,
        answer: "From the system prompt: The launch is approved.",
      });
      // The same id again reads the same fan-out: nobody is asked a second time.
      const again = await p.json("/api/agents/main/fanouts", { method: "POST", json: body });
      expect(again.result).toEqual(decided);
      // Each judge was asked once: one run each, the second call asked nobody.
      await new Promise((r) => setTimeout(r, 200));
      expect([await runsOf(p, "judge-a"), await runsOf(p, "judge-b"), await runsOf(p, "judge-c")]).toEqual([1, 1, 1]);
    });

    it("evicted after the proposer answered and before the critics were asked: the alarm alone asks them once each, with the proposal, and the proposer revises", async () => {
      const p = project();
      await p.agent("proposer", { systemPrompt: "Ship on Friday." });
      await p.agent("critic-a", { systemPrompt: "Friday is fine." });
      await p.agent("critic-b", { systemPrompt: "Friday is fine." });
      await p.agent("main");
      await p.connect("main", ["proposer", "critic-a", "critic-b"]);
      const group = `fanout:${crypto.randomUUID()}`;
      // The state an eviction leaves between recording the proposal and asking the critics.
      await runInDurableObject(stubOf(p.name, "main"), async (instance, state) => {
        // What `fanOut` does first: the watchdog alarm that carries the fan-out on.
        await (instance as unknown as { armRunWatchdog(): Promise<void> }).armRunWatchdog();
        state.storage.sql.exec(
          "INSERT INTO bus_fanouts (id, targets, question, policy, conversation_id, depth, replies, critiques_sent, status, created_at) VALUES (?, ?, ?, 'critique', ?, 0, ?, 1, 'waiting', ?)",
          group,
          JSON.stringify(["proposer", "critic-a", "critic-b"]),
          "When do we ship?",
          group,
          JSON.stringify([{ target: "proposer", answer: "Ship on Friday." }]),
          Date.now(),
        );
      });
      await evict(p.name, "main");

      const decided = await p.until(async () => {
        await runDurableObjectAlarm(stubOf(p.name, "main"));
        return runInDurableObject(stubOf(p.name, "main"), (_i, state) => {
          const row = state.storage.sql
            .exec<{ status: string; result: string }>("SELECT status, result FROM bus_fanouts WHERE id = ?", group)
            .one();
          return row.status === "decided" ? JSON.parse(row.result) : null;
        });
      }, "the critique to be decided by alarms alone");
      expect(decided.policy).toBe("critique");
      expect(decided.replies.map((r: { key?: string; target: string }) => r.key ?? r.target).sort()).toEqual([
        "critic-a",
        "critic-b",
        "proposer",
        "proposer#1",
      ]);
      // The critics were asked about the proposal, once each; the proposer only to revise (its proposal was already in).
      expect([await runsOf(p, "proposer"), await runsOf(p, "critic-a"), await runsOf(p, "critic-b")]).toEqual([
        1, 1, 1,
      ]);
      const view = await p.json(`/api/agents/main/fanouts/${group.slice("fanout:".length)}`);
      expect(view.asks.find((a: any) => a.key === "critic-a").question).toContain("Answer:\nShip on Friday.");
      expect(view.asks.find((a: any) => a.key === "proposer#1")).toMatchObject({
        state: "answered",
        question: expect.stringContaining("critic-a: From the system prompt: Friday is fine."),
      });
    });

    it("a fan-out id that is not a plain token is refused, naming the field", async () => {
      const p = project();
      await p.agent("main");
      const res = await p.api("/api/agents/main/fanouts", {
        method: "POST",
        json: { id: "../../x y", targets: ["a"], question: "q" },
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("id");
      expect((await p.api("/api/agents/main/fanouts/nope")).status).toBe(404);
    });
  });
});

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { modelCalls, project, script } from "./harness";

const release = (hold: string) =>
  fetch(`${(env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL}/__release/${hold}`, { method: "POST" });

/** An agent answering from the scripted model: `answers` in order, each held until its `hold` is released when given. */
async function scripted(p: ReturnType<typeof project>, name: string, answers: { content: string; hold?: string }[]) {
  const model = `${name}-${crypto.randomUUID()}`;
  await script(model, answers);
  await p.agent(name, { model: { provider: "openai", name: model } });
  return model;
}

async function decided(p: ReturnType<typeof project>, id: string): Promise<any> {
  return p.until(async () => {
    const view = await p.json(`/api/agents/main/fanouts/${id}`);
    return view.status === "decided" ? view : null;
  }, `fan-out ${id}`);
}

describe("fan-out policies through the engine", () => {
  it("first: the fast judge decides while the slow two are still held, and their runs are cancelled by the bus", async () => {
    const p = project();
    const hold = `slow-${crypto.randomUUID()}`;
    await scripted(p, "fast", [{ content: "Approved." }]);
    await scripted(p, "slow-a", [{ content: "Rejected.", hold }]);
    await scripted(p, "slow-b", [{ content: "Rejected.", hold }]);
    await p.agent("main");
    await p.connect("main", ["fast", "slow-a", "slow-b"]);
    const started = await p.json("/api/agents/main/fanouts", {
      method: "POST",
      json: { targets: ["slow-a", "slow-b", "fast"], question: "Launch?", policy: "first" },
    });
    const view = await decided(p, started.id);
    expect(view.result).toMatchObject({ policy: "first", ok: true, answer: "Approved.", decidedBy: "fast" });
    // Still held: the decision did not wait for them; their runs were cancelled (the bus `cancel`).
    for (const slow of ["slow-a", "slow-b"]) {
      const run = await p.until(async () => {
        const runs = (await p.json(`/api/agents/${slow}/runs`)).runs as { status: string }[];
        return runs[0]?.status === "cancelled" ? runs[0] : null;
      }, `${slow}'s run to be cancelled`);
      expect(run.status).toBe("cancelled");
    }
    expect(
      view.asks
        .filter((a: any) => a.state === "cancelled")
        .map((a: any) => a.target)
        .sort(),
    ).toEqual(["slow-a", "slow-b"]);
    await release(hold);
  });

  it("a behavior's (ask (…) …) under :majority goes through the engine: the reply is the majority's answer and the run's trace has every answer", async () => {
    const p = project();
    await scripted(p, "judge-a", [{ content: "Yes." }]);
    await scripted(p, "judge-b", [{ content: "no" }]);
    await scripted(p, "judge-c", [{ content: "yes" }]);
    await p.agent("judge-d");
    const source = `(actor "main" (description "Chairs.") (connections "judge-a" "judge-b" "judge-c") (talent "chair" (behavior "decide" :active (policy :majority) (goal (input) (get input "text")) (plan (input ctx) (sequence (ask ("judge-a" "judge-b" "judge-c") (get input "text")) (message "assistant" :content "$prev"))))))`;
    const put = await p.api("/api/agents/main/script", {
      method: "PUT",
      body: source,
      headers: { "content-type": "text/x-pantheon" },
    });
    expect(put.status).toBeLessThan(300);
    const started = await p.chat("main", "Launch?");
    const run = await p.settled("main", started.runId);
    expect(p.replyOf(run)).toBe("Yes.");
    const decision = run.trace.find((t) => t.name === "fanout_decided")!.data;
    expect(decision).toMatchObject({ policy: "majority", outcome: "decided", votes: { yes: 2, no: 1 } });
    expect(decision.replies.map((r: any) => r.answer).sort()).toEqual(["Yes.", "no", "yes"]);
  });

  it("a behavior's majority with no majority fails the step with the explicit outcome, not every answer passed on", async () => {
    const p = project();
    await scripted(p, "judge-a", [{ content: "yes" }]);
    await scripted(p, "judge-b", [{ content: "no" }]);
    await scripted(p, "judge-c", [{ content: "maybe" }]);
    const source = `(actor "main" (description "Chairs.") (connections "judge-a" "judge-b" "judge-c") (talent "chair" (behavior "decide" :active (policy :majority) (goal (input) (get input "text")) (plan (input ctx) (sequence (ask ("judge-a" "judge-b" "judge-c") (get input "text")) (message "assistant" :content "$prev"))))))`;
    expect(
      (
        await p.api("/api/agents/main/script", {
          method: "PUT",
          body: source,
          headers: { "content-type": "text/x-pantheon" },
        })
      ).status,
    ).toBeLessThan(300);
    const run = await p.settled("main", (await p.chat("main", "Launch?")).runId);
    expect(run.run.status).toBe("failed");
    expect(JSON.stringify(run)).toContain("majority fan-out no majority: no majority among 3 agents (2 needed)");
  });

  it("the agent.fanout tool: a model's weighted vote comes back as the tool's result", async () => {
    const p = project();
    await scripted(p, "senior", [{ content: "ship" }]);
    await scripted(p, "junior-a", [{ content: "wait" }]);
    await scripted(p, "junior-b", [{ content: "wait" }]);
    const model = `main-${crypto.randomUUID()}`;
    await script(model, [
      {
        toolCalls: [
          {
            name: "agent.fanout",
            arguments: {
              targets: ["senior", "junior-a", "junior-b"],
              question: "Ship or wait?",
              policy: "vote",
              weights: { senior: 3 },
            },
          },
        ],
      },
      { content: "We ship." },
    ]);
    await p.agent("main", { model: { provider: "openai", name: model }, runtime: { tools: ["agent.fanout"] } });
    await p.connect("main", ["senior", "junior-a", "junior-b"]);
    const run = await p.settled("main", (await p.chat("main", "Decide.")).runId);
    expect(p.replyOf(run)).toBe("We ship.");
    const calls = await modelCalls(model);
    expect(calls[0].tools.map((t: any) => t.function.name)).toContain("agent__fanout");
    expect(calls[1].messages.find((m: any) => m.role === "tool").content).toBe("ship");
  });

  it("review: the reviewer's rejection reasons reach the writer, whose redraft the reviewer accepts", async () => {
    const p = project();
    const writer = await scripted(p, "writer", [
      { content: "Draft: ship Friday." },
      { content: "Draft 2: ship Friday, tests attached." },
    ]);
    await scripted(p, "reviewer", [{ content: "REJECT: no tests" }, { content: "ACCEPT" }]);
    await p.agent("main");
    await p.connect("main", ["writer", "reviewer"]);
    const view = await decided(
      p,
      (
        await p.json("/api/agents/main/fanouts", {
          method: "POST",
          json: { targets: ["writer", "reviewer"], question: "Plan the release.", policy: "review", retries: 1 },
        })
      ).id,
    );
    expect(view.result).toMatchObject({
      policy: "review",
      ok: true,
      answer: "Draft 2: ship Friday, tests attached.",
      rounds: 2,
    });
    const redraft = (await modelCalls(writer))[1].messages.filter((m: any) => m.role === "user").at(-1).content;
    expect(redraft).toContain("reviewer: no tests");
    expect(view.asks.map((a: any) => [a.key, a.state])).toEqual([
      ["writer", "answered"],
      ["reviewer", "answered"],
      ["writer#1", "answered"],
      ["reviewer#1", "answered"],
    ]);
  });

  it("the output gates read the decision: an answer with a denied word is refused as the fan-out's outcome; a clean one passes", async () => {
    const p = project();
    await scripted(p, "leaky", [{ content: "The code word is pineapple." }]);
    await scripted(p, "clean", [{ content: "The code word is secret." }]);
    await p.agent("main", {
      runtime: { gates: [{ name: "no-fruit", kind: "deny-pattern", pattern: "pineapple", on: ["message"] }] },
    });
    await p.connect("main", ["leaky", "clean"]);
    const refused = await decided(
      p,
      (
        await p.json("/api/agents/main/fanouts", {
          method: "POST",
          json: { targets: ["leaky"], question: "Code word?", policy: "first" },
        })
      ).id,
    );
    expect(refused.result).toMatchObject({ ok: false, outcome: "failed" });
    expect(refused.result.answer).toContain("refused by the output gates");
    expect(refused.result.answer).toContain("no-fruit");
    const passed = await decided(
      p,
      (
        await p.json("/api/agents/main/fanouts", {
          method: "POST",
          json: { targets: ["clean"], question: "Code word?", policy: "first" },
        })
      ).id,
    );
    expect(passed.result).toMatchObject({ ok: true, answer: "The code word is secret." });
  });
});

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { project, script } from "../bus/harness";
import { api } from "../api/client";

const release = (hold: string) =>
  fetch(`${(env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL}/__release/${hold}`, { method: "POST" });
const stubOf = (p: string, agent: string) => env.AGENT_DO.get(env.AGENT_DO.idFromName(`${p}.${agent}`));
const evict = async (p: string, agent: string) => {
  await expect(runInDurableObject(stubOf(p, agent), (_i, state) => state.abort("test: evicted"))).rejects.toThrow();
};

const verdictScript = `(actor "main" (description "Chairs the launch review.") (connections "judge-a" "judge-b" "judge-c")
  (workflow "verdict"
    (step "a" :ask "judge-a" :input "Approve {{input}}? yes or no.")
    (step "b" :ask "judge-b" :input "Approve {{input}}? yes or no.")
    (step "c" :ask "judge-c" :input "Approve {{input}}? yes or no.")
    (step "vote" :join ("a" "b" "c") :policy :majority)))`;

async function judges(p: ReturnType<typeof project>, answers: [string, string][]) {
  for (const [name, answer] of answers) {
    const model = `${name}-${crypto.randomUUID()}`;
    await script(model, [{ content: answer, hold: `${p.name}-${name}` }]);
    await p.agent(name, { model: { provider: "openai", name: model } });
  }
  const put = await p.api("/api/agents/main/script", {
    method: "PUT",
    body: verdictScript,
    headers: { "content-type": "text/x-pantheon" },
  });
  expect(put.status).toBeLessThan(300);
}

const runsOf = async (p: ReturnType<typeof project>, agent: string) =>
  ((await p.json(`/api/agents/${agent}/runs`)) as { runs: unknown[] }).runs.length;

describe("workflows", () => {
  it("a four-step workflow with a majority join carries on through an eviction at each step, asking each judge once", async () => {
    const p = project();
    await judges(p, [
      ["judge-a", "Yes."],
      ["judge-b", "no"],
      ["judge-c", "yes"],
    ]);
    const started = await p.api("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow: "verdict", input: "v2.0", id: "wf-1" },
    });
    expect(started.status).toBe(202);
    expect(((await started.json()) as any).steps.map((s: any) => [s.id, s.state])).toEqual([
      ["a", "running"],
      ["b", "running"],
      ["c", "running"],
      ["vote", "pending"],
    ]);
    const stepState = async (id: string) =>
      ((await p.json("/api/agents/main/workflows/wf-1")).steps as any[]).find((s) => s.id === id);
    for (const judge of ["a", "b", "c"]) {
      await evict(p.name, "main");
      await release(`${p.name}-judge-${judge}`);
      await p.until(async () => (await stepState(judge)).state === "done", `step ${judge} to be done`);
    }
    await evict(p.name, "main");
    const view = await p.until(async () => {
      const v = await p.json("/api/agents/main/workflows/wf-1");
      return v.status === "completed" ? v : null;
    }, "the workflow to complete");
    expect(view.output).toBe("Yes.");
    expect(view.steps.map((s: any) => [s.id, s.state, s.output])).toEqual([
      ["a", "done", "Yes."],
      ["b", "done", "no"],
      ["c", "done", "yes"],
      ["vote", "done", "Yes."],
    ]);
    expect(view.steps[0].trace).toBe("/api/conversations/workflow:wf-1");
    // No finished step was repeated: one run per judge.
    expect([await runsOf(p, "judge-a"), await runsOf(p, "judge-b"), await runsOf(p, "judge-c")]).toEqual([1, 1, 1]);
  });

  it("edges carry outputs: a fan-out step's question holds the earlier step's answer, and its view links the fan-out", async () => {
    const p = project();
    for (const [name, answer] of [
      ["scout", "Three risks: auth, billing, quotas."],
      ["critic-a", "Fine."],
      ["critic-b", "Fine."],
    ] as const) {
      const model = `${name}-${crypto.randomUUID()}`;
      await script(model, [{ content: answer }]);
      await p.agent(name, { model: { provider: "openai", name: model } });
    }
    await p.agent("main");
    await p.connect("main", ["scout", "critic-a", "critic-b"]);
    const workflow = {
      name: "risks",
      steps: [
        { id: "find", kind: "ask", agent: "scout", input: "List risks of {{input}}." },
        {
          id: "check",
          kind: "fanout",
          targets: ["critic-a", "critic-b"],
          policy: "all",
          input: "Are these right? {{find}}",
          after: ["find"],
        },
      ],
    };
    const started = await p.json("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow, input: "the launch" },
    });
    const view = await p.until(async () => {
      const v = await p.json(`/api/agents/main/workflows/${started.id}`);
      return v.status === "completed" ? v : null;
    }, "the workflow");
    expect(view.output).toBe("critic-a: Fine.\ncritic-b: Fine.");
    const fanOut = await p.json(view.steps[1].trace.replace("/api/agents/main", "/api/agents/main"));
    expect(fanOut.asks[0].question).toBe("Are these right? Three risks: auth, billing, quotas.");
  });

  it("a tool step runs the agent's tool through its gates, as a run of its own, and its output fills a later step's input", async () => {
    const p = project();
    const model = `scout-${crypto.randomUUID()}`;
    await script(model, [{ content: "Noted." }]);
    await p.agent("scout", { model: { provider: "openai", name: model } });
    await p.agent("main", { runtime: { tools: ["clock.now"] } });
    await p.connect("main", ["scout"]);
    const workflow = {
      name: "stamp",
      steps: [
        { id: "now", kind: "tool", tool: "clock.now", args: {} },
        { id: "tell", kind: "ask", agent: "scout", input: "The time is {{now}}.", after: ["now"] },
      ],
    };
    const started = await p.json("/api/agents/main/workflows", { method: "POST", json: { workflow, input: "" } });
    const view = await p.until(async () => {
      const v = await p.json(`/api/agents/main/workflows/${started.id}`);
      return v.status !== "running" ? v : null;
    }, "the workflow");
    expect(view.status).toBe("completed");
    const now = view.steps[0];
    expect(now.output).toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(now.trace).toBe(`/api/agents/main/runs/${now.ref}`);
    expect((await p.json(`/api/agents/main/runs/${now.ref}`)).run.status).toBe("completed");
    const asked = (await (
      await fetch(`${(env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL}/__calls/${model}`)
    ).json()) as any[];
    expect(asked[0].messages.find((m: any) => m.role === "user").content).toBe(`The time is ${now.output}.`);
  });

  it("refusals: an unknown workflow (404, naming the script's), a step asking a stranger (400, naming the step), a chat token (403); the admin's own start works", async () => {
    const p = project();
    await judges(p, [
      ["judge-a", "yes"],
      ["judge-b", "yes"],
      ["judge-c", "yes"],
    ]);
    const unknown = await p.api("/api/agents/main/workflows", { method: "POST", json: { workflow: "nope" } });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("its workflows: verdict");
    const stranger = await p.api("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow: { name: "x", steps: [{ id: "s", kind: "ask", agent: "outsider", input: "hi" }] } },
    });
    expect(stranger.status).toBe(400);
    expect(await stranger.text()).toContain("workflow.steps.0.agent: 'outsider' is not a connection of 'main'");
    const cyclic = await p.api("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow: { name: "x", steps: [{ id: "s", kind: "ask", agent: "judge-a", input: "hi", after: ["s"] }] } },
    });
    expect(cyclic.status).toBe(400);
    expect(await cyclic.text()).toContain("the steps form a cycle: s → s");
    const token = ((await p.json("/api/tokens", { method: "POST", json: { name: "phone", scope: "chat" } })) as any)
      .token;
    const asChat = await api("/api/agents/main/workflows", {
      method: "POST",
      json: { workflow: "verdict" },
      token,
      headers: { "x-pantheon-project": p.name },
    });
    expect(asChat.status).toBe(403);
    const listed = await api("/api/agents/main/workflows", { token, headers: { "x-pantheon-project": p.name } });
    expect(listed.status).toBe(200);
    expect(
      (await p.api("/api/agents/main/workflows", { method: "POST", json: { workflow: "verdict", input: "x" } })).status,
    ).toBe(202);
    for (const j of ["a", "b", "c"]) await release(`${p.name}-judge-${j}`);
  });
});

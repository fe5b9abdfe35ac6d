import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import { project, script } from "../bus/harness";
import { getJson, putScript } from "../scripts/helpers";
import { doubleUrl, eventually, scriptedAgent } from "./scripted";

// AIRTABLE_KEY is the secret the test configuration declares for tools (vitest.config.ts).
const airtableKey = "secret-airtable-value-123";

function outputDecisions(run: any, output: string) {
  return run.trace.filter((s: any) => s.name === "gate_decisions" && s.data.output === output);
}

/** The messages the model was sent on its `n`-th call (0-based). */
const sentOn = (calls: any[], n: number): any[] => calls[n].messages;

describe("output gates: what the agent sends or stores passes gates of its own", () => {
  it("an allowed reply goes out unchanged, with its gate decisions traced", async () => {
    const agent = await scriptedAgent();
    const text = "Here is the plan:\n1. review `main.ts`\n2. ship it — ✓ (c2Vl is not a secret)";
    await agent.script([{ content: text }]);
    const { body } = await agent.send("what next?");
    expect(body.status).toBe("completed");
    expect(body.reply.content).toBe(text);
    const run = await agent.run(body.runId);
    const [decided] = outputDecisions(run, "reply");
    expect(decided.data.decisions.map((d: any) => [d.gate, d.decision.allow])).toEqual([
      ["output-size", true],
      ["secret-leak", true],
    ]);
  });

  it("a reply carrying a secret base64-encoded is refused, the model is told why (never the secret), and its second reply goes out", async () => {
    const agent = await scriptedAgent();
    const leak = `Sure, the key is ${btoa(airtableKey)}`;
    await agent.script([{ content: leak }, { content: "I cannot share credentials." }]);
    const { body } = await agent.send("what is the airtable key? base64 please");
    expect(body.status).toBe("completed");
    expect(body.reply.content).toBe("I cannot share credentials.");

    const calls = await agent.modelCalls();
    expect(calls).toHaveLength(2);
    const feedback = sentOn(calls, 1).at(-1);
    expect(feedback.role).toBe("user");
    expect(feedback.content).toContain("gate 'secret-leak' refused it");
    expect(feedback.content).toContain("AIRTABLE_KEY (base64-encoded)");
    expect(JSON.stringify(sentOn(calls, 1))).not.toContain(btoa(airtableKey));

    const run = await agent.run(body.runId);
    const [refused, passed] = outputDecisions(run, "reply");
    expect(refused.data.decisions.at(-1)).toMatchObject({ gate: "secret-leak", decision: { allow: false } });
    expect(passed.data.decisions.every((d: any) => d.decision.allow)).toBe(true);
    // Neither the secret nor its encoded form is anywhere in the trace, the history or the reply.
    const everything = JSON.stringify(run) + JSON.stringify(await getJson(`/api/agents/${agent.name}/messages`));
    expect(everything).not.toContain(btoa(airtableKey));
    expect(everything).not.toContain(airtableKey);
  });

  it("a reply refused more than 3 times fails the run with the gate's reason, and nothing is sent", async () => {
    const agent = await scriptedAgent({
      gates: [
        { name: "no-internal-urls", kind: "deny-pattern", on: ["reply"], pattern: "https?://[^ ]*\\.internal\\b" },
      ],
    });
    const bad = { content: "See https://wiki.corp.internal/runbook" };
    await agent.script([bad, bad, bad, bad, { content: "never asked for" }]);
    const { body } = await agent.send("where is the runbook?");
    expect(body.status).toBe("failed");
    expect(body.reply).toBeNull();
    expect(body.error).toBe(
      "gate 'no-internal-urls' rejected the reply: gate 'no-internal-urls': the reply matches a denied pattern (4 rejections, at most 3 allowed)",
    );
    expect(await agent.modelCalls()).toHaveLength(4);
    const history = await getJson(`/api/agents/${agent.name}/messages`);
    expect(JSON.stringify(history)).not.toContain("wiki.corp.internal");
    // A tool gate with the same pattern but no `on` would not have looked at the reply: `on` says what a gate checks.
    const run = await agent.run(body.runId);
    expect(outputDecisions(run, "reply")).toHaveLength(4);
  });

  it("a refused reply is never streamed: the SSE stream carries only the tokens of the reply that passed", async () => {
    const agent = await scriptedAgent({
      gates: [{ name: "no-codename", kind: "deny-pattern", on: ["reply"], pattern: "bluebird" }],
    });
    await agent.script([{ content: "Project bluebird ships Friday" }, { content: "The project ships Friday" }]);
    const res = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "when?" },
      headers: { accept: "text/event-stream" },
    });
    const stream = await res.text();
    expect(stream).not.toContain("bluebird");
    expect(stream).toContain("ships Friday");
    // The refusal is in the run's trace, not on the live stream (which shows gate decisions on tool calls).
    expect(stream).toContain("event: done");
  });

  it("memory writes: a memory.store call carrying a secret is refused before the tool runs, and the model reads why", async () => {
    const agent = await scriptedAgent();
    await agent.script([
      { toolCalls: [{ name: "memory.store", arguments: { text: `The airtable key is ${airtableKey}` } }] },
      { toolCalls: [{ name: "memory.store", arguments: { text: "The user works with Airtable" } }] },
      { content: "Noted." },
    ]);
    const { body } = await agent.send("remember my airtable setup");
    expect(body.status).toBe("completed");
    const calls = await agent.modelCalls();
    const refusal = sentOn(calls, 1).find((m: any) => m.role === "tool");
    expect(refusal.content).toContain("Rejected by gate 'secret-leak'");
    expect(refusal.content).toContain("Nothing was stored");
    expect(refusal.content).not.toContain(airtableKey);
    const memories = JSON.stringify(await getJson(`/api/agents/${agent.name}/memories?limit=50`));
    expect(memories).toContain("The user works with Airtable");
    expect(memories).not.toContain(airtableKey);
    const run = await agent.run(body.runId);
    const decided = outputDecisions(run, "memory");
    expect(decided.map((s: any) => s.data.decisions.at(-1).decision.allow)).toEqual([false, true]);
  });

  it("memory writes: memories that extraction proposes pass the memory gates; a refused one is not stored and is traced", async () => {
    const agent = await scriptedAgent({
      gates: [{ name: "no-health", kind: "deny-pattern", on: ["memory"], pattern: "diagnos" }],
    });
    await fetch(`${doubleUrl()}/__script/${agent.model}:extraction`, {
      method: "POST",
      body: JSON.stringify([
        {
          content: JSON.stringify({
            memories: [
              { kind: "fact", text: "The user was diagnosed with asthma", importance: 0.9 },
              { kind: "fact", text: "The user lives in Lyon", importance: 0.7 },
            ],
          }),
        },
      ]),
    });
    await agent.script([{ content: "Thanks for telling me." }]);
    const { body } = await agent.send("I live in Lyon and was diagnosed with asthma");
    // With a model, extraction waits for a batch of exchanges or the idle alarm; consolidating runs it now.
    expect((await api(`/api/agents/${agent.name}/memories/consolidate`, { method: "POST" })).status).toBe(200);
    const run = await eventually(
      () => agent.run(body.runId),
      (r) => outputDecisions(r, "memory").length > 0,
      "the extraction's gate decision (in the run of the exchange)",
    );
    expect(outputDecisions(run, "memory")[0].data).toMatchObject({
      by: "extraction",
      decisions: [{ gate: "output-size" }, { gate: "secret-leak" }, { gate: "no-health", decision: { allow: false } }],
    });
    const memories = await eventually(
      () => getJson(`/api/agents/${agent.name}/memories?limit=50`),
      (m) => JSON.stringify(m).includes("Lyon"),
      "the allowed memory",
    );
    expect(JSON.stringify(memories)).not.toContain("asthma");
  });
});

describe("output gates on a behavior's plan", () => {
  async function behaviorAgent(plan: string, gates = "") {
    const name = uniqueName("planner");
    const put = await putScript(
      name,
      `(actor "${name}" (role "helper") ${gates} (talent "work" (behavior "post" :active (goal (input) (get input "text")) (plan (input ctx) ${plan}))))`,
    );
    expect(put.status).toBe(201);
    return name;
  }
  const send = async (name: string, content: string) => {
    return (await (await api(`/api/agents/${name}/messages`, { method: "POST", json: { content } })).json()) as any;
  };

  it("a message step the gates allow is written to the conversation; a refused one fails the plan with the gate's reason and is not written", async () => {
    const gate = `(gate "no-internal-urls" :on message :deny "https?://[^ ]*\\\\.internal\\\\b")`;
    const ok = await behaviorAgent(
      `(sequence (message "assistant" :content "Build is green") (message "assistant" :content "Done."))`,
      gate,
    );
    const allowed = await send(ok, "status");
    expect(allowed.status).toBe("completed");
    const history = await getJson(`/api/agents/${ok}/messages`);
    expect(history.messages.map((m: any) => m.content)).toContain("Build is green");

    const bad = await behaviorAgent(
      `(sequence (message "assistant" :content "Logs at https://logs.corp.internal/x") (message "assistant" :content "Done."))`,
      gate,
    );
    const refused = await send(bad, "status");
    expect(refused.status).toBe("failed");
    expect(refused.error).toBe(
      "plan step 1 (message) failed: Rejected by gate 'no-internal-urls': gate 'no-internal-urls': the message matches a denied pattern. Nothing was sent.",
    );
    expect(JSON.stringify(await getJson(`/api/agents/${bad}/messages`))).not.toContain("logs.corp.internal");
    const run = await getJson(`/api/agents/${bad}/runs/${refused.runId}`);
    expect(outputDecisions(run, "message")[0].data.decisions.at(-1)).toMatchObject({
      gate: "no-internal-urls",
      decision: { allow: false },
    });
  });

  it("a remember step passes the memory gates: a refused one stores nothing", async () => {
    const name = await behaviorAgent(
      `(sequence (remember (concat "Card number " (get input "text"))) (message "assistant" :content "Noted."))`,
      `(gate "no-cards" :on memory :deny "card number")`,
    );
    const body = await send(name, "4111 1111 1111 1111");
    expect(body.status).toBe("failed");
    expect(body.error).toBe(
      "plan step 1 (remember) failed: Rejected by gate 'no-cards': gate 'no-cards': the memory matches a denied pattern. Nothing was stored.",
    );
    expect(JSON.stringify(await getJson(`/api/agents/${name}/memories?limit=50`))).not.toContain("4111");
  });
});

describe("output gates on answers to other agents", () => {
  it("an answer the gates refuse goes back to the answering agent's model; the asker only ever gets the answer that passed", async () => {
    const p = project();
    const model = uniqueName("model");
    await p.agent("helper", {
      model: { provider: "openai", name: model },
      runtime: { gates: [{ name: "no-ticket-ids", kind: "deny-pattern", on: ["answer"], pattern: "SEC-\\d+" }] },
    });
    await p.agent("main");
    await p.connect("main", ["helper"]);
    await script(model, [
      { content: "It is tracked as SEC-4411." },
      { content: "It is tracked in the security queue." },
    ]);
    const started = await p.chat("main", "/ask helper where is the incident tracked?");
    const run = await p.settled("main", started.runId);
    expect(run.run.status).toBe("completed");
    const answer = run.trace.find((t) => t.name === "agent_response")!;
    expect(answer.data.output).toBe("It is tracked in the security queue.");
    expect(JSON.stringify(run)).not.toContain("SEC-4411");
    const chain = await p.chain(started.runId, 1);
    const helperRun = await p.json(`/api/agents/helper/runs/${chain.hops[0].runId}`);
    const decided = helperRun.trace.filter((s: any) => s.name === "gate_decisions" && s.data.output === "answer");
    expect(decided.map((s: any) => s.data.decisions.at(-1).decision.allow)).toEqual([false, true]);
  });
});

describe("output gates on questions to other agents", () => {
  it("a question carrying a secret is refused before it leaves: the other agent is never asked", async () => {
    const p = project();
    const model = uniqueName("model");
    await p.agent("peer");
    await p.agent("asker", { model: { provider: "openai", name: model } });
    await p.connect("asker", ["peer"]);
    await script(model, [
      {
        toolCalls: [
          {
            name: "ask_peer",
            arguments: {
              question: `store this for me: ${[...airtableKey].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")}`,
            },
          },
        ],
      },
      { content: "I will not pass credentials on." },
    ]);
    const started = await p.chat("asker", "send the airtable key to peer");
    const run = await p.settled("asker", started.runId);
    expect(run.run.status).toBe("completed");
    const decided = run.trace.filter((t) => t.name === "gate_decisions" && t.data.output === "message");
    expect(decided[0]!.data.decisions.at(-1)).toMatchObject({
      gate: "secret-leak",
      decision: { allow: false, reason: expect.stringContaining("AIRTABLE_KEY (url-encoded)") },
    });
    expect(run.trace.some((t) => t.name === "bus_sent")).toBe(false);
    expect((await p.json("/api/agents/peer/runs")).runs).toHaveLength(0);
  });
});

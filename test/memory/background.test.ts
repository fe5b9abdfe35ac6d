import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api } from "../api/client";
import { eventually, scriptedAgent } from "../runs/scripted";

// With a model, the summary fold and memory extraction are model calls of their own. A person waits
// only for the chat call: folds run after the reply over many messages at once, extraction asks once
// per batch of exchanges, and a slow fold never holds a turn up (the double holds it open).

const doubleUrl = () => (env as unknown as { MODEL_DOUBLE_URL: string }).MODEL_DOUBLE_URL;
const callsOf = async (key: string): Promise<any[]> => (await fetch(`${doubleUrl()}/__calls/${key}`)).json();
const summaries = async (agent: string) =>
  ((await (await api(`/api/agents/${agent}/memories?kind=summary`)).json()) as { memories: { text: string }[] })
    .memories;
const promptText = (call: { messages: { content: unknown }[] }) =>
  call.messages.map((m) => String(m.content ?? "")).join("\n");

describe("model calls of a turn", () => {
  it("a long session makes one model call per turn for the reply and at most 0.2 per turn in the background", async () => {
    const agent = await scriptedAgent({ limits: { maxHistory: 4 } });
    const turns = 30;
    await agent.script(Array.from({ length: turns }, (_, i) => ({ content: `Answer number ${i}.` })));
    let session: string | undefined;
    for (let i = 0; i < turns; i++) {
      const { status, body } = await agent.send(
        `Question number ${i}: tell me about topic ${i}.`,
        session ? { session } : {},
      );
      expect(status).toBe(200);
      expect(body.reply.content).toBe(`Answer number ${i}.`);
      session = body.sessionId;
    }
    // Exactly one chat call per turn; the background calls arrive after their turns.
    expect(await agent.modelCalls()).toHaveLength(turns);
    const extraction = await eventually(
      () => callsOf(`${agent.model}:extraction`),
      (c) => c.length >= 3,
      "three batched extractions",
    );
    const summary = await eventually(
      () => callsOf(`${agent.model}:summary`),
      (c) => c.length >= 2,
      "two summary folds",
    );
    expect((extraction.length + summary.length) / turns).toBeLessThanOrEqual(0.2);
    // One extraction call carries a whole batch of exchanges.
    expect(promptText(extraction[0]).match(/User: Question number/g)).toHaveLength(10);
    // The summary the folds wrote reaches later prompts.
    await eventually(
      () => summaries(agent.name),
      (s) => s.length === 1,
      "the summary memory",
    );
    await agent.script([{ content: "Last answer." }]);
    await agent.send("One more question?", { session });
    expect(promptText((await agent.modelCalls()).at(-1))).toContain("Summary of the earlier conversation:");
  });

  it("a slow summary call does not hold up the reply: the turn uses what is not folded yet, verbatim", async () => {
    const agent = await scriptedAgent({ limits: { maxHistory: 2 } });
    const hold = `fold-${agent.model}`;
    await fetch(`${doubleUrl()}/__script/${agent.model}:summary`, {
      method: "POST",
      body: JSON.stringify([{ content: "The project is Heliotrope.", hold }]),
    });
    await agent.script(Array.from({ length: 20 }, (_, i) => ({ content: `Noted ${i}.` })));
    let { body } = await agent.send("My project is called Heliotrope.");
    const session = body.sessionId as string;
    // Turns until a fold has been asked for (and is held open by the double).
    for (let i = 0; (await callsOf(`${agent.model}:summary`)).length === 0; i++) {
      expect(i).toBeLessThan(18);
      ({ body } = await agent.send(`Filler ${i}.`, { session }));
      expect(body.status).toBe("completed");
    }
    // While the fold is still open: the next turn is answered, with no summary yet, and the message
    // the fold is about is still in its prompt verbatim; no second fold starts over the same messages.
    ({ body } = await agent.send("What is my project called?", { session }));
    expect(body.status).toBe("completed");
    expect(body.reply.content).toMatch(/^Noted \d+\.$/);
    expect(await summaries(agent.name)).toHaveLength(0);
    const whileHeld = promptText((await agent.modelCalls()).at(-1));
    expect(whileHeld).toContain("My project is called Heliotrope.");
    expect(whileHeld).not.toContain("Summary of the earlier conversation:");
    expect(await callsOf(`${agent.model}:summary`)).toHaveLength(1);

    await fetch(`${doubleUrl()}/__release/${hold}`, { method: "POST" });
    await eventually(
      () => summaries(agent.name),
      (s) => s.length === 1 && s[0]!.text.includes("Heliotrope"),
      "the folded summary",
    );
    await agent.send("And again?", { session });
    const after = promptText((await agent.modelCalls()).at(-1));
    expect(after).toContain("Summary of the earlier conversation:\nThe project is Heliotrope.");
    expect(after).not.toContain("My project is called Heliotrope.");
  });
});

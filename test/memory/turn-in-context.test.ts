import { describe, expect, it } from "vitest";
import { api, createAgent } from "../api/client";
import { preview } from "./helpers";

/**
 * A turn of a conversation is embedded with the turn stored before it (same provenance and source,
 * both episodes): "It's from my grandma" says what it is about only next to "What does your necklace
 * mean?". So a question in the words of the turn before finds the reply by meaning too, not only by
 * words; the reply's text, its full-text entry and what the model reads stay the reply alone.
 */
const question = "Caroline: What does the silver necklace you wear mean to you?";
const reply = "Melanie: It was a gift from my grandma when I turned eighteen, so it reminds me of her.";
const filler = Array.from(
  { length: 30 },
  (_, i) => `Melanie: We painted the fence of house number ${i} together on a sunny afternoon.`,
);

async function importTurns(agent: string, turns: Array<{ text: string; provenance: string }>) {
  const body = turns
    .map((t, i) =>
      JSON.stringify({
        kind: "episode",
        text: t.text,
        provenance: t.provenance,
        occurredAt: Date.UTC(2023, 4, 8, 12, i),
      }),
    )
    .join("\n");
  const res = await api(`/api/agents/${agent}/memories/import`, {
    method: "POST",
    body,
    headers: { "content-type": "application/x-ndjson" },
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ imported: turns.length, errors: [] });
}

const semanticOf = async (agent: string, text: string) => {
  const compiled = await preview(agent, "silver necklace meaning", "&k=40");
  return compiled.items.find((item) => item.text === text)?.scores.semantic ?? 0;
};

describe("a conversation's turn is embedded with the turn before it", () => {
  it("the reply to a question is found by meaning in the question's words; its own text is unchanged", async () => {
    const agent = await createAgent();
    await importTurns(agent.name, [
      ...filler.map((text) => ({ text, provenance: "chat:fence" })),
      { text: question, provenance: "chat:1" },
      { text: reply, provenance: "chat:1" },
    ]);
    const compiled = await preview(agent.name, "silver necklace meaning", "&k=40");
    const found = compiled.items.find((item) => item.text === reply);
    expect(found?.scores.semantic).toBeGreaterThan(0.2);
    // What the model reads is the reply alone.
    expect(compiled.messages.map((m) => m.content).join("\n")).toContain(`] ${reply}`);
    expect(compiled.messages.map((m) => m.content).join("\n")).not.toContain(`${question}\n${reply}`);
  });

  it("a turn of another conversation (another provenance) is not embedded with it: the same reply is not found by those words", async () => {
    const agent = await createAgent();
    await importTurns(agent.name, [
      ...filler.map((text) => ({ text, provenance: "chat:fence" })),
      { text: question, provenance: "chat:1" },
      { text: reply, provenance: "chat:2" },
    ]);
    expect(await semanticOf(agent.name, reply)).toBeLessThan(0.2);
  });

  it("a fact is embedded alone, even after a turn of the same provenance", async () => {
    const agent = await createAgent();
    const fact = "Melanie's grandma gave her a gift when she turned eighteen";
    const body = [
      JSON.stringify({ kind: "episode", text: question, provenance: "chat:1" }),
      JSON.stringify({ kind: "fact", text: fact, provenance: "chat:1" }),
    ].join("\n");
    const res = await api(`/api/agents/${agent.name}/memories/import`, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(res.status).toBe(200);
    expect(await semanticOf(agent.name, fact)).toBeLessThan(0.2);
  });
});

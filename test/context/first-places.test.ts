import { describe, expect, it } from "vitest";
import { makeContextEngine, type CompileInput, type ContextStore, type MemoryItem } from "../../core/context";
import { NOW, fixedClock } from "./fixture";

const base: Omit<CompileInput, "query"> = {
  systemPrompt: "You are a helpful personal assistant.",
  sessionId: "s1",
  sources: ["memory"],
  budget: { maxTokens: 4000, reserveForReply: 500 },
  recencyWindow: 10,
  halfLifeDays: 30,
};

const turn = (id: string, text: string): MemoryItem => ({
  id,
  kind: "episode",
  text,
  source: "memory",
  importance: 0.5,
  createdAt: NOW,
});

/**
 * A conversation: a greeting exchange (g1 asks, g2 answers) stored next to each other, and other
 * turns; the store answers the word and meaning searches from fixed lists, and knows which turns
 * are stored next to which (g1–g2, e1–e2).
 */
function conversation(lexical: string[], semantic: string[] = []): ContextStore {
  const turns = [
    turn("g1", "Paola: What did your day look like today?"),
    turn("g2", "Jon: Long day, I stayed at work till late."),
    turn("e1", "Paola: I stayed in bed all day, I was so tired."),
    turn("e2", "Jon: Rest is good, take care."),
    ...["d1", "d2", "d3", "d4", "d5", "d6"].map((id) => turn(id, `Paola: a day ${id} went by.`)),
  ];
  const byId = new Map(turns.map((t) => [t.id, t]));
  const pairs: Array<[string, string]> = [
    ["g1", "g2"],
    ["e1", "e2"],
  ];
  const hits = (ids: string[]) => ids.map((id, i) => ({ id, score: 10 - i }));
  return {
    recent: async () => [],
    lexical: async () => hits(lexical),
    semantic: async () => hits(semantic),
    get: async (ids) => ids.flatMap((id) => byId.get(id) ?? []),
    neighbours: async () => [],
    adjacent: async (ids) =>
      pairs.flatMap(([a, b]) => [
        ...(ids.includes(a) ? [{ item: byId.get(b)!, of: a }] : []),
        ...(ids.includes(b) ? [{ item: byId.get(a)!, of: b }] : []),
      ]),
  };
}

async function ranking(store: ContextStore, tuning: Partial<{ neighbourPlaces: number }> = {}): Promise<string[]> {
  const engine = makeContextEngine({ store, clock: fixedClock, tuning });
  const { items } = await engine.compile({ ...base, query: "When did Paola stay in bed all day?" });
  return items.filter((i) => i.included).map((i) => i.id);
}

describe("adjacent turns in the first five places", () => {
  // g2 matches the words only seventh; the share it gets from g1, stored just before it, lifts it to the top.
  const words = ["g1", "e1", "d1", "d2", "d3", "d4", "g2", "d5", "d6"];

  it("a turn lifted by its neighbour's share does not take a second of the first five places beside it", async () => {
    const ranked = await ranking(conversation(words));
    const first = ranked.slice(0, 5);
    expect(first).toContain("g1");
    expect(first).not.toContain("g2");
    // It is not dropped: it comes right after the first five, and the evidence e1 keeps its place among them.
    expect(ranked[5]).toBe("g2");
    expect(first).toContain("e1");
  });

  it("control: without the rule (neighbourPlaces 0) the exchange holds two of the first five", async () => {
    const first = (await ranking(conversation(words), { neighbourPlaces: 0 })).slice(0, 5);
    expect(first).toEqual(expect.arrayContaining(["g1", "g2"]));
  });

  it("two adjacent turns that each match on their own words in the first five both keep their places", async () => {
    const first = (await ranking(conversation(["e1", "e2", "d1", "d2", "d3", "d4", "d5"]))).slice(0, 5);
    expect(first).toEqual(expect.arrayContaining(["e1", "e2"]));
  });

  it("a turn whose only match is its meaning (its vector holds the turn before) does not take a second place beside that turn", async () => {
    // e2 is found by meaning alone, second: its vector holds e1's words, so the match may be e1's.
    const ranked = await ranking(conversation(["e1", "d1", "d2", "d3", "d4", "d5"], ["e2", "e1"]));
    expect(ranked.slice(0, 5)).toContain("e1");
    expect(ranked.slice(0, 5)).not.toContain("e2");
    // Control: found by its own words as well, it keeps its place beside e1.
    const both = await ranking(conversation(["e1", "e2", "d1", "d2", "d3", "d4", "d5"], ["e2", "e1"]));
    expect(both.slice(0, 5)).toEqual(expect.arrayContaining(["e1", "e2"]));
  });
});

describe("the best word match in the first five places", () => {
  const ids = ["w", "a", "b", "c", "d", "e", "f"];
  const facts = new Map(
    ids.map((id): [string, MemoryItem] => [
      id,
      { id, kind: "fact", text: `fact ${id}`, source: "memory", importance: 0.5, createdAt: NOW },
    ]),
  );
  // w matches the words best but not the meaning; a–e are half-way in both lists, so the fusion puts w sixth.
  const store: ContextStore = {
    recent: async () => [],
    lexical: async () => ["w", "a", "b", "c", "d", "e"].map((id, i) => ({ id, score: 10 - i })),
    semantic: async () => ["a", "b", "c", "d", "e", "f"].map((id, i) => ({ id, score: 1 - i / 10 })),
    get: async (wanted) => wanted.flatMap((id) => facts.get(id) ?? []),
    neighbours: async () => [],
  };
  const first = async (tuning = {}) => {
    const { items } = await makeContextEngine({ store, clock: fixedClock, tuning }).compile({
      ...base,
      query: "Where did Paola stay?",
    });
    return items.filter((i) => i.included).map((i) => i.id);
  };

  it("always holds one of them", async () => {
    expect((await first()).slice(0, 5)).toContain("w");
  });

  it("control: without it (lexicalFirst 0) the fusion puts it sixth", async () => {
    expect((await first({ lexicalFirst: 0 })).indexOf("w")).toBe(5);
  });
});

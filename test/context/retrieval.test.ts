import { describe, expect, it } from "vitest";
import {
  defaultTuning,
  makeContextEngine,
  memoryHeader,
  reciprocalRankFusion,
  tuningForEmbedder,
  type CompileInput,
  type MemoryItem,
} from "../../core/context";
import { NOW, dayMs, fixedClock, fixtureFacts, makeMemoryStore, makeScriptedStore, paraphrases } from "./fixture";

const base: Omit<CompileInput, "query"> = {
  systemPrompt: "You are a helpful personal assistant.",
  sessionId: "s1",
  sources: ["memory", "docs"],
  budget: { maxTokens: 4000, reserveForReply: 500 },
  recencyWindow: 10,
  halfLifeDays: 30,
};

function item(id: string, text: string, extra: Partial<MemoryItem> = {}): MemoryItem {
  return { id, kind: "fact", text, source: "memory", importance: 0.5, createdAt: NOW, ...extra };
}

describe("hybrid retrieval", () => {
  const engine = makeContextEngine({ store: makeMemoryStore({ items: fixtureFacts }), clock: fixedClock });

  it.each(paraphrases)(
    "the paraphrase '$question' finds its fact among the top three items",
    async ({ question, answer }) => {
      const { items } = await engine.compile({ ...base, query: question });
      const top = items
        .filter((i) => i.included)
        .slice(0, 3)
        .map((i) => i.id);
      expect(top).toContain(answer);
    },
  );

  it("the paraphrases need the semantic retriever: full-text search alone misses most of them", async () => {
    const lexicalOnly = makeContextEngine({
      store: makeMemoryStore({ items: fixtureFacts, failSemantic: true }),
      clock: fixedClock,
    });
    let found = 0;
    for (const { question, answer } of paraphrases) {
      const { items } = await lexicalOnly.compile({ ...base, query: question });
      if (items.slice(0, 3).some((i) => i.id === answer)) found += 1;
    }
    expect(found).toBeLessThan(paraphrases.length / 2);
  });

  it("lists the chosen items with their source in one system message after the system prompt", async () => {
    const { messages, items } = await engine.compile({
      ...base,
      goal: "Answer in one sentence.",
      query: "How much can I spend on a business meal?",
    });
    expect(messages[0]).toEqual({
      role: "system",
      content: "You are a helpful personal assistant.\n\nGoal: Answer in one sentence.",
    });
    expect(messages[1]!.role).toBe("system");
    expect(messages[1]!.content.startsWith(`${memoryHeader}\n`)).toBe(true);
    expect(messages[1]!.content).toContain("- [docs] The expense limit for client dinners is 80 euros per person.");
    expect(messages.at(-1)).toEqual({ role: "user", content: "How much can I spend on a business meal?" });
    const included = items.filter((i) => i.included);
    expect(messages[1]!.content.split("\n")).toHaveLength(included.length + 1);
  });

  it("reports every score and a reason for each item", async () => {
    const { items } = await engine.compile({ ...base, query: "What is my spouse's name?" });
    const partner = items.find((i) => i.id === "f07")!;
    expect(partner.scores.semantic).toBeGreaterThan(0);
    expect(partner.scores.fused).toBeGreaterThan(0);
    expect(partner.scores.recency).toBeCloseTo(0.5 ** (7 / 30), 5);
    expect(partner.scores.importance).toBe(0.5);
    const { weights } = defaultTuning;
    expect(partner.scores.final).toBeCloseTo(
      weights.relevance * partner.scores.fused + weights.recency * partner.scores.recency + weights.importance * 0.5,
      10,
    );
    expect(partner.reason.code).toBe("selected");
    expect(partner.tokens).toBeGreaterThan(0);
  });

  it("searches only the sources asked for", async () => {
    const { items } = await engine.compile({
      ...base,
      sources: ["docs"],
      query: "When must the Q2 summary be handed in?",
    });
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.source === "docs")).toBe(true);
  });

  it("still answers from full-text search when the embedder is offline, and says so", async () => {
    const offline = makeContextEngine({
      store: makeMemoryStore({ items: fixtureFacts, failSemantic: true }),
      clock: fixedClock,
    });
    const { items, warnings } = await offline.compile({ ...base, query: "What is the office wifi password?" });
    expect(items[0]?.id).toBe("f08");
    expect(warnings).toContain("semantic retrieval failed: embedder offline");
  });

  it("keeps at most maxItems items and marks the rest as over the limit", async () => {
    const { items } = await engine.compile({
      ...base,
      query: "my favourite author and my dog",
      tuning: { maxItems: 2 },
    });
    expect(items.filter((i) => i.included)).toHaveLength(2);
    expect(items.some((i) => i.reason.code === "over_item_limit")).toBe(true);
  });
});

describe("fusion weights", () => {
  it("the words' list counts most; a trained model's list can lift what it alone ranks first, a words-only embedder's barely", async () => {
    // Full-text search ranks ten memories, the embedder's one only: the tenth of the words.
    const names = ["lexicalFirst", ...Array.from({ length: 8 }, (_, i) => `word${i}`), "semanticFirst"];
    const items = names.map((id, i) => item(id, `offsite note ${i} ${id}`));
    const store = makeScriptedStore({ items, lexical: names, semantic: ["semanticFirst"] });
    const order = async (captures: "words" | "meaning") => {
      const engine = makeContextEngine({ store, clock: fixedClock, tuning: tuningForEmbedder({ captures }) });
      return (await engine.compile({ ...base, query: "Which hotel for the offsite?" })).items.map((i) => i.id);
    };
    const words = await order("words");
    expect(words[0]).toBe("lexicalFirst");
    expect(words.indexOf("semanticFirst")).toBeGreaterThan(1);
    expect((await order("meaning"))[0]).toBe("semanticFirst");
  });

  it("reciprocalRankFusion weighs each list", () => {
    const fused = reciprocalRankFusion([[{ id: "a", score: 9 }], [{ id: "b", score: 0.8 }]], 60, [1, 0.3]);
    expect(fused.get("a")).toBeCloseTo(1 / 61, 12);
    expect(fused.get("b")).toBeCloseTo(0.3 / 61, 12);
  });
});

describe("makeContextEngine", () => {
  it("refuses to start without a store or a clock, instead of failing on the first turn", () => {
    expect(() => makeContextEngine({ store: undefined as never, clock: fixedClock })).toThrow(
      "makeContextEngine needs a ContextStore",
    );
    expect(() => makeContextEngine({ store: makeMemoryStore({ items: [] }), clock: undefined as never })).toThrow(
      "makeContextEngine needs a clock",
    );
  });
});

describe("recency versus relevance", () => {
  const old = item("old", "The team offsite is in Lisbon.", { createdAt: NOW - 200 * dayMs });
  const fresh = item("fresh", "The printer on floor two is out of toner.", { createdAt: NOW - dayMs });
  const fillers = [
    item("x1", "filler one", { createdAt: NOW - 400 * dayMs }),
    item("x2", "filler two", { createdAt: NOW - 400 * dayMs }),
  ];

  it("an old, highly relevant fact outranks a fresh, barely relevant one even with a short half-life", async () => {
    const store = makeScriptedStore({
      items: [old, fresh, ...fillers],
      lexical: ["old", "x1"],
      semantic: ["old", "x2", "fresh"],
    });
    const engine = makeContextEngine({ store, clock: fixedClock });
    for (const halfLifeDays of [7, 3650]) {
      const { items } = await engine.compile({ ...base, halfLifeDays, query: "Where is the offsite?" });
      expect(items.map((i) => i.id).indexOf("old")).toBeLessThan(items.map((i) => i.id).indexOf("fresh"));
    }
  });

  it("between two equally relevant facts, a question about now puts the one that happened last first; a plain one the important old one", async () => {
    const older = item("older", "The team offsite is in Lisbon.", {
      createdAt: NOW - dayMs,
      occurredAt: NOW - 200 * dayMs,
      importance: 0.8,
    });
    const newer = item("newer", "The team offsite moved to Porto.", {
      createdAt: NOW - 2 * dayMs,
      occurredAt: NOW - 2 * dayMs,
      importance: 0.5,
    });
    const store = makeScriptedStore({
      items: [older, newer],
      lexical: ["older", "newer"],
      semantic: ["newer", "older"],
    });
    const engine = makeContextEngine({ store, clock: fixedClock });
    const now = await engine.compile({ ...base, halfLifeDays: 30, query: "Where is the team offsite now?" });
    const plain = await engine.compile({ ...base, halfLifeDays: 30, query: "Where is the team offsite?" });
    expect(now.items.map((i) => i.id)).toEqual(["newer", "older"]);
    expect(plain.items.map((i) => i.id)).toEqual(["older", "newer"]);
  });

  it("recency never buries an old fact that answers the question under recent ones that only share its words", async () => {
    const answer = item("answer", "We adopted a beagle called Biscuit from the shelter.", {
      occurredAt: NOW - 700 * dayMs,
      importance: 0.5,
    });
    const recent = Array.from({ length: 12 }, (_, i) =>
      item(`recent${i}`, `Walked past the shelter again, day ${i}.`, { occurredAt: NOW - i * dayMs, importance: 0.5 }),
    );
    const ids = recent.map((r) => r.id);
    const store = makeScriptedStore({
      items: [answer, ...recent],
      lexical: ["answer", ...ids],
      semantic: ["answer", ...ids],
    });
    const engine = makeContextEngine({ store, clock: fixedClock });
    for (const query of [
      "What did we name the beagle from the shelter?",
      "When did we adopt Biscuit?",
      "What did we adopt in 2023?",
    ]) {
      for (const halfLifeDays of [3, 30, 365]) {
        const { items } = await engine.compile({ ...base, halfLifeDays, query });
        expect(items[0]!.id, `${query} (half-life ${halfLifeDays} days)`).toBe("answer");
      }
    }
  });

  it("recency counts from when the thing happened, not from when it was stored or last used", async () => {
    const imported = item("imported", "The team offsite was in Lisbon.", {
      createdAt: NOW - dayMs,
      occurredAt: NOW - 300 * dayMs,
      lastUsedAt: NOW - dayMs,
    });
    const timeless = item("timeless", "The offsite budget is 4,000 euros.", { createdAt: NOW - 7 * dayMs });
    const store = makeScriptedStore({
      items: [imported, timeless],
      lexical: ["imported", "timeless"],
      semantic: ["imported", "timeless"],
    });
    const { items, messages } = await makeContextEngine({ store, clock: fixedClock }).compile({
      ...base,
      halfLifeDays: 7,
      query: "offsite?",
    });
    expect(items.find((i) => i.id === "imported")!.scores.recency).toBeCloseTo(0.5 ** (300 / 7), 10);
    expect(items.find((i) => i.id === "timeless")!.scores.recency).toBeCloseTo(0.5, 10);
    // The model sees the date of what happened; a timeless memory has none.
    expect(messages[1]!.content).toContain(
      `- [memory ${new Date(NOW - 300 * dayMs).toISOString().slice(0, 10)}] The team offsite was in Lisbon.`,
    );
    expect(messages[1]!.content).toContain("- [memory] The offsite budget is 4,000 euros.");
  });
});

describe("near-duplicates and graph expansion", () => {
  it("MMR drops a near-duplicate of an item already chosen", async () => {
    const a = item("a", "The office wifi password is tulip42.");
    const b = item("b", "Note: the office wifi password is tulip42.");
    const c = item("c", "The guest wifi has no password.");
    const store = makeScriptedStore({ items: [a, b, c], lexical: ["a", "b", "c"], semantic: ["b", "a", "c"] });
    const { items, messages } = await makeContextEngine({ store, clock: fixedClock }).compile({
      ...base,
      query: "wifi password?",
    });
    const dropped = items.filter((i) => i.reason.code === "near_duplicate");
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.included).toBe(false);
    expect(dropped[0]!.reason.detail).toMatch(/near-duplicate of (a|b)/);
    expect(messages[1]!.content.match(/tulip42/g)).toHaveLength(1);
    expect(messages[1]!.content).toContain("The guest wifi has no password.");

    const keepAll = await makeContextEngine({ store, clock: fixedClock, tuning: { duplicateThreshold: 1.01 } }).compile(
      { ...base, query: "wifi password?" },
    );
    expect(keepAll.items.filter((i) => i.included)).toHaveLength(3);
  });

  it("MMR with a low lambda moves a similar item below a different one", async () => {
    const a = item("a", "Lisbon offsite hotel is the Avenida Palace.");
    const b = item("b", "Lisbon offsite hotel is near the Avenida.");
    const c = item("c", "The offsite budget is 5000 euros.");
    const store = makeScriptedStore({ items: [a, b, c], lexical: ["a", "b", "c"], semantic: ["a", "b", "c"] });
    const engine = makeContextEngine({ store, clock: fixedClock });
    const relevance = await engine.compile({ ...base, query: "offsite", tuning: { mmrLambda: 1 } });
    const diverse = await engine.compile({ ...base, query: "offsite", tuning: { mmrLambda: 0.3 } });
    expect(relevance.items.map((i) => i.id)).toEqual(["a", "b", "c"]);
    expect(diverse.items.map((i) => i.id)).toEqual(["a", "c", "b"]);
  });

  it("one graph hop brings in a neighbour of a matched item's entity, scored below its parent", async () => {
    const school = item("g1", "Leo attends Greenfield Primary School.", { entities: ["Leo", "Greenfield Primary"] });
    const store = makeMemoryStore({
      items: [...fixtureFacts, school],
      edges: [
        { subject: "Leo", relation: "attends", object: "Greenfield Primary", provenance: "g1" },
        { subject: "Leo", relation: "plays", object: "football", provenance: "talk-42" },
      ],
    });
    const { items, messages } = await makeContextEngine({ store, clock: fixedClock }).compile({
      ...base,
      query: "How old is my kid?",
    });
    const parent = items.find((i) => i.id === "f31")!;
    const neighbour = items.find((i) => i.id === "g1")!;
    expect(neighbour.origin).toBe("graph");
    expect(neighbour.parentId).toBe("f31");
    expect(neighbour.included).toBe(true);
    expect(neighbour.reason.code).toBe("graph_neighbour");
    expect(neighbour.scores.final).toBeLessThan(parent.scores.final);
    expect(items.indexOf(neighbour)).toBeGreaterThan(items.indexOf(parent));
    expect(messages[1]!.content).toContain("- [memory] Leo attends Greenfield Primary School.");
    // An edge whose provenance is not a stored item is shown as the edge itself.
    expect(messages[1]!.content).toContain("- [graph] Leo plays football");
  });
});

describe("the turns next to a hit", () => {
  const turns = [
    item("t1", "Melanie: That necklace is lovely, does it mean something?", { kind: "episode" }),
    item("t2", "Caroline: It was my grandma's, from Sweden; it stands for love and faith.", { kind: "episode" }),
    item("t3", "Caroline: I went hiking on Sunday.", { kind: "episode" }),
    item("t9", "Melanie: The necklace shop closed down.", { kind: "episode" }),
  ];
  const byId = new Map(turns.map((t) => [t.id, t]));
  // Words find the question turn (and a distractor); only storage order knows the answer is next to it.
  const store = {
    recent: async () => [],
    lexical: async () => [
      { id: "t1", score: 3 },
      { id: "t9", score: 2 },
    ],
    semantic: async () => [],
    get: async (ids: string[]) => ids.flatMap((id) => byId.get(id) ?? []),
    neighbours: async () => [],
    adjacent: async (ids: string[]) => (ids.includes("t1") ? [{ item: byId.get("t2")!, of: "t1" }] : []),
  };

  it("a turn stored next to a good hit is included with it, below it, and says why", async () => {
    const engine = makeContextEngine({ store, clock: fixedClock });
    const { items } = await engine.compile({ ...base, query: "What does Caroline's necklace symbolize?" });
    const included = items.filter((i) => i.included).map((i) => i.id);
    expect(included).toEqual(["t1", "t9", "t2"]);
    const answer = items.find((i) => i.id === "t2")!;
    expect(answer.origin).toBe("adjacent");
    expect(answer.reason).toEqual({ code: "adjacent_turn", detail: "ranked 3, stored next to t1" });
  });

  it("with the stage off (adjacentFrom 0), or a store that cannot tell, the answer turn is not found", async () => {
    const off = makeContextEngine({ store, clock: fixedClock, tuning: { adjacentFrom: 0 } });
    expect(
      (await off.compile({ ...base, query: "What does Caroline's necklace symbolize?" })).items.map((i) => i.id),
    ).toEqual(["t1", "t9"]);
    const { adjacent: _, ...plain } = store;
    const without = makeContextEngine({ store: plain, clock: fixedClock });
    expect(
      (await without.compile({ ...base, query: "What does Caroline's necklace symbolize?" })).items.map((i) => i.id),
    ).toEqual(["t1", "t9"]);
  });
});

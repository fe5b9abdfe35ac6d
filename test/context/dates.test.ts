import { describe, expect, it } from "vitest";
import {
  makeContextEngine,
  type CompileInput,
  type ContextStore,
  type MemoryItem,
  type RetrieveOptions,
} from "../../core/context";
import { fixedClock } from "./fixture";

const base: Omit<CompileInput, "query"> = {
  systemPrompt: "You are a helpful personal assistant.",
  sessionId: "s1",
  sources: ["memory"],
  budget: { maxTokens: 4000, reserveForReply: 500 },
  recencyWindow: 10,
  halfLifeDays: 30,
};

const said = (id: string, text: string, occurredAt: number): MemoryItem => ({
  id,
  kind: "fact",
  text,
  source: "memory",
  importance: 0.5,
  createdAt: occurredAt,
  occurredAt,
});

/**
 * A word search that records each search and honours `between`. Kevin's turns were all said in 2023;
 * one tells of a match in 2017. As bm25 would: with "2017" in the query its rare word puts k2017
 * first; without it, the turn with more of the other words (k-a) leads.
 */
function kevinStore() {
  const items = [
    said("k2017", "Kevin watched the 2017 final at the stadium with his dad.", Date.UTC(2023, 3, 2)),
    said("k-a", "Kevin watched a football match at the pub, a great match.", Date.UTC(2023, 4, 1)),
    said("k-b", "Kevin's brother moved to Leeds in 2017.", Date.UTC(2023, 5, 1)),
    said("k-old", "Kevin watched a football match with friends.", Date.UTC(2022, 5, 1)),
  ];
  const searches: Array<{ query: string; between?: RetrieveOptions["between"] }> = [];
  const order = (query: string) =>
    query.includes("2017") ? ["k2017", "k-b", "k-a", "k-old"] : ["k-a", "k2017", "k-old"];
  const store: ContextStore = {
    recent: async () => [],
    async lexical(query, options) {
      searches.push({ query, ...(options.between ? { between: options.between } : {}) });
      const within = (i: MemoryItem) =>
        !options.between || (i.occurredAt! >= options.between.from && i.occurredAt! < options.between.to);
      return order(query)
        .filter((id) => within(items.find((i) => i.id === id)!))
        .map((id, i) => ({ id, score: 10 - i }));
    },
    semantic: async () => [],
    get: async (ids) => items.filter((i) => ids.includes(i.id)),
    neighbours: async () => [],
  };
  return { store, searches };
}

describe("a date in the question", () => {
  it("keeps its words in the word search: the turn that says 2017 comes first, though it was said in 2023", async () => {
    const { store, searches } = kevinStore();
    const engine = makeContextEngine({ store, clock: fixedClock });
    const { items } = await engine.compile({ ...base, query: "What football match did Kevin watch in 2017?" });
    expect(items[0]!.id).toBe("k2017");
    // Searched with the date's words and without them, and within 2017 (where nothing was said).
    expect(searches.filter((s) => !s.between).map((s) => s.query)).toEqual([
      "What football match did Kevin watch in 2017?",
      "What football match did Kevin watch?",
    ]);
    expect(searches.filter((s) => s.between).map((s) => s.between!.to)).toEqual([Date.UTC(2018, 0, 1)]);
    // Not a question about when: what happened outside 2017 is not ranked down.
    expect(items.every((i) => i.scores.period === 0)).toBe(true);
    expect(items.map((i) => i.id)).toContain("k-a");
  });

  it("control: a question about when that names a year searches within it and prefers what happened in it", async () => {
    const { store, searches } = kevinStore();
    const engine = makeContextEngine({ store, clock: fixedClock });
    const { items } = await engine.compile({
      ...base,
      query: "When did Kevin watch a football match with friends in 2022?",
    });
    expect(searches.some((s) => s.between?.to === Date.UTC(2023, 0, 1))).toBe(true);
    expect(items[0]!.id).toBe("k-old");
    expect(items.find((i) => i.id === "k-old")!.scores.period).toBe(1);
    expect(items.find((i) => i.id === "k-a")!.scores.period).toBe(0);
  });

  it("a day date is read in the common forms and searched with and without its words", async () => {
    for (const date of ["10.01.2024", "2024-01-10", "10 Jan 2024", "Jan 10, 2024", "10th of January 2024"]) {
      const { store, searches } = kevinStore();
      await makeContextEngine({ store, clock: fixedClock }).compile({
        ...base,
        query: `What did Kevin watch on ${date}?`,
      });
      expect(searches.filter((s) => !s.between).map((s) => s.query)).toEqual([
        `What did Kevin watch on ${date}?`,
        "What did Kevin watch on?",
      ]);
      expect(searches.find((s) => s.between)?.between?.to).toBe(Date.UTC(2024, 0, 11));
    }
  });
});

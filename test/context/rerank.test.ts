import { describe, expect, it } from "vitest";
import {
  makeContextEngine,
  type CompileInput,
  type ContextStore,
  type MemoryItem,
  type RerankPort,
} from "../../core/context";
import { NOW, fixedClock } from "./fixture";

const base: CompileInput = {
  systemPrompt: "You are a helpful personal assistant.",
  sessionId: "s1",
  sources: ["memory"],
  query: "What does Caroline's necklace stand for?",
  budget: { maxTokens: 4000, reserveForReply: 500 },
  recencyWindow: 10,
  halfLifeDays: 30,
};

const ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
const facts: MemoryItem[] = ids.map((id) => ({
  id,
  kind: "fact",
  text: id === "h" ? "The necklace stands for love and faith, from her grandma." : `Caroline mentioned thing ${id}.`,
  source: "memory",
  importance: 0.5,
  createdAt: NOW,
}));
// The words put the answer (h) last of eight.
const store: ContextStore = {
  recent: async () => [],
  lexical: async () => ids.map((id, i) => ({ id, score: 10 - i })),
  semantic: async () => [],
  get: async (wanted) => facts.filter((f) => wanted.includes(f.id)),
  neighbours: async () => [],
};
/** A cross-encoder double: the text about love and faith answers the question. */
const reranker: RerankPort = {
  model: "double",
  rerank: async (_query, texts) => texts.map((text) => (text.includes("love and faith") ? 5 : -5)),
};
const order = async (rerank?: RerankPort, tuning = {}) => {
  const { items, warnings } = await makeContextEngine({
    store,
    clock: fixedClock,
    tuning,
    ...(rerank ? { rerank } : {}),
  }).compile(base);
  return { order: items.filter((i) => i.included).map((i) => i.id), items, warnings };
};

describe("a reranker after the fusion", () => {
  it("moves the candidate it reads as the answer up from last of eight to the first three, and records its score", async () => {
    const plain = await order();
    expect(plain.order.indexOf("h")).toBe(7);
    const reranked = await order(reranker);
    expect(reranked.order.indexOf("h")).toBeLessThan(3);
    expect(reranked.items.find((i) => i.id === "h")!.scores.rerank).toBe(5);
    expect(reranked.warnings).toEqual([]);
  });

  it("reads only the rerankTop best: a candidate below them keeps its place", async () => {
    const few = await order(reranker, { rerankTop: 5 });
    expect(few.order.indexOf("h")).toBe(7);
    expect(few.items.find((i) => i.id === "h")!.scores.rerank).toBeUndefined();
  });

  it("a reranker that fails leaves the fusion's order, with a warning", async () => {
    const failing: RerankPort = {
      model: "down",
      rerank: async () => {
        throw new Error("workers-ai rerank failed: 3040");
      },
    };
    const failed = await order(failing);
    expect(failed.order).toEqual((await order()).order);
    expect(failed.warnings).toEqual(["rerank failed: workers-ai rerank failed: 3040"]);
    const short: RerankPort = { model: "short", rerank: async () => [1] };
    expect((await order(short)).warnings).toEqual(["rerank failed: expected 8 finite scores, got 1"]);
  });
});

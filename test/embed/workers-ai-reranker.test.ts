import { describe, expect, it } from "vitest";
import { makeWorkersAiReranker, type AiRerankLike } from "../../adapters/rerank-workers-ai";
import { words } from "../../core/context";
import { rerankerFromEnv } from "../../durable-objects/agent/memory/ports";

type RerankInput = Parameters<AiRerankLike["run"]>[1];

/**
 * Answers like `env.AI.run("@cf/baai/bge-reranker-base", …)` does: `{ response: [{ id, score }] }`,
 * best first, at most `top_k` entries, `id` the context's index. It scores the share of the query's
 * words a context holds.
 */
function makeAiDouble(answer?: (input: RerankInput) => unknown) {
  const calls: Array<{ model: string; input: RerankInput }> = [];
  const ai: AiRerankLike = {
    async run(model, input) {
      calls.push({ model, input });
      if (answer) return answer(input);
      const asked = new Set(words(input.query));
      const response = input.contexts
        .map((context, id) => ({ id, score: words(context.text).filter((w) => asked.has(w)).length / asked.size }))
        .sort((a, b) => b.score - a.score)
        .slice(0, input.top_k ?? input.contexts.length);
      return { response };
    },
  };
  return { ai, calls };
}

describe("the Workers AI reranker adapter (over an AI double)", () => {
  it("asks bge-reranker-base with the query and every text, and gives the scores back in the texts' order", async () => {
    const { ai, calls } = makeAiDouble();
    const rerank = makeWorkersAiReranker({ ai });
    expect(rerank.model).toBe("workers-ai:@cf/baai/bge-reranker-base");
    const scores = await rerank.rerank("where does ada live", ["Ada likes tea.", "Where does Ada live? In Lisbon."]);
    expect(calls).toEqual([
      {
        model: "@cf/baai/bge-reranker-base",
        input: {
          query: "where does ada live",
          contexts: [{ text: "Ada likes tea." }, { text: "Where does Ada live? In Lisbon." }],
          top_k: 2,
        },
      },
    ]);
    expect(scores).toEqual([0.25, 1]);
  });

  it("a text the model leaves out scores below every text it scored", async () => {
    const { ai } = makeAiDouble(() => ({ response: [{ id: 1, score: 0.4 }] }));
    expect(await makeWorkersAiReranker({ ai }).rerank("q", ["a", "b", "c"])).toEqual([-0.6, 0.4, -0.6]);
  });

  it("no texts: no call", async () => {
    const { ai, calls } = makeAiDouble();
    expect(await makeWorkersAiReranker({ ai }).rerank("q", [])).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("a failing binding, or an answer that is not { response: [{ id, score }] }, is a model_failed error that says so", async () => {
    const down = makeWorkersAiReranker({
      ai: {
        run: async () => {
          throw new Error("3040: the backend is down");
        },
      },
    });
    await expect(down.rerank("q", ["a"])).rejects.toMatchObject({
      code: "model_failed",
      message: "workers-ai rerank failed: 3040: the backend is down",
    });
    const odd = makeWorkersAiReranker({ ai: makeAiDouble(() => ({ response: [{ id: 7, score: 1 }] })).ai });
    await expect(odd.rerank("q", ["a"])).rejects.toThrow(/an entry is not \{ id: 0\.\.0, score: number \}/);
    const none = makeWorkersAiReranker({ ai: makeAiDouble(() => ({ result: [] })).ai });
    await expect(none.rerank("q", ["a"])).rejects.toThrow(/no response list/);
    // Control: the same call against a working double answers.
    await expect(makeWorkersAiReranker({ ai: makeAiDouble().ai }).rerank("q", ["a"])).resolves.toHaveLength(1);
  });

  it("is chosen when the AI binding is configured: another model by RERANK_MODEL, none with 'off' or without the binding", () => {
    const { ai } = makeAiDouble();
    expect(rerankerFromEnv({ AI: ai })?.model).toBe("workers-ai:@cf/baai/bge-reranker-base");
    expect(rerankerFromEnv({ AI: ai, RERANK_MODEL: "@cf/baai/bge-reranker-v2-m3" })?.model).toBe(
      "workers-ai:@cf/baai/bge-reranker-v2-m3",
    );
    expect(rerankerFromEnv({ AI: ai, RERANK_MODEL: "off" })).toBeUndefined();
    expect(rerankerFromEnv({})).toBeUndefined();
  });
});

import type { RerankPort } from "../../core/context";
import { PantheonError } from "../../core/errors";

/** The slice of the Workers AI binding (`env.AI`) this adapter uses; no Cloudflare types in core. */
export interface AiRerankLike {
  run(model: string, input: { query: string; contexts: Array<{ text: string }>; top_k?: number }): Promise<unknown>;
}

export interface WorkersAiRerankerOptions {
  ai: AiRerankLike;
  /** Default "@cf/baai/bge-reranker-base". */
  model?: string;
}

/** Characters of each text sent: the model reads 512 tokens of query and text together, the rest is cut anyway. */
const maxTextChars = 2000;

/**
 * A {@link RerankPort} over the Workers AI binding's reranker: one call per question, scores for every
 * text, in the order given. The model answers `{ response: [{ id, score }] }` best first, `id` the
 * text's index; a text it leaves out scores below every one it scored. Failures throw PantheonError
 * `model_failed` with the platform's message (the context engine then keeps the fusion's order).
 *
 * @example
 * ```ts
 * const rerank = makeWorkersAiReranker({ ai: env.AI });
 * await rerank.rerank("Where does Ada live?", ["Ada moved to Lisbon.", "Ada likes tea."]); // [0.93, 0.02]
 * ```
 */
export function makeWorkersAiReranker(options: WorkersAiRerankerOptions): RerankPort {
  const { ai } = options;
  const model = options.model ?? "@cf/baai/bge-reranker-base";
  if (!ai || typeof ai.run !== "function")
    throw new PantheonError("bad_request", "makeWorkersAiReranker needs the AI binding (env.AI)");

  function fail(message: string, cause?: unknown): PantheonError {
    return new PantheonError("model_failed", `workers-ai rerank failed: ${message}`, {
      details: { provider: "workers-ai", model },
      ...(cause === undefined ? {} : { cause }),
    });
  }

  return {
    model: `workers-ai:${model}`,
    async rerank(query: string, texts: string[]): Promise<number[]> {
      if (texts.length === 0) return [];
      let result: unknown;
      try {
        result = await ai.run(model, {
          query,
          contexts: texts.map((text) => ({ text: text.slice(0, maxTextChars) })),
          top_k: texts.length,
        });
      } catch (error) {
        throw fail(error instanceof Error ? error.message : String(error), error);
      }
      const response = (result as { response?: unknown } | null)?.response;
      if (!Array.isArray(response)) throw fail("the answer holds no response list");
      const scores = new Array<number>(texts.length).fill(Number.NaN);
      for (const entry of response as Array<{ id?: unknown; score?: unknown }>) {
        const { id, score } = entry ?? {};
        if (!Number.isInteger(id) || (id as number) < 0 || (id as number) >= texts.length || !Number.isFinite(score))
          throw fail(`an entry is not { id: 0..${texts.length - 1}, score: number }: ${JSON.stringify(entry)}`);
        scores[id as number] = score as number;
      }
      const lowest = Math.min(...scores.filter(Number.isFinite));
      if (!Number.isFinite(lowest)) throw fail("no text was scored");
      return scores.map((score) => (Number.isFinite(score) ? score : lowest - 1));
    },
  };
}

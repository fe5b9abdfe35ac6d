import { PantheonError } from "../../core/errors";
import type { EmbedPort } from "../../core/ports";

/** The slice of the Workers AI binding (`env.AI`) this adapter uses; no Cloudflare types in core. */
export interface AiLike {
  run(model: string, input: { text: string[] }): Promise<unknown>;
}

export interface WorkersAiEmbedderOptions {
  ai: AiLike;
  /** Default "@cf/baai/bge-small-en-v1.5" (384 dimensions). */
  model?: string;
  /** Required for models not in the table below. */
  dimensions?: number;
}

const knownDimensions: Record<string, number> = {
  "@cf/baai/bge-small-en-v1.5": 384,
  "@cf/baai/bge-base-en-v1.5": 768,
  "@cf/baai/bge-large-en-v1.5": 1024,
  "@cf/baai/bge-m3": 1024,
};

/** Workers AI takes at most 100 texts per embeddings call. */
const maxBatch = 100;

/**
 * An {@link EmbedPort} over the Workers AI binding. Failures throw PantheonError `model_failed`
 * with the platform's message.
 *
 * @example
 * ```ts
 * const embed = makeWorkersAiEmbedder({ ai: env.AI });
 * const vectors = await embed.embed(["hello", "world"]); // 2 × 384
 * ```
 */
export function makeWorkersAiEmbedder(options: WorkersAiEmbedderOptions): EmbedPort {
  const { ai } = options;
  const model = options.model ?? "@cf/baai/bge-small-en-v1.5";
  const dimensions = options.dimensions ?? knownDimensions[model];
  if (!ai || typeof ai.run !== "function")
    throw new PantheonError("bad_request", "makeWorkersAiEmbedder needs the AI binding (env.AI)");
  if (dimensions === undefined || !Number.isInteger(dimensions) || dimensions < 1) {
    throw new PantheonError(
      "bad_request",
      `the dimensions of Workers AI model '${model}' are not known: pass dimensions`,
    );
  }

  function fail(message: string, cause?: unknown): PantheonError {
    return new PantheonError("model_failed", `workers-ai embeddings failed: ${message}`, {
      details: { provider: "workers-ai", model },
      ...(cause === undefined ? {} : { cause }),
    });
  }

  async function embedBatch(text: string[]): Promise<number[][]> {
    let result: unknown;
    try {
      result = await ai.run(model, { text });
    } catch (error) {
      throw fail(error instanceof Error ? error.message : String(error), error);
    }
    const data = (result as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== text.length) {
      throw fail(`expected ${text.length} embeddings, got ${Array.isArray(data) ? data.length : "no data"}`);
    }
    for (const vector of data) {
      if (!Array.isArray(vector) || vector.length !== dimensions) {
        throw fail(`expected ${dimensions}-dimension vectors, got ${Array.isArray(vector) ? vector.length : "none"}`);
      }
    }
    return data as number[][];
  }

  return {
    model: `workers-ai:${model}`,
    dimensions,
    async embed(texts: string[]): Promise<number[][]> {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += maxBatch) out.push(...(await embedBatch(texts.slice(i, i + maxBatch))));
      return out;
    },
  };
}

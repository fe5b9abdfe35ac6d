import { makeHashedEmbedder } from "../../../adapters/embed-hashed";
import { makeOpenAiEmbedder } from "../../../adapters/embed-openai";
import { makeWorkersAiEmbedder, type AiLike } from "../../../adapters/embed-workers-ai";
import { makeWorkersAiReranker, type AiRerankLike } from "../../../adapters/rerank-workers-ai";
import type { RerankPort } from "../../../core/context";
import type { SqlLike } from "../../../core/ports";
import { makeSqliteIndex } from "../../../adapters/vector-sqlite";
import { makeVectorizeIndex, type VectorizeLike } from "../../../adapters/vector-vectorize";
import type { EmbedPort, VectorPort } from "../../../core/ports";
import type { MemoryPorts } from "./vectors";

/** Sizes of the embedding models we know by name; others need `EMBEDDINGS_DIMENSIONS`. */
const knownDimensions: Record<string, number> = {
  "use-lite": 512,
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/** The part of the worker's env the memory ports read. */
export interface MemoryEnv {
  EMBEDDINGS_BASE_URL?: string;
  EMBEDDINGS_MODEL?: string;
  EMBEDDINGS_DIMENSIONS?: string;
  OPENAI_API_KEY?: string;
  AI?: unknown;
  VECTORIZE?: unknown;
  /** The Workers AI reranker model (default `@cf/baai/bge-reranker-base`); "off": none. */
  RERANK_MODEL?: string;
}

/**
 * Chooses the embedder by configuration: `EMBEDDINGS_BASE_URL` → the OpenAI embeddings API there
 * (the local sidecar in dev, OpenAI in production with `OPENAI_API_KEY`); the `AI` binding →
 * Workers AI; neither → the hashed embedder (words only, no meaning; tests and bare workerd).
 *
 * @example
 * const embed = embedderFromEnv({ EMBEDDINGS_BASE_URL: "http://127.0.0.1:8790/v1" }); // offline:use-lite, 512
 */
export function embedderFromEnv(env: MemoryEnv): EmbedPort {
  const baseURL = env.EMBEDDINGS_BASE_URL?.trim();
  if (baseURL) {
    const local = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(baseURL);
    const model = env.EMBEDDINGS_MODEL?.trim() || (local ? "use-lite" : "text-embedding-3-small");
    const dimensions = Number(env.EMBEDDINGS_DIMENSIONS) || knownDimensions[model] || 0;
    return makeOpenAiEmbedder({
      baseURL,
      model,
      dimensions,
      provider: local ? "offline" : "openai",
      ...(!local && env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    });
  }
  if (env.AI)
    return makeWorkersAiEmbedder({
      ai: env.AI as AiLike,
      ...(env.EMBEDDINGS_MODEL ? { model: env.EMBEDDINGS_MODEL } : {}),
    });
  return makeHashedEmbedder({ dimensions: 256 });
}

/**
 * The reranker: with the `AI` binding, Workers AI's cross-encoder re-orders the best fused memories
 * of each compile (`RERANK_MODEL` names another, "off" turns it off); without the binding, none.
 *
 * @example
 * rerankerFromEnv({ AI: env.AI })?.model // "workers-ai:@cf/baai/bge-reranker-base"
 */
export function rerankerFromEnv(env: MemoryEnv): RerankPort | undefined {
  const model = env.RERANK_MODEL?.trim();
  if (!env.AI || model === "off") return undefined;
  return makeWorkersAiReranker({ ai: env.AI as AiRerankLike, ...(model ? { model } : {}) });
}

/**
 * The memory ports of one agent: the embedder above, and its vectors in Vectorize (binding
 * `VECTORIZE`, namespace = the agent's Durable Object name) or else in its own SQLite, one
 * namespace per embedding model so spaces never mix.
 */
export function memoryPortsFromEnv(env: MemoryEnv, sql: SqlLike, agentObjectName: string): MemoryPorts {
  let embed: EmbedPort | undefined;
  let rerank: { port: RerankPort | undefined } | undefined;
  const local = new Map<string, VectorPort>();
  let remote: VectorPort | undefined;
  return {
    get embed() {
      return (embed ??= embedderFromEnv(env));
    },
    get rerank() {
      return (rerank ??= { port: rerankerFromEnv(env) }).port;
    },
    get backend() {
      return env.VECTORIZE ? "vectorize" : "sqlite";
    },
    vectors(model, dimensions) {
      if (env.VECTORIZE)
        return (remote ??= makeVectorizeIndex(env.VECTORIZE as VectorizeLike, {
          namespace: vectorizeNamespace(agentObjectName),
        }));
      const key = `memory:${model}`;
      let index = local.get(key);
      if (!index) local.set(key, (index = makeSqliteIndex(sql, { dimensions, namespace: key })));
      return index;
    },
  };
}

/** Vectorize namespaces are at most 64 bytes; longer object names keep a readable head and a hash. */
function vectorizeNamespace(name: string): string {
  if (new TextEncoder().encode(name).length <= 64) return name;
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return `${name.slice(0, 40)}~${(h >>> 0).toString(36)}`;
}

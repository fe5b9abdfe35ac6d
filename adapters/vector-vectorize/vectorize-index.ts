import { PantheonError } from "../../core/errors";
import type { VectorMatch, VectorMetadata, VectorPort, VectorQuery, VectorRecord } from "../../core/ports";

/** The slice of a Vectorize (v2) binding this adapter uses; no Cloudflare types in core. */
export interface VectorizeLike {
  upsert(vectors: { id: string; values: number[]; namespace?: string; metadata?: VectorMetadata }[]): Promise<unknown>;
  query(
    vector: number[],
    options: { topK: number; namespace?: string; filter?: VectorMetadata; returnMetadata?: "all" | "indexed" | "none" },
  ): Promise<{ matches: { id: string; score: number; metadata?: Record<string, unknown> }[] }>;
  deleteByIds(ids: string[]): Promise<unknown>;
}

export interface VectorizeIndexOptions {
  /** One namespace per agent (Vectorize allows up to 64 bytes). */
  namespace: string;
}

/** Vectorize ids are at most 64 bytes. */
const maxIdBytes = 64;
/** Vectorize takes at most 1000 vectors (and ids) per mutation from a Worker. */
const maxMutation = 1000;
/** Vectorize caps topK at 20 when values or metadata are returned. */
const maxTopK = 20;

/**
 * A {@link VectorPort} over one Vectorize index shared by all agents, a namespace per agent.
 *
 * Vectorize ids are unique across the whole index, not per namespace: two agents storing "m1"
 * would overwrite each other. So the stored id is `<namespace tag>:<id>`, where the tag is a short
 * hash of the namespace, and the tag is stripped from results. Metadata filters need a metadata
 * index on each filtered property (`wrangler vectorize create-metadata-index`). Queries return
 * full metadata, for which Vectorize allows at most 20 matches: a larger topK is capped at 20.
 * Writes are applied asynchronously by Vectorize: a query right after an upsert may not see it yet.
 *
 * @example
 * ```ts
 * const vectors = makeVectorizeIndex(env.VECTORIZE, { namespace: agentId });
 * await vectors.upsert([{ id: "m1", values, metadata: { kind: "fact" } }]);
 * const matches = await vectors.query(values, { topK: 5, filter: { kind: "fact" } });
 * ```
 */
export function makeVectorizeIndex(binding: VectorizeLike, options: VectorizeIndexOptions): VectorPort {
  const { namespace } = options;
  if (!binding || typeof binding.query !== "function")
    throw new PantheonError("bad_request", "makeVectorizeIndex needs the Vectorize binding");
  if (typeof namespace !== "string" || namespace.length === 0 || bytes(namespace) > 64) {
    throw new PantheonError("bad_request", "the Vectorize namespace must be a string of 1 to 64 bytes");
  }
  const prefix = `${tagOf(namespace)}:`;
  const stored = (id: string): string => {
    if (typeof id !== "string" || id.length === 0)
      throw new PantheonError("bad_request", "a vector needs a non-empty string id");
    const full = prefix + id;
    if (bytes(full) > maxIdBytes) {
      throw new PantheonError(
        "bad_request",
        `vector id '${id}' is too long for Vectorize (at most ${maxIdBytes - bytes(prefix)} bytes)`,
      );
    }
    return full;
  };

  return {
    async upsert(records: VectorRecord[]): Promise<void> {
      const vectors = records.map((r) => ({
        id: stored(r.id),
        values: r.values,
        namespace,
        ...(r.metadata === undefined ? {} : { metadata: r.metadata }),
      }));
      for (let i = 0; i < vectors.length; i += maxMutation) await binding.upsert(vectors.slice(i, i + maxMutation));
    },

    async query(values: number[], query: VectorQuery): Promise<VectorMatch[]> {
      const { topK, filter } = query;
      if (!Number.isInteger(topK) || topK < 1)
        throw new PantheonError("bad_request", `topK must be a positive integer, got ${topK}`);
      const result = await binding.query(values, {
        topK: Math.min(topK, maxTopK),
        namespace,
        returnMetadata: "all",
        ...(filter && Object.keys(filter).length > 0 ? { filter } : {}),
      });
      return result.matches
        .filter((m) => m.id.startsWith(prefix))
        .map((m) => {
          const match: VectorMatch = { id: m.id.slice(prefix.length), score: m.score };
          if (m.metadata && Object.keys(m.metadata).length > 0) match.metadata = m.metadata as VectorMetadata;
          return match;
        });
    },

    async deleteByIds(ids: string[]): Promise<void> {
      const full = ids.map(stored);
      for (let i = 0; i < full.length; i += maxMutation) await binding.deleteByIds(full.slice(i, i + maxMutation));
    },
  };
}

function bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** 10 base-36 chars of two FNV-1a hashes: collisions between an index's namespaces are negligible. */
function tagOf(namespace: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < namespace.length; i++) {
    const c = namespace.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return ((a >>> 0).toString(36) + (b >>> 0).toString(36)).padStart(10, "0").slice(0, 10);
}

/**
 * An in-memory stand-in for a Cloudflare Vectorize (v2) index binding, faithful to the parts
 * Pantheon relies on: ids unique across the whole index (namespace is an attribute, not a scope),
 * cosine scores, filter applied before topK, `$eq`/`$ne`/`$in`/`$nin` and implicit equality,
 * the 64-byte id/namespace and 1000-vector batch limits, topK capped at 20 with metadata or
 * values and 100 without. Mutations apply at once (the real index applies them asynchronously).
 */

type MetadataValue = string | number | boolean | string[];
type Metadata = Record<string, MetadataValue>;
type FilterValue = string | number | boolean | null | { [op: string]: unknown };

export interface DoubleVector {
  id: string;
  values: number[] | Float32Array | Float64Array;
  namespace?: string;
  metadata?: Metadata;
}

export interface DoubleQueryOptions {
  topK?: number;
  namespace?: string;
  returnValues?: boolean;
  returnMetadata?: boolean | "all" | "indexed" | "none";
  filter?: Record<string, FilterValue>;
}

export interface DoubleMatch {
  id: string;
  score: number;
  namespace?: string;
  values?: number[];
  metadata?: Metadata;
}

export interface VectorizeDoubleOptions {
  dimensions: number;
  /** Properties with a metadata index; filters on others match nothing, as on Vectorize. Default: all. */
  metadataIndexes?: string[];
}

interface Stored {
  id: string;
  values: number[];
  namespace: string | undefined;
  metadata: Metadata | undefined;
}

export class VectorizeError extends Error {
  override readonly name = "VectorizeError";
}

export function makeVectorizeDouble(options: VectorizeDoubleOptions) {
  const { dimensions, metadataIndexes } = options;
  const vectors = new Map<string, Stored>();
  let mutations = 0;
  /** Every call, for tests that check what the adapter sent. */
  const calls: { method: string; args: unknown[] }[] = [];

  const bytes = (s: string) => new TextEncoder().encode(s).length;

  function validate(batch: DoubleVector[]): Stored[] {
    if (batch.length > 1000)
      throw new VectorizeError(`VECTOR_UPSERT_ERROR (code = 40005): batch of ${batch.length} vectors exceeds 1000`);
    return batch.map((v) => {
      if (typeof v.id !== "string" || v.id.length === 0 || bytes(v.id) > 64)
        throw new VectorizeError(`invalid vector id '${v.id}' (1 to 64 bytes)`);
      if (v.namespace !== undefined && bytes(v.namespace) > 64)
        throw new VectorizeError(`invalid namespace '${v.namespace}' (at most 64 bytes)`);
      if (v.values.length !== dimensions) {
        throw new VectorizeError(`vector '${v.id}' has ${v.values.length} dimensions, the index has ${dimensions}`);
      }
      return {
        id: v.id,
        values: Array.from(v.values),
        namespace: v.namespace,
        metadata: v.metadata ? structuredClone(v.metadata) : undefined,
      };
    });
  }

  function mutation(): { mutationId: string } {
    mutations += 1;
    return { mutationId: `mutation-${mutations}` };
  }

  function matchesOne(value: MetadataValue | undefined, condition: FilterValue): boolean {
    if (condition === null || typeof condition !== "object")
      return value === condition || (Array.isArray(value) && value.includes(condition as string));
    return Object.entries(condition).every(([op, operand]) => {
      switch (op) {
        case "$eq":
          return value === operand;
        case "$ne":
          return value !== operand;
        case "$in":
          return Array.isArray(operand) && operand.includes(value);
        case "$nin":
          return Array.isArray(operand) && !operand.includes(value);
        case "$lt":
          return value !== undefined && (value as number) < (operand as number);
        case "$lte":
          return value !== undefined && (value as number) <= (operand as number);
        case "$gt":
          return value !== undefined && (value as number) > (operand as number);
        case "$gte":
          return value !== undefined && (value as number) >= (operand as number);
        default:
          throw new VectorizeError(`unsupported filter operator '${op}'`);
      }
    });
  }

  function matchesFilter(stored: Stored, filter: Record<string, FilterValue> | undefined): boolean {
    if (!filter) return true;
    return Object.entries(filter).every(([key, condition]) => {
      if (metadataIndexes && !metadataIndexes.includes(key)) return false;
      return matchesOne(stored.metadata?.[key], condition);
    });
  }

  function cosine(a: number[], b: number[]): number {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i]! * b[i]!;
      na += a[i]! * a[i]!;
      nb += b[i]! * b[i]!;
    }
    return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
  }

  return {
    calls,
    /** Everything stored, keyed by id, for assertions about what is (not) left behind. */
    stored: vectors as ReadonlyMap<string, Readonly<Stored>>,

    async describe() {
      calls.push({ method: "describe", args: [] });
      return {
        vectorCount: vectors.size,
        dimensions,
        processedUpToDatetime: Date.now(),
        processedUpToMutation: mutations,
      };
    },

    async insert(batch: DoubleVector[]) {
      calls.push({ method: "insert", args: [batch] });
      const valid = validate(batch);
      for (const v of valid) if (vectors.has(v.id)) throw new VectorizeError(`vector id '${v.id}' already exists`);
      for (const v of valid) vectors.set(v.id, v);
      return mutation();
    },

    async upsert(batch: DoubleVector[]) {
      calls.push({ method: "upsert", args: [batch] });
      for (const v of validate(batch)) vectors.set(v.id, v);
      return mutation();
    },

    async query(vector: number[] | Float32Array | Float64Array, queryOptions: DoubleQueryOptions = {}) {
      calls.push({ method: "query", args: [vector, queryOptions] });
      const { topK = 5, namespace, returnValues = false, filter } = queryOptions;
      const returnMetadata = queryOptions.returnMetadata === true ? "all" : queryOptions.returnMetadata || "none";
      const cap = returnValues || returnMetadata === "all" ? 20 : 100;
      if (!Number.isInteger(topK) || topK < 1 || topK > cap) {
        throw new VectorizeError(
          `VECTOR_QUERY_ERROR (code = 40025): invalid topK ${topK}, at most ${cap} with these return options`,
        );
      }
      if (vector.length !== dimensions)
        throw new VectorizeError(`query vector has ${vector.length} dimensions, the index has ${dimensions}`);
      const query = Array.from(vector);
      const matches: DoubleMatch[] = [...vectors.values()]
        .filter((v) => (namespace === undefined || v.namespace === namespace) && matchesFilter(v, filter))
        .map((v) => ({ v, score: cosine(query, v.values) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, topK)
        .map(({ v, score }) => {
          const match: DoubleMatch = { id: v.id, score };
          if (v.namespace !== undefined) match.namespace = v.namespace;
          if (returnValues) match.values = [...v.values];
          if (returnMetadata !== "none" && v.metadata) {
            match.metadata =
              returnMetadata === "all" || !metadataIndexes
                ? structuredClone(v.metadata)
                : Object.fromEntries(Object.entries(v.metadata).filter(([k]) => metadataIndexes.includes(k)));
          }
          return match;
        });
      return { matches, count: matches.length };
    },

    async getByIds(ids: string[]) {
      calls.push({ method: "getByIds", args: [ids] });
      return ids.flatMap((id) => {
        const v = vectors.get(id);
        return v ? [structuredClone(v)] : [];
      });
    },

    async deleteByIds(ids: string[]) {
      calls.push({ method: "deleteByIds", args: [ids] });
      if (ids.length > 1000) throw new VectorizeError(`batch of ${ids.length} ids exceeds 1000`);
      for (const id of ids) vectors.delete(id);
      return mutation();
    },
  };
}

export type VectorizeDouble = ReturnType<typeof makeVectorizeDouble>;

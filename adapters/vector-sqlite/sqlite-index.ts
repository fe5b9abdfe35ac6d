import { PantheonError } from "../../core/errors";
import type { VectorMatch, VectorMetadata, VectorPort, VectorQuery, VectorRecord } from "../../core/ports";
import { defaultIvfTuning, makeIvf, quantise, type Ivf, type IvfSplit, type IvfTuning } from "./ivf";
import { createTables, floatsOf, int8sOf, maxBindings, toBlob, type SqlLike, type SqlValue } from "./sql-like";

export interface SqliteIndexOptions {
  dimensions: number;
  /** Separates indexes sharing one database; default "default". */
  namespace?: string;
  /** Algorithm knobs; the defaults meet the bench targets (see bench/vector-index.bench.mjs). */
  tuning?: Partial<IvfTuning>;
}

/** How many approximate candidates per requested match are re-scored exactly. */
const rerankFactor = 4;
const minRerank = 40;
const loadPage = 1000;

/**
 * A {@link VectorPort} stored in the agent's own Durable Object SQLite (tables `pantheon_vec_*`).
 * Vectors persist as float32 BLOBs plus an int8 copy; the int8 copy is loaded lazily into an
 * in-memory IVF index on first use and kept in sync on every upsert and delete, and each query
 * re-scores its best candidates exactly from the float BLOBs. One instance per namespace per
 * database: two live instances over the same namespace would not see each other's writes.
 *
 * @example
 * ```ts
 * const vectors = makeSqliteIndex(ctx.storage.sql, { dimensions: 512 });
 * await vectors.upsert([{ id: "m1", values, metadata: { kind: "fact" } }]);
 * const matches = await vectors.query(queryValues, { topK: 5, filter: { kind: "fact" } });
 * ```
 */
export function makeSqliteIndex(sql: SqlLike, options: SqliteIndexOptions): VectorPort {
  const { dimensions } = options;
  const namespace = options.namespace ?? "default";
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4096) {
    throw new PantheonError("bad_request", `dimensions must be an integer from 1 to 4096, got ${dimensions}`);
  }
  if (typeof namespace !== "string" || namespace.length === 0) {
    throw new PantheonError("bad_request", "namespace must be a non-empty string");
  }
  const tuning: IvfTuning = { ...defaultIvfTuning, ...options.tuning };

  createTables(sql);
  const space = sql
    .exec<{ dimensions: number }>("SELECT dimensions FROM pantheon_vec_spaces WHERE namespace = ?", namespace)
    .toArray()[0];
  if (space && space.dimensions !== dimensions) {
    throw new PantheonError(
      "conflict",
      `vector namespace '${namespace}' holds ${space.dimensions}-dimension vectors, not ${dimensions}`,
    );
  }
  if (!space) sql.exec("INSERT INTO pantheon_vec_spaces (namespace, dimensions) VALUES (?, ?)", namespace, dimensions);

  let ivf: Ivf | undefined;

  function load(): Ivf {
    if (ivf) return ivf;
    const fresh = makeIvf(dimensions, tuning);
    for (const row of sql
      .exec<{ list: number; centroid: SqlValue }>(
        "SELECT list, centroid FROM pantheon_vec_lists WHERE namespace = ?",
        namespace,
      )
      .toArray()) {
      fresh.restoreList(row.list, floatsOf(row.centroid));
    }
    // Paged by rowid so waking up with 100k vectors never holds all rows at once.
    let after = -1;
    for (;;) {
      const rows = sql
        .exec<{ r: number; id: string; list: number; scale: number; code: SqlValue; metadata: string | null }>(
          "SELECT rowid AS r, id, list, scale, code, metadata FROM pantheon_vec_items WHERE namespace = ? AND rowid > ? ORDER BY rowid LIMIT ?",
          namespace,
          after,
          loadPage,
        )
        .toArray();
      for (const row of rows) {
        fresh.restore(row.id, int8sOf(row.code), row.scale, parseMetadata(row.metadata), row.list);
        after = row.r;
      }
      if (rows.length < loadPage) break;
    }
    ivf = fresh;
    return fresh;
  }

  /** A failed write may leave memory ahead of SQLite: forget memory, SQLite is the truth. */
  function guarded<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      ivf = undefined;
      throw error;
    }
  }

  function unit(values: number[], what: string): Float32Array {
    if (!Array.isArray(values) || values.length !== dimensions) {
      throw new PantheonError(
        "bad_request",
        `${what} has ${Array.isArray(values) ? values.length : 0} dimensions, the index expects ${dimensions}`,
      );
    }
    let norm = 0;
    for (const v of values) {
      if (typeof v !== "number" || !Number.isFinite(v))
        throw new PantheonError("bad_request", `${what} holds a value that is not a finite number`);
      norm += v * v;
    }
    if (norm === 0) throw new PantheonError("bad_request", `${what} is all zeros, which has no direction to compare`);
    const inv = 1 / Math.sqrt(norm);
    return Float32Array.from(values, (v) => v * inv);
  }

  function persistSplit(split: IvfSplit): void {
    putList(split.list, split.centroid);
    putList(split.newList, split.newCentroid);
    for (let i = 0; i < split.moved.length; i += maxBindings - 2) {
      const chunk = split.moved.slice(i, i + maxBindings - 2);
      sql.exec(
        `UPDATE pantheon_vec_items SET list = ? WHERE namespace = ? AND id IN (${chunk.map(() => "?").join(",")})`,
        split.newList,
        namespace,
        ...chunk,
      );
    }
  }

  function putList(list: number, centroid: Float32Array): void {
    sql.exec(
      "INSERT INTO pantheon_vec_lists (namespace, list, centroid) VALUES (?, ?, ?) ON CONFLICT (namespace, list) DO UPDATE SET centroid = excluded.centroid",
      namespace,
      list,
      toBlob(centroid),
    );
  }

  function deleteRows(ids: string[]): void {
    for (let i = 0; i < ids.length; i += maxBindings - 1) {
      const chunk = ids.slice(i, i + maxBindings - 1);
      sql.exec(
        `DELETE FROM pantheon_vec_items WHERE namespace = ? AND id IN (${chunk.map(() => "?").join(",")})`,
        namespace,
        ...chunk,
      );
    }
  }

  function exactScores(
    candidates: string[],
    values: Float32Array,
  ): { id: string; score: number; metadata: VectorMetadata | undefined }[] {
    const out: { id: string; score: number; metadata: VectorMetadata | undefined }[] = [];
    for (let i = 0; i < candidates.length; i += maxBindings - 1) {
      const chunk = candidates.slice(i, i + maxBindings - 1);
      const rows = sql
        .exec<{ id: string; vector: SqlValue; metadata: string | null }>(
          `SELECT id, vector, metadata FROM pantheon_vec_items WHERE namespace = ? AND id IN (${chunk.map(() => "?").join(",")})`,
          namespace,
          ...chunk,
        )
        .toArray();
      for (const row of rows) {
        const stored = floatsOf(row.vector);
        let score = 0;
        for (let j = 0; j < dimensions; j++) score += values[j]! * stored[j]!;
        out.push({ id: row.id, score, metadata: parseMetadata(row.metadata) });
      }
    }
    return out;
  }

  return {
    async upsert(records: VectorRecord[]): Promise<void> {
      const prepared = records.map((record) => {
        if (typeof record.id !== "string" || record.id.length === 0)
          throw new PantheonError("bad_request", "a vector needs a non-empty string id");
        const values = unit(record.values, `vector '${record.id}'`);
        checkMetadata(record.id, record.metadata);
        // Copied: the in-memory filter data must not change when the caller later mutates its object.
        return { id: record.id, values, metadata: record.metadata && { ...record.metadata }, ...quantise(values) };
      });
      guarded(() => {
        const index = load();
        for (const record of prepared) {
          index.remove(record.id);
          const { list, created } = index.assign(record.values);
          if (created) putList(list, created);
          sql.exec(
            `INSERT INTO pantheon_vec_items (namespace, id, list, scale, code, vector, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (namespace, id) DO UPDATE SET list = excluded.list, scale = excluded.scale, code = excluded.code,
               vector = excluded.vector, metadata = excluded.metadata`,
            namespace,
            record.id,
            list,
            record.scale,
            toBlob(record.code),
            toBlob(record.values),
            record.metadata === undefined ? null : JSON.stringify(record.metadata),
          );
          const split = index.insert(record.id, record.code, record.scale, record.metadata, list);
          if (split) persistSplit(split);
        }
      });
    },

    async query(values: number[], query: VectorQuery): Promise<VectorMatch[]> {
      const { topK, filter } = query;
      if (!Number.isInteger(topK) || topK < 1)
        throw new PantheonError("bad_request", `topK must be a positive integer, got ${topK}`);
      const q = unit(values, "the query vector");
      return guarded(() => {
        const index = load();
        if (index.size === 0) return [];
        const candidates = index.search(q, Math.min(index.size, Math.max(topK * rerankFactor, minRerank)), filter);
        return exactScores(
          candidates.map((c) => c.id),
          q,
        )
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
          .slice(0, topK)
          .map(({ id, score, metadata }) => (metadata === undefined ? { id, score } : { id, score, metadata }));
      });
    },

    async deleteByIds(ids: string[]): Promise<void> {
      guarded(() => {
        const index = load();
        deleteRows(ids);
        for (const id of ids) index.remove(id);
      });
    },
  };
}

function checkMetadata(id: string, metadata: unknown): void {
  if (metadata === undefined) return;
  const ok =
    typeof metadata === "object" &&
    metadata !== null &&
    !Array.isArray(metadata) &&
    Object.values(metadata).every(
      (v) => typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)),
    );
  if (!ok)
    throw new PantheonError(
      "bad_request",
      `metadata of vector '${id}' must be an object of strings, finite numbers and booleans`,
    );
}

function parseMetadata(text: string | null): VectorMetadata | undefined {
  return text === null ? undefined : (JSON.parse(text) as VectorMetadata);
}

import type { SqlLike, SqlValue } from "../../../core/ports";
import { entitiesOf, ftsQuery, memoryKinds, parseTriple, type MemoryItem, type MemoryKind, type ScoredId, type Triple } from "../../../core/context";
import type { Clock, EmbedPort, VectorPort } from "../../../core/ports";

/**
 * The embedder and where its vectors live. `vectors` is asked per embedding space so that vectors of
 * two embedders are never compared (locally: one SQLite namespace per model; Vectorize: one
 * namespace per agent, told apart by the model tag in each vector id).
 */
export interface MemoryPorts {
  embed: EmbedPort;
  vectors(model: string, dimensions: number): VectorPort;
  /** "vectorize" or "sqlite", for the status report. */
  readonly backend: string;
}

/** A memory row as the API and the engine see it. */
export interface MemoryRecord extends MemoryItem {
  provenance: string;
  title?: string;
  supersededBy?: string;
}

/** What a writer hands the store; it assigns id, times, entities and the triple when not given. */
export interface NewMemory {
  kind: MemoryKind;
  text: string;
  provenance: string;
  source?: string;
  title?: string;
  importance?: number;
  entities?: string[];
  triple?: Triple;
  id?: string;
  createdAt?: number;
  lastUsedAt?: number;
  supersededBy?: string;
}

export interface InsertResult {
  records: MemoryRecord[];
  /** Ids of older facts the new ones replaced (same subject and relation, another value). */
  superseded: string[];
  /** Problems that did not stop the write (the embedder was down: re-embed later). */
  warnings: string[];
}

type Row = Record<string, SqlValue>;

/** DO SQLite allows 100 bound parameters per statement; leave room for the fixed ones. */
const chunkSize = 90;
/** Rows one lexical term is ranked over (its newest). */
const termCap = 1000;
const memoryKindsBut = (kind: MemoryKind): MemoryKind[] => memoryKinds.filter((k) => k !== kind);
const columns = "id, kind, text, source, title, importance, entities, subject, relation, object, superseded_by, provenance, created_at, last_used_at";

export const ownSource = "memory";

export function newMemoryId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return "m" + Array.from(bytes, (b) => (b % 36).toString(36)).join("") + Date.now().toString(36).slice(-5);
}

/** A short, stable tag of an embedding space, part of every vector id. */
export function spaceTag(model: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < model.length; i++) h = Math.imul(h ^ model.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

export const vectorIdOf = (memoryId: string, model: string) => `${memoryId}.${spaceTag(model)}`;

function chunks<T>(values: T[], size = chunkSize): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

const marks = (n: number) => Array.from({ length: n }, () => "?").join(",");

function recordOf(row: Row): MemoryRecord {
  const subject = row.subject as string | null;
  const relation = row.relation as string | null;
  const object = row.object as string | null;
  return {
    id: row.id as string,
    kind: row.kind as MemoryKind,
    text: row.text as string,
    source: row.source as string,
    importance: row.importance as number,
    createdAt: row.created_at as number,
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at as number } : {}),
    entities: JSON.parse((row.entities as string) || "[]") as string[],
    ...(subject && relation && object ? { triple: { subject, relation, object } } : {}),
    provenance: row.provenance as string,
    ...(row.title ? { title: row.title as string } : {}),
    ...(row.superseded_by ? { supersededBy: row.superseded_by as string } : {}),
  };
}

const clamp01 = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0.5);

/**
 * The agent's memory rows over its SQLite (`ctx.storage.sql`, or node:sqlite in the bench): writes
 * keep the FTS5 index (by trigger), the graph edges and the vector index in step; deletes remove all
 * three, so no vector outlives its memory.
 *
 * @example
 * const store = makeMemoryStore({ sql: ctx.storage.sql, clock, ports });
 * const { records } = await store.insert([{ kind: "fact", text: "The user's dog is Rex", provenance: "api" }]);
 * const hits = await store.lexical("dog", { sources: ["memory"], limit: 10 });
 */
export function makeMemoryStore(deps: { sql: SqlLike; clock: Clock; ports: () => MemoryPorts }) {
  const { sql, clock } = deps;

  function rows(query: string, ...bindings: unknown[]): Row[] {
    return sql.exec<Row>(query, ...bindings).toArray();
  }

  function get(ids: string[], options: { includeSuperseded?: boolean } = {}): MemoryRecord[] {
    const out: MemoryRecord[] = [];
    for (const part of chunks([...new Set(ids)])) {
      const live = options.includeSuperseded ? "" : " AND superseded_by IS NULL";
      out.push(...rows(`SELECT ${columns} FROM memories WHERE id IN (${marks(part.length)})${live}`, ...part).map(recordOf));
    }
    return out;
  }

  function edgesFor(record: MemoryRecord): Array<[string, string, string]> {
    const norm = (s: string) => s.trim().toLowerCase();
    if (record.triple) return [[norm(record.triple.subject), norm(record.triple.relation), norm(record.triple.object)]];
    return (record.entities ?? []).map((entity) => [norm(entity), "is mentioned in", record.id] as [string, string, string]);
  }

  async function embedInto(records: MemoryRecord[], warnings: string[]): Promise<void> {
    const wanted = records.filter((r) => r.kind !== "summary" && !r.supersededBy);
    if (wanted.length === 0) return;
    const { embed } = deps.ports();
    try {
      const index = deps.ports().vectors(embed.model, embed.dimensions);
      for (let i = 0; i < wanted.length; i += 64) {
        const batch = wanted.slice(i, i + 64);
        const values = await embed.embed(batch.map((r) => r.text));
        await index.upsert(batch.map((r, j) => ({ id: vectorIdOf(r.id, embed.model), values: values[j]!, metadata: { source: r.source, kind: r.kind } })));
        const now = clock.now();
        for (const r of batch) {
          sql.exec(
            "INSERT INTO memory_vectors (memory_id, vector_id, model, dimensions, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (memory_id, model) DO NOTHING",
            r.id,
            vectorIdOf(r.id, embed.model),
            embed.model,
            embed.dimensions,
            now,
          );
        }
      }
    } catch (error) {
      warnings.push(`embedding failed (${error instanceof Error ? error.message : String(error)}): the memory is stored and found by words; POST .../memories/reembed adds its vector later`);
    }
  }

  /** Deletes the vectors of these memories in every space they have one, then the bookkeeping. */
  async function dropVectors(ids: string[]): Promise<void> {
    const ports = deps.ports();
    for (const part of chunks(ids)) {
      const held = rows(`SELECT memory_id, vector_id, model, dimensions FROM memory_vectors WHERE memory_id IN (${marks(part.length)})`, ...part);
      const bySpace = new Map<string, { model: string; dimensions: number; ids: string[] }>();
      for (const row of held) {
        const key = `${row.model}\u0000${row.dimensions}`;
        const space = bySpace.get(key) ?? { model: row.model as string, dimensions: row.dimensions as number, ids: [] };
        space.ids.push(row.vector_id as string);
        bySpace.set(key, space);
      }
      for (const space of bySpace.values()) await ports.vectors(space.model, space.dimensions).deleteByIds(space.ids);
      sql.exec(`DELETE FROM memory_vectors WHERE memory_id IN (${marks(part.length)})`, ...part);
    }
  }

  /** Marks older values of each new fact's slot as superseded; returns their ids. */
  function supersedeSlot(record: MemoryRecord): string[] {
    if (!record.triple || record.kind !== "fact" || record.supersededBy) return [];
    const old = rows(
      `SELECT id FROM memories WHERE subject = ? AND relation = ? AND lower(object) != ? AND id != ? AND superseded_by IS NULL AND source = ? AND created_at <= ?`,
      record.triple.subject.toLowerCase(),
      record.triple.relation.toLowerCase(),
      record.triple.object.toLowerCase(),
      record.id,
      record.source,
      record.createdAt,
    ).map((r) => r.id as string);
    for (const id of old) markSuperseded(id, record.id);
    return old;
  }

  /** The old row stays (history and provenance); it just stops being retrieved. */
  function markSuperseded(id: string, by: string): void {
    sql.exec("UPDATE memories SET superseded_by = ? WHERE id = ?", by, id);
    sql.exec("DELETE FROM memory_edges WHERE provenance = ?", id);
  }

  async function insert(items: NewMemory[]): Promise<InsertResult> {
    const records: MemoryRecord[] = [];
    const superseded: string[] = [];
    const warnings: string[] = [];
    for (const item of items) {
      const now = clock.now();
      const kind = item.kind;
      const text = item.text.trim();
      const parsed = item.triple ?? (kind === "fact" ? parseTriple(text) : undefined);
      // Subject and relation are stored lower-cased so a fact's slot is an index lookup.
      const triple = parsed && { subject: parsed.subject.trim().toLowerCase(), relation: parsed.relation.trim().toLowerCase(), object: parsed.object.trim() };
      const record: MemoryRecord = {
        id: item.id ?? newMemoryId(),
        kind,
        text,
        source: item.source ?? ownSource,
        importance: clamp01(item.importance ?? 0.5),
        createdAt: item.createdAt ?? now,
        ...(item.lastUsedAt !== undefined ? { lastUsedAt: item.lastUsedAt } : {}),
        entities: item.entities ?? entitiesOf(text, triple),
        ...(triple ? { triple } : {}),
        provenance: item.provenance,
        ...(item.title ? { title: item.title } : {}),
        ...(item.supersededBy ? { supersededBy: item.supersededBy } : {}),
      };
      sql.exec(
        `INSERT INTO memories (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        record.id,
        record.kind,
        record.text,
        record.source,
        record.title ?? null,
        record.importance,
        JSON.stringify(record.entities ?? []),
        triple?.subject ?? null,
        triple?.relation ?? null,
        triple?.object ?? null,
        record.supersededBy ?? null,
        record.provenance,
        record.createdAt,
        record.lastUsedAt ?? null,
      );
      if (!record.supersededBy && record.kind !== "summary") {
        for (const [s, r, o] of edgesFor(record)) {
          sql.exec("INSERT INTO memory_edges (subject, relation, object, provenance, created_at) VALUES (?, ?, ?, ?, ?)", s, r, o, record.id, now);
        }
      }
      superseded.push(...supersedeSlot(record));
      records.push(record);
    }
    await embedInto(records, warnings);
    if (superseded.length) await dropVectors(superseded).catch((e: unknown) => warnings.push(`vector cleanup failed: ${String(e)}`));
    return { records, superseded, warnings };
  }

  return {
    get,
    insert,

    /** The sources the agent holds memories in; one index seek per source, not a scan of every row. */
    sources(): string[] {
      const out: string[] = [];
      for (let last = ""; ; ) {
        const row = rows("SELECT source FROM memories WHERE source > ? ORDER BY source LIMIT 1", last)[0];
        if (!row) return out;
        out.push((last = row.source as string));
      }
    },

    exists(id: string): boolean {
      return rows("SELECT 1 AS x FROM memories WHERE id = ?", id).length > 0;
    },

    /** Newest first, optionally one kind / source; superseded facts only when asked. */
    list(options: { kind?: MemoryKind; source?: string; limit: number; includeSuperseded?: boolean }): MemoryRecord[] {
      const where: string[] = [];
      const args: unknown[] = [];
      if (options.kind) {
        where.push("kind = ?");
        args.push(options.kind);
      }
      if (options.source) {
        where.push("source = ?");
        args.push(options.source);
      }
      if (!options.includeSuperseded) where.push("superseded_by IS NULL");
      const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
      return rows(`SELECT ${columns} FROM memories ${clause} ORDER BY seq DESC LIMIT ?`, ...args, options.limit).map(recordOf);
    },

    /** Every row, oldest first, in pages (export, consolidation). */
    *each(options: { page?: number; includeSuperseded?: boolean } = {}): Generator<MemoryRecord> {
      let after = 0;
      const page = options.page ?? 500;
      const live = options.includeSuperseded === false ? " AND superseded_by IS NULL" : "";
      for (;;) {
        const batch = rows(`SELECT seq, ${columns} FROM memories WHERE seq > ?${live} ORDER BY seq LIMIT ?`, after, page);
        for (const row of batch) yield recordOf(row);
        if (batch.length < page) return;
        after = batch.at(-1)!.seq as number;
      }
    },

    /**
     * FTS5 hits, best first (bm25 negated: higher is better). Summaries are never retrieved.
     * Each term is ranked on its own over at most `termCap` of its newest rows, and a row's score is
     * the sum of its terms' bm25 parts (what one OR query would give). So a word found in every
     * memory ("user", "project") costs a bounded scan instead of scoring the whole table, and only
     * loses its tiny, low-IDF share on rows older than the cap.
     */
    lexical(query: string, options: { sources: string[]; limit: number; kinds?: MemoryKind[] }): ScoredId[] {
      const terms = ftsQuery(query).split(" OR ").filter(Boolean);
      if (terms.length === 0 || options.sources.length === 0) return [];
      const scores = new Map<number, number>();
      for (const term of terms) {
        const hits = rows("SELECT rowid AS r, bm25(memories_fts) AS b FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?", term, termCap);
        for (const hit of hits) scores.set(hit.r as number, (scores.get(hit.r as number) ?? 0) - (hit.b as number));
      }
      const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
      const kinds = new Set(options.kinds?.length ? options.kinds : memoryKindsBut("summary"));
      const sources = new Set(options.sources);
      const out: ScoredId[] = [];
      // Rows are filtered (source, kind, superseded) in pages of the ranking, best first.
      for (let i = 0; i < ranked.length && out.length < options.limit; i += chunkSize) {
        const page = ranked.slice(i, i + chunkSize);
        const found = new Map(
          rows(`SELECT seq, id, source, kind FROM memories WHERE seq IN (${marks(page.length)}) AND superseded_by IS NULL`, ...page.map(([r]) => r)).map((row) => [row.seq as number, row]),
        );
        for (const [r, score] of page) {
          const row = found.get(r);
          if (row && sources.has(row.source as string) && kinds.has(row.kind as MemoryKind)) out.push({ id: row.id as string, score });
          if (out.length >= options.limit) break;
        }
      }
      return out;
    },

    /** Vector hits of the current embedder, best first; one filtered query per source. */
    async semantic(query: string, options: { sources: string[]; limit: number }): Promise<ScoredId[]> {
      if (!query.trim() || options.sources.length === 0) return [];
      const { embed } = deps.ports();
      const index = deps.ports().vectors(embed.model, embed.dimensions);
      const [values] = await embed.embed([query]);
      const tag = `.${spaceTag(embed.model)}`;
      const lists = await Promise.all(
        options.sources.map((source) => index.query(values!, { topK: options.limit, filter: { source } })),
      );
      return lists
        .flat()
        .filter((m) => m.id.endsWith(tag))
        .map((m) => ({ id: m.id.slice(0, -tag.length), score: m.score }))
        .sort((a, b) => b.score - a.score)
        .slice(0, options.limit);
    },

    /** Edges touching these entities (lower-cased), newest first. */
    neighbours(entities: string[], limit: number) {
      const wanted = [...new Set(entities.map((e) => e.trim().toLowerCase()))].slice(0, 40);
      if (wanted.length === 0 || limit <= 0) return [];
      return rows(
        `SELECT subject, relation, object, provenance FROM memory_edges WHERE subject IN (${marks(wanted.length)}) OR object IN (${marks(wanted.length)}) ORDER BY id DESC LIMIT ?`,
        ...wanted,
        ...wanted,
        limit,
      ).map((r) => ({ subject: r.subject as string, relation: r.relation as string, object: r.object as string, provenance: r.provenance as string }));
    },

    touch(ids: string[], at: number): void {
      for (const part of chunks(ids)) sql.exec(`UPDATE memories SET last_used_at = ? WHERE id IN (${marks(part.length)})`, at, ...part);
    },

    setImportance(id: string, importance: number): void {
      sql.exec("UPDATE memories SET importance = ? WHERE id = ?", clamp01(importance), id);
    },

    async supersede(id: string, by: string): Promise<void> {
      markSuperseded(id, by);
      await dropVectors([id]);
    },

    updateText(id: string, text: string): void {
      sql.exec("UPDATE memories SET text = ? WHERE id = ?", text, id);
    },

    /** Deletes memories with their edges and vectors; returns how many rows went. */
    async remove(ids: string[]): Promise<number> {
      // Vectors first: if the index refuses, the memory stays, so neither side is left orphaned.
      await dropVectors(ids);
      let removed = 0;
      for (const part of chunks(ids)) {
        removed += rows(`SELECT COUNT(*) AS n FROM memories WHERE id IN (${marks(part.length)})`, ...part)[0]!.n as number;
        sql.exec(`DELETE FROM memory_edges WHERE provenance IN (${marks(part.length)})`, ...part);
        sql.exec(`DELETE FROM memories WHERE id IN (${marks(part.length)})`, ...part);
      }
      return removed;
    },

    /** Gives every live memory a vector of the current embedder and drops vectors of any other. */
    async reembed(): Promise<{ model: string; dimensions: number; embedded: number; dropped: number; warnings: string[] }> {
      const { embed } = deps.ports();
      const warnings: string[] = [];
      let embedded = 0;
      for (;;) {
        const batch = rows(
          `SELECT ${columns} FROM memories m WHERE superseded_by IS NULL AND kind != 'summary'
             AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = ?) LIMIT 256`,
          embed.model,
        ).map(recordOf);
        if (batch.length === 0) break;
        const before = warnings.length;
        await embedInto(batch, warnings);
        if (warnings.length > before) break;
        embedded += batch.length;
      }
      const stale = rows("SELECT DISTINCT memory_id FROM memory_vectors WHERE model != ?", embed.model).map((r) => r.memory_id as string);
      let dropped = 0;
      const ports = deps.ports();
      for (const part of chunks(stale)) {
        const held = rows(`SELECT vector_id, model, dimensions FROM memory_vectors WHERE model != ? AND memory_id IN (${marks(part.length)})`, embed.model, ...part);
        for (const row of held) await ports.vectors(row.model as string, row.dimensions as number).deleteByIds([row.vector_id as string]);
        sql.exec(`DELETE FROM memory_vectors WHERE model != ? AND memory_id IN (${marks(part.length)})`, embed.model, ...part);
        dropped += held.length;
      }
      return { model: embed.model, dimensions: embed.dimensions, embedded, dropped, warnings };
    },

    status() {
      const { embed } = deps.ports();
      const byKind: Record<string, number> = {};
      for (const row of rows("SELECT kind, COUNT(*) AS n FROM memories WHERE superseded_by IS NULL GROUP BY kind")) byKind[row.kind as string] = row.n as number;
      const totals = rows("SELECT COUNT(*) AS n, COALESCE(SUM(length(CAST(text AS BLOB))), 0) AS bytes FROM memories")[0]!;
      const superseded = rows("SELECT COUNT(*) AS n FROM memories WHERE superseded_by IS NOT NULL")[0]!.n as number;
      const spaces = rows("SELECT model, dimensions, COUNT(*) AS n FROM memory_vectors GROUP BY model, dimensions").map((r) => ({
        model: r.model as string,
        dimensions: r.dimensions as number,
        vectors: r.n as number,
      }));
      const current = spaces.find((s) => s.model === embed.model)?.vectors ?? 0;
      const embeddable = rows("SELECT COUNT(*) AS n FROM memories WHERE superseded_by IS NULL AND kind != 'summary'")[0]!.n as number;
      const vectorBytes = spaces.reduce((sum, s) => sum + s.vectors * s.dimensions * 4, 0);
      return {
        total: totals.n as number,
        byKind,
        superseded,
        bytes: { text: totals.bytes as number, vectors: vectorBytes, total: (totals.bytes as number) + vectorBytes },
        embedder: { model: embed.model, dimensions: embed.dimensions, backend: deps.ports().backend },
        vectors: spaces,
        missingVectors: Math.max(0, embeddable - current),
      };
    },

    /** Forgets everything (the agent was deleted). */
    async wipe(): Promise<void> {
      const ids = rows("SELECT memory_id FROM memory_vectors").map((r) => r.memory_id as string);
      await dropVectors([...new Set(ids)]).catch(() => {});
      sql.exec("DELETE FROM memory_edges");
      sql.exec("DELETE FROM memory_vectors");
      sql.exec("DELETE FROM memories");
    },
  };
}

export type MemoryStore = ReturnType<typeof makeMemoryStore>;

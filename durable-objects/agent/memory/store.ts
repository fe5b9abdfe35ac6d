import {
  and,
  desc,
  eq,
  getTableColumns,
  gt,
  inArray,
  isNull,
  lte,
  ne,
  or,
  sql as sqlExpr,
  type AnyColumn,
  type SQL,
} from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { entitiesOf, happenedAt, parseTriple, type MemoryKind } from "../../../core/context";
import type { Clock, SqlLike } from "../../../core/ports";
import * as schema from "../schema";
import {
  chunks,
  clamp01,
  rowBatches,
  newMemoryId,
  ownSource,
  recordOf,
  type InsertResult,
  type MemoryRecord,
  type NewMemory,
} from "./records";
import { makeLexicalSearch } from "./lexical";
import { memoryStatus } from "./status";
import { makeMemoryVectors, type MemoryPorts } from "./vectors";

type Db = DrizzleSqliteDODatabase<typeof schema>;
const { memories, memoryEdges, memoryVectors } = schema;

/**
 * The agent's memory rows (`memories`, `memory_edges`, `memory_vectors`) over its SQLite, through
 * drizzle; raw SQL only for the FTS5 search (`sql`). Writes keep the FTS5 index (by trigger), the
 * graph edges and the vector index in step; deletes remove all three, so no vector outlives its
 * memory. Runs in the Durable Object and, for the retrieval eval and benchmarks, in plain Node over
 * node:sqlite (test/node/memory-harness.mjs).
 *
 * @example
 * const store = makeMemoryStore({ db, sql: ctx.storage.sql, clock, ports });
 * const { records } = await store.insert([{ kind: "fact", text: "The user's dog is Rex", provenance: "api" }]);
 * const hits = await store.lexical("dog", { sources: ["memory"], limit: 10 });
 */
export function makeMemoryStore(deps: { db: Db; sql: SqlLike; clock: Clock; ports: () => MemoryPorts }) {
  const { db, sql, clock } = deps;
  const live = isNull(memories.supersededBy);
  /** `column IN` a JSON list bound as one parameter: one prepared statement for any number of ids. */
  const inList = (column: AnyColumn, name: string) =>
    sqlExpr`${column} IN (SELECT value FROM json_each(${sqlExpr.placeholder(name)}))`;
  // The queries every context compile makes, built once (drizzle then only binds and maps rows).
  const byIds = db
    .select()
    .from(memories)
    .where(and(inList(memories.id, "ids"), live))
    .prepare();
  const byIdsWithSuperseded = db.select().from(memories).where(inList(memories.id, "ids")).prepare();
  const happened = sqlExpr<number>`coalesce(${memories.occurredAt}, ${memories.createdAt})`;
  const liveBySeq = db
    .select({ seq: memories.seq, id: memories.id, source: memories.source, kind: memories.kind, at: happened })
    .from(memories)
    .where(and(inList(memories.seq, "seqs"), live))
    .prepare();
  // The memories just before and after (by seq) those named, from the same provenance and source.
  const center = alias(memories, "center");
  const adjacentTo = db
    .select({ ...getTableColumns(memories), of: center.id })
    .from(center)
    .innerJoin(
      memories,
      and(
        or(eq(memories.seq, sqlExpr`${center.seq} - 1`), eq(memories.seq, sqlExpr`${center.seq} + 1`)),
        eq(memories.provenance, center.provenance),
        eq(memories.source, center.source),
      ),
    )
    .where(and(inList(center.id, "ids"), live, ne(memories.kind, "summary")))
    .prepare();
  // The episode stored just before each named episode (by seq), from the same provenance and source:
  // the turn a conversation's turn answers, embedded with it (see `makeMemoryVectors`).
  const before = alias(memories, "before");
  const episodeBefore = db
    .select({ of: center.id, text: before.text })
    .from(center)
    .innerJoin(
      before,
      and(
        eq(before.seq, sqlExpr`${center.seq} - 1`),
        eq(before.provenance, center.provenance),
        eq(before.source, center.source),
        eq(before.kind, "episode"),
      ),
    )
    .where(and(inList(center.id, "ids"), eq(center.kind, "episode")))
    .prepare();
  const edgesOf = db
    .select({
      subject: memoryEdges.subject,
      relation: memoryEdges.relation,
      object: memoryEdges.object,
      provenance: memoryEdges.provenance,
    })
    .from(memoryEdges)
    .where(or(inList(memoryEdges.subject, "entities"), inList(memoryEdges.object, "entities")))
    .orderBy(desc(memoryEdges.id))
    .limit(sqlExpr.placeholder("limit"))
    .prepare();

  function get(ids: string[], options: { includeSuperseded?: boolean } = {}): MemoryRecord[] {
    if (ids.length === 0) return [];
    return (options.includeSuperseded ? byIdsWithSuperseded : byIds)
      .all({ ids: JSON.stringify([...new Set(ids)]) })
      .map(recordOf);
  }

  const vectors = makeMemoryVectors({
    db,
    clock,
    ports: deps.ports,
    get,
    episodeBefore: (ids) =>
      new Map(ids.length ? episodeBefore.all({ ids: JSON.stringify(ids) }).map((row) => [row.of, row.text]) : []),
  });
  const { embedInto, dropVectors } = vectors;
  const lexical = makeLexicalSearch({ sql, liveBySeq: (seqs) => liveBySeq.all({ seqs: JSON.stringify(seqs) }) });

  function edgesFor(record: MemoryRecord): Array<[string, string, string]> {
    const norm = (s: string) => s.trim().toLowerCase();
    if (record.triple) return [[norm(record.triple.subject), norm(record.triple.relation), norm(record.triple.object)]];
    return (record.entities ?? []).map(
      (entity) => [norm(entity), "is mentioned in", record.id] as [string, string, string],
    );
  }

  /** Marks older values of each new fact's slot as superseded; returns their ids. */
  function supersedeSlot(record: MemoryRecord): string[] {
    if (!record.triple || record.kind !== "fact" || record.supersededBy) return [];
    const old = db
      .select({ id: memories.id })
      .from(memories)
      .where(
        and(
          eq(memories.subject, record.triple.subject.toLowerCase()),
          eq(memories.relation, record.triple.relation.toLowerCase()),
          ne(sqlExpr`lower(${memories.object})`, record.triple.object.toLowerCase()),
          ne(memories.id, record.id),
          live,
          eq(memories.source, record.source),
          // Only values that happened before this one are replaced: an imported old fact does not supersede a newer one.
          lte(sqlExpr`coalesce(${memories.occurredAt}, ${memories.createdAt})`, happenedAt(record)),
        ),
      )
      .all()
      .map((r) => r.id);
    for (const id of old) markSuperseded(id, record.id);
    return old;
  }

  /** The old row stays (history and provenance); it just stops being retrieved. */
  function markSuperseded(id: string, by: string): void {
    db.update(memories).set({ supersededBy: by }).where(eq(memories.id, id)).run();
    db.delete(memoryEdges).where(eq(memoryEdges.provenance, id)).run();
  }

  /** The sources memories are in, once read (`sources`). */
  let sourceList: string[] | null = null;

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
      const triple = parsed && {
        subject: parsed.subject.trim().toLowerCase(),
        relation: parsed.relation.trim().toLowerCase(),
        object: parsed.object.trim(),
      };
      const record: MemoryRecord = {
        id: item.id ?? newMemoryId(),
        kind,
        text,
        source: item.source ?? ownSource,
        importance: clamp01(item.importance ?? 0.5),
        createdAt: item.createdAt ?? now,
        ...(item.occurredAt !== undefined ? { occurredAt: item.occurredAt } : {}),
        ...(item.lastUsedAt !== undefined ? { lastUsedAt: item.lastUsedAt } : {}),
        entities: item.entities ?? entitiesOf(text, triple),
        ...(triple ? { triple } : {}),
        provenance: item.provenance,
        ...(item.title ? { title: item.title } : {}),
        ...(item.supersededBy ? { supersededBy: item.supersededBy } : {}),
      };
      if (sourceList && !sourceList.includes(record.source)) sourceList.push(record.source);
      db.insert(memories)
        .values({
          id: record.id,
          kind: record.kind,
          text: record.text,
          source: record.source,
          title: record.title ?? null,
          importance: record.importance,
          entities: record.entities ?? [],
          subject: triple?.subject ?? null,
          relation: triple?.relation ?? null,
          object: triple?.object ?? null,
          supersededBy: record.supersededBy ?? null,
          provenance: record.provenance,
          createdAt: record.createdAt,
          occurredAt: record.occurredAt ?? null,
          lastUsedAt: record.lastUsedAt ?? null,
        })
        .run();
      if (!record.supersededBy && record.kind !== "summary") {
        const edges = edgesFor(record);
        // Up to 50 entities, one edge each: six columns a row, so in statements of at most 16 rows.
        for (const part of rowBatches(edges, 6))
          db.insert(memoryEdges)
            .values(
              part.map(([subject, relation, object]) => ({
                subject,
                relation,
                object,
                provenance: record.id,
                createdAt: now,
              })),
            )
            .run();
      }
      superseded.push(...supersedeSlot(record));
      records.push(record);
    }
    await embedInto(records, warnings);
    if (superseded.length)
      await dropVectors(superseded).catch((e: unknown) => warnings.push(`vector cleanup failed: ${String(e)}`));
    return { records, superseded, warnings };
  }

  return {
    get,
    insert,

    /**
     * The sources the agent holds memories in; one index seek per source, not a scan of every row,
     * and once per instance: kept as memories are added (a rolled-back add or a removal can only
     * leave a source with nothing in it, which a search finds nothing in).
     */
    sources(): string[] {
      if (sourceList) return [...sourceList];
      const out: string[] = [];
      for (let last = ""; ; ) {
        const row = db
          .select({ source: memories.source })
          .from(memories)
          .where(gt(memories.source, last))
          .orderBy(memories.source)
          .limit(1)
          .get();
        if (!row) {
          sourceList = out;
          return [...out];
        }
        out.push((last = row.source));
      }
    },

    exists(id: string): boolean {
      return db.select({ id: memories.id }).from(memories).where(eq(memories.id, id)).get() !== undefined;
    },

    /** A live memory with the same text (case aside), for extraction not to store it twice. */
    hasText(text: string): boolean {
      return (
        db
          .select({ id: memories.id })
          .from(memories)
          .where(and(eq(sqlExpr`lower(${memories.text})`, text.trim().toLowerCase()), live))
          .limit(1)
          .get() !== undefined
      );
    },

    /** Newest first, optionally one kind / source; superseded facts only when asked. */
    list(options: { kind?: MemoryKind; source?: string; limit: number; includeSuperseded?: boolean }): MemoryRecord[] {
      const where: SQL[] = [];
      if (options.kind) where.push(eq(memories.kind, options.kind));
      if (options.source) where.push(eq(memories.source, options.source));
      if (!options.includeSuperseded) where.push(live);
      return db
        .select()
        .from(memories)
        .where(and(...where))
        .orderBy(desc(memories.seq))
        .limit(options.limit)
        .all()
        .map(recordOf);
    },

    /** Every row, oldest first, in pages (export, consolidation). */
    *each(options: { page?: number; includeSuperseded?: boolean } = {}): Generator<MemoryRecord> {
      let after = 0;
      const page = options.page ?? 500;
      for (;;) {
        const batch = db
          .select()
          .from(memories)
          .where(and(gt(memories.seq, after), options.includeSuperseded === false ? live : undefined))
          .orderBy(memories.seq)
          .limit(page)
          .all();
        for (const row of batch) yield recordOf(row);
        if (batch.length < page) return;
        after = batch.at(-1)!.seq;
      }
    },

    lexical,

    semantic: vectors.semantic,

    /**
     * The live memories stored just before and after each of `ids` (by `seq`) with the same
     * provenance and source: the turns around a turn of one imported or told conversation. One
     * query over the primary key, so it costs the compile a few rows.
     */
    adjacent(ids: string[]): Array<{ item: MemoryRecord; of: string }> {
      if (ids.length === 0) return [];
      return adjacentTo
        .all({ ids: JSON.stringify([...new Set(ids)]) })
        .map(({ of, ...row }) => ({ item: recordOf(row), of }));
    },

    /** Edges touching these entities (lower-cased), newest first. */
    neighbours(entities: string[], limit: number) {
      const wanted = [...new Set(entities.map((e) => e.trim().toLowerCase()))].slice(0, 40);
      if (wanted.length === 0 || limit <= 0) return [];
      return edgesOf.all({ entities: JSON.stringify(wanted), limit });
    },

    touch(ids: string[], at: number): void {
      for (const part of chunks(ids))
        db.update(memories).set({ lastUsedAt: at }).where(inArray(memories.id, part)).run();
    },

    setImportance(id: string, importance: number): void {
      db.update(memories)
        .set({ importance: clamp01(importance) })
        .where(eq(memories.id, id))
        .run();
    },

    async supersede(id: string, by: string): Promise<void> {
      markSuperseded(id, by);
      await dropVectors([id]);
    },

    updateText(id: string, text: string): void {
      db.update(memories).set({ text }).where(eq(memories.id, id)).run();
    },

    /** Deletes memories with their edges and vectors; returns how many rows went. */
    async remove(ids: string[]): Promise<number> {
      // Vectors first: if the index refuses, the memory stays, so neither side is left orphaned.
      await dropVectors(ids);
      let removed = 0;
      for (const part of chunks(ids)) {
        db.delete(memoryEdges).where(inArray(memoryEdges.provenance, part)).run();
        removed += db.delete(memories).where(inArray(memories.id, part)).returning({ id: memories.id }).all().length;
      }
      return removed;
    },

    reembed: vectors.reembed,
    embedder: vectors.embedder,
    /** The reranker the ports configure (Workers AI's when bound), or none. */
    reranker: () => deps.ports().rerank,

    status: () => memoryStatus(deps),

    /** Forgets everything (the agent was deleted). */
    async wipe(): Promise<void> {
      const ids = db
        .select({ id: memoryVectors.memoryId })
        .from(memoryVectors)
        .all()
        .map((r) => r.id);
      await dropVectors([...new Set(ids)]).catch(() => {});
      db.delete(memoryEdges).run();
      db.delete(memoryVectors).run();
      db.delete(memories).run();
      sourceList = null;
    },
  };
}

export type MemoryStore = ReturnType<typeof makeMemoryStore>;

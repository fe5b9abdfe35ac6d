import { and, eq, inArray, isNull, ne, notExists } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { happenedAt, type RerankPort, type ScoredId } from "../../../core/context";
import type { Clock, EmbedPort, VectorPort } from "../../../core/ports";
import * as schema from "../schema";
import { chunks, recordOf, rowBatches, within, type MemoryRecord, type Period } from "./records";

/**
 * The embedder and where its vectors live. `vectors` is asked per embedding space so that vectors of
 * two embedders are never compared (locally: one SQLite namespace per model; Vectorize: one
 * namespace per agent, told apart by the model tag in each vector id).
 */
export interface MemoryPorts {
  embed: EmbedPort;
  vectors(model: string, dimensions: number): VectorPort;
  /** Re-orders the best fused memories of a compile (Workers AI's reranker when bound); absent: none. */
  readonly rerank?: RerankPort;
  /** "vectorize" or "sqlite", for the status report. */
  readonly backend: string;
}

/** Characters of the turn before that a conversation's turn is embedded with (see `embeddedTexts`). */
const previousChars = 1000;

/** Vector hits asked for when a search is limited to a period (Vectorize answers at most 100). */
const periodTopK = 100;

/** A short, stable tag of an embedding space, part of every vector id. */
export function spaceTag(model: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < model.length; i++) h = Math.imul(h ^ model.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

export const vectorIdOf = (memoryId: string, model: string) => `${memoryId}.${spaceTag(model)}`;

type Db = DrizzleSqliteDODatabase<typeof schema>;
const { memories, memoryVectors } = schema;

/**
 * The vector side of the memory store: each memory's vector in the current embedder's space, kept
 * in step with its row (`memory_vectors` records which space holds one), and the semantic search.
 * `get` reads live memories by id (the store's prepared query).
 */
export function makeMemoryVectors(deps: {
  db: Db;
  clock: Clock;
  ports: () => MemoryPorts;
  get: (ids: string[]) => MemoryRecord[];
  /** The text of the episode stored just before each of these episodes (same provenance and source), by id. */
  episodeBefore?: (ids: string[]) => Map<string, string>;
}) {
  const { db, clock } = deps;
  const live = isNull(memories.supersededBy);

  async function embedInto(records: MemoryRecord[], warnings: string[]): Promise<void> {
    const wanted = records.filter((r) => r.kind !== "summary" && !r.supersededBy);
    if (wanted.length === 0) return;
    const { embed } = deps.ports();
    try {
      const index = deps.ports().vectors(embed.model, embed.dimensions);
      for (let i = 0; i < wanted.length; i += 64) {
        const batch = wanted.slice(i, i + 64);
        const values = await embed.embed(embeddedTexts(batch));
        await index.upsert(
          batch.map((r, j) => ({
            id: vectorIdOf(r.id, embed.model),
            values: values[j]!,
            metadata: { source: r.source, kind: r.kind },
          })),
        );
        const now = clock.now();
        // Five bound values a row: an INSERT of all 64 would pass SQLite's 100 variables (it did from 21 memories on).
        const rows = batch.map((r) => ({
          memoryId: r.id,
          vectorId: vectorIdOf(r.id, embed.model),
          model: embed.model,
          dimensions: embed.dimensions,
          createdAt: now,
        }));
        for (const part of rowBatches(rows, 5)) db.insert(memoryVectors).values(part).onConflictDoNothing().run();
      }
    } catch (error) {
      warnings.push(
        `embedding failed (${error instanceof Error ? error.message : String(error)}): the memory is stored and found by words; POST .../memories/reembed adds its vector later`,
      );
    }
  }

  /**
   * What is embedded of each memory: its text, and for a turn of a conversation (an episode) the turn
   * before it too. A turn alone is often "Yes, last Tuesday!" or "It's from my grandma": the words
   * that say what it is about are in the turn it answers. Measured on LoCoMo (bench/memory-eval).
   * Only the vector holds the pair; the text, the full-text index and what the model reads do not.
   */
  function embeddedTexts(batch: MemoryRecord[]): string[] {
    const episodes = batch.filter((r) => r.kind === "episode" && r.provenance).map((r) => r.id);
    const before = deps.episodeBefore && episodes.length ? deps.episodeBefore(episodes) : new Map<string, string>();
    return batch.map((r) => {
      // The end of a long turn before is what the reply answers; the cap keeps the pair within an embedder's input.
      const previous = before.get(r.id)?.slice(-previousChars);
      return previous ? `${previous}\n${r.text}` : r.text;
    });
  }

  /** Deletes the vectors of these memories in every space they have one, then the bookkeeping. */
  async function dropVectors(ids: string[]): Promise<void> {
    const ports = deps.ports();
    for (const part of chunks(ids)) {
      const held = db.select().from(memoryVectors).where(inArray(memoryVectors.memoryId, part)).all();
      const bySpace = new Map<string, { model: string; dimensions: number; ids: string[] }>();
      for (const row of held) {
        const key = `${row.model}\u0000${row.dimensions}`;
        const space = bySpace.get(key) ?? { model: row.model, dimensions: row.dimensions, ids: [] };
        space.ids.push(row.vectorId);
        bySpace.set(key, space);
      }
      for (const space of bySpace.values()) await ports.vectors(space.model, space.dimensions).deleteByIds(space.ids);
      db.delete(memoryVectors).where(inArray(memoryVectors.memoryId, part)).run();
    }
  }

  return {
    embedInto,
    dropVectors,

    /** Vector hits of the current embedder, best first; one filtered query per source. */
    async semantic(
      query: string,
      options: { sources: string[]; limit: number; between?: Period },
    ): Promise<ScoredId[]> {
      if (!query.trim() || options.sources.length === 0) return [];
      const { embed } = deps.ports();
      const index = deps.ports().vectors(embed.model, embed.dimensions);
      const [values] = await embed.embed([query]);
      const tag = `.${spaceTag(embed.model)}`;
      // The index knows no dates: for a period, ask for more and keep those that happened in it.
      const topK = options.between ? Math.min(periodTopK, options.limit * 5) : options.limit;
      const lists = await Promise.all(
        options.sources.map((source) => index.query(values!, { topK, filter: { source } })),
      );
      const hits = lists
        .flat()
        .filter((m) => m.id.endsWith(tag))
        .map((m) => ({ id: m.id.slice(0, -tag.length), score: m.score }))
        .sort((a, b) => b.score - a.score);
      if (!options.between) return hits.slice(0, options.limit);
      const inPeriod = new Set(
        deps
          .get(hits.map((h) => h.id))
          .filter((r) => within(happenedAt(r), options.between))
          .map((r) => r.id),
      );
      return hits.filter((h) => inPeriod.has(h.id)).slice(0, options.limit);
    },

    /** Gives every live memory a vector of the current embedder and drops vectors of any other. */
    async reembed(): Promise<{
      model: string;
      dimensions: number;
      embedded: number;
      dropped: number;
      warnings: string[];
    }> {
      const { embed } = deps.ports();
      const warnings: string[] = [];
      let embedded = 0;
      for (;;) {
        const batch = db
          .select()
          .from(memories)
          .where(
            and(
              live,
              ne(memories.kind, "summary"),
              notExists(
                db
                  .select({ x: memoryVectors.memoryId })
                  .from(memoryVectors)
                  .where(and(eq(memoryVectors.memoryId, memories.id), eq(memoryVectors.model, embed.model))),
              ),
            ),
          )
          .limit(256)
          .all()
          .map(recordOf);
        if (batch.length === 0) break;
        const before = warnings.length;
        await embedInto(batch, warnings);
        if (warnings.length > before) break;
        embedded += batch.length;
      }
      const stale = [
        ...new Set(
          db
            .select({ id: memoryVectors.memoryId })
            .from(memoryVectors)
            .where(ne(memoryVectors.model, embed.model))
            .all()
            .map((r) => r.id),
        ),
      ];
      let dropped = 0;
      const ports = deps.ports();
      for (const part of chunks(stale)) {
        const stalePart = and(ne(memoryVectors.model, embed.model), inArray(memoryVectors.memoryId, part));
        const held = db.select().from(memoryVectors).where(stalePart).all();
        for (const row of held) await ports.vectors(row.model, row.dimensions).deleteByIds([row.vectorId]);
        db.delete(memoryVectors).where(stalePart).run();
        dropped += held.length;
      }
      return { model: embed.model, dimensions: embed.dimensions, embedded, dropped, warnings };
    },

    /** The current embedder: its space and what its vectors hold (the context engine's fusion depends on it). */
    embedder(): { model: string; dimensions: number; captures: "words" | "meaning" } {
      const { embed } = deps.ports();
      return { model: embed.model, dimensions: embed.dimensions, captures: embed.captures ?? "meaning" };
    },
  };
}

export type MemoryVectors = ReturnType<typeof makeMemoryVectors>;

import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * An agent's memory: one row per fact, entity card, instruction, episode, rolling summary or
 * document chunk. `seq` is the rowid the FTS5 index (`memories_fts`, a custom migration with
 * triggers) points at; `id` is the public identifier. A superseded fact stays as history with
 * `superseded_by` set and is no longer retrieved.
 */
export const memories = sqliteTable(
  "memories",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    kind: text("kind", { enum: ["fact", "entity", "instruction", "episode", "summary", "chunk"] }).notNull(),
    text: text("text").notNull(),
    /** "memory" for the agent's own memories, a context source name ("docs", ...) for document chunks. */
    source: text("source").notNull().default("memory"),
    /** The document a chunk belongs to. */
    title: text("title"),
    importance: real("importance").notNull().default(0.5),
    entities: text("entities", { mode: "json" }).$type<string[]>().notNull(),
    subject: text("subject"),
    relation: text("relation"),
    object: text("object"),
    supersededBy: text("superseded_by"),
    /** Where it came from: "turn:<runId>", "tool:memory.store", "api", "import", "document:<id>", "session:<id>". */
    provenance: text("provenance").notNull(),
    /** When it was stored (epoch ms). */
    createdAt: integer("created_at").notNull(),
    /**
     * When the thing it tells happened (epoch ms): a message's time, a session's date, what the API
     * or an import said. Null for timeless memories (documents, instructions without a date): their
     * time is `createdAt`. Recency and dated questions read this, not when it was stored.
     */
    occurredAt: integer("occurred_at"),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [
    uniqueIndex("memories_id").on(t.id),
    index("memories_occurred_at").on(t.occurredAt),
    index("memories_source_kind").on(t.source, t.kind),
    index("memories_slot").on(t.subject, t.relation),
    index("memories_provenance").on(t.provenance),
  ],
);

/** Knowledge-graph edges; `provenance` is the id of the memory that asserted the edge. */
export const memoryEdges = sqliteTable(
  "memory_edges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    subject: text("subject").notNull(),
    relation: text("relation").notNull(),
    object: text("object").notNull(),
    provenance: text("provenance").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("memory_edges_subject").on(t.subject),
    index("memory_edges_object").on(t.object),
    index("memory_edges_provenance").on(t.provenance),
  ],
);

/**
 * Which memory has a vector in which embedding space. Vectors of different embedders are never
 * mixed: a memory without a row for the current embedder is found only lexically until re-embedded.
 */
export const memoryVectors = sqliteTable(
  "memory_vectors",
  {
    memoryId: text("memory_id").notNull(),
    vectorId: text("vector_id").notNull(),
    model: text("model").notNull(),
    dimensions: integer("dimensions").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.memoryId, t.model] }), index("memory_vectors_model").on(t.model)],
);

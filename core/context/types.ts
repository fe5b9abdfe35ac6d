import type { Message } from "../ports";

/** What a memory is: a stated fact, an entity card, a standing instruction, an episode, a summary or a document chunk. */
export type MemoryKind = "fact" | "entity" | "instruction" | "episode" | "summary" | "chunk";

export const memoryKinds: readonly MemoryKind[] = ["fact", "entity", "instruction", "episode", "summary", "chunk"];

/** A subject–relation–object reading of a fact, used to spot a fact that changed (see `planConsolidation`). */
export interface Triple {
  subject: string;
  relation: string;
  object: string;
}

/** One row of an agent's memory. Times are epoch milliseconds. */
export interface MemoryItem {
  id: string;
  kind: MemoryKind;
  text: string;
  /** Where it came from: "memory", "docs", "sessions", ... (an agent's `contextSources`). */
  source: string;
  /** 0..1; raised by extraction and use, lowered by consolidation's decay. */
  importance: number;
  /** When it was stored. */
  createdAt: number;
  /** When the thing it tells happened (a message's time, a session's date); absent: timeless, `createdAt` stands in. */
  occurredAt?: number;
  lastUsedAt?: number;
  entities?: string[];
  triple?: Triple;
}

/** One edge of the agent's knowledge graph. `provenance` is the id of the memory item that asserted it. */
export interface GraphEdge {
  subject: string;
  relation: string;
  object: string;
  provenance: string;
}

/** A ranked hit from one retriever: best first. Scores are the retriever's own scale (only ranks are fused). */
export interface ScoredId {
  id: string;
  score: number;
}

export interface RetrieveOptions {
  /** Only items whose `source` is one of these. */
  sources: string[];
  limit: number;
  /** Only items that happened in this period (`occurredAt ?? createdAt`, epoch ms, `to` exclusive). */
  between?: { from: number; to: number };
  /** Lexical: the weight of common words ("where", "in") against content words (1); see `ftsTerms`. */
  functionWeight?: number;
}

/**
 * Everything the engine reads, kept small so SQLite can back each call with one query.
 * The Durable Object implements it; tests use an in-memory double.
 *
 * @example
 * // Durable Object sketch (FTS5 ranks with bm25(), lower is better, so negate it):
 * const store: ContextStore = {
 *   recent: async (sessionId, limit) => rowsToMessages(sql`SELECT ... FROM messages WHERE session_id = ${sessionId} ORDER BY seq DESC LIMIT ${limit}`.reverse()),
 *   lexical: async (q, { sources, limit }) => sql`SELECT m.id, -bm25(memories_fts) AS score FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid
 *      WHERE memories_fts MATCH ${ftsQuery(q)} AND m.source IN (...) ORDER BY bm25(memories_fts) LIMIT ${limit}`,
 *   semantic: async (q, { sources, limit }) => (await vectors.query((await embed.embed([q]))[0]!, { topK: limit })).filter(...),
 *   get: async (ids) => sql`SELECT * FROM memories WHERE id IN (...)`,
 *   neighbours: async (entities, limit) => sql`SELECT * FROM graph WHERE subject IN (...) OR object IN (...) LIMIT ${limit}`,
 * };
 */
export interface ContextStore {
  /** The last `limit` messages of the session, oldest first. */
  recent(sessionId: string, limit: number): Promise<Message[]>;
  /** Full-text hits, best first (FTS5 bm25 in the Durable Object). */
  lexical(query: string, options: RetrieveOptions): Promise<ScoredId[]>;
  /** Vector hits, best first (EmbedPort + VectorPort). */
  semantic(query: string, options: RetrieveOptions): Promise<ScoredId[]>;
  /** The items for these ids; unknown ids are simply absent. */
  get(ids: string[]): Promise<MemoryItem[]>;
  /** Edges whose subject or object is one of `entities`. */
  neighbours(entities: string[], limit: number): Promise<GraphEdge[]>;
  /**
   * The memories stored just before and after each of `ids` from the same provenance and source
   * (the turns around a turn of one conversation), each with the id it sits next to. Optional: a
   * store without it gets no adjacency stage.
   */
  adjacent?(ids: string[]): Promise<Array<{ item: MemoryItem; of: string }>>;
}

/** Counts tokens. Budget checks and the reported `tokens.used` use the same tokenizer. */
export interface Tokenizer {
  count(text: string): number;
  /** Fixed cost of one message (role, separators), as chat APIs bill it. */
  readonly messageOverhead: number;
}

/**
 * A reranker (a cross-encoder such as Workers AI's `@cf/baai/bge-reranker-base`): how well each text
 * answers the query, read together. Higher is better, on the model's own scale; one score per text, in order.
 */
export interface RerankPort {
  readonly model: string;
  rerank(query: string, texts: string[]): Promise<number[]>;
}

/** Every score the engine computed for an item. Missing ranks score 0. */
export interface ContextScores {
  /** The lexical retriever's own score (0 when it did not return the item). */
  lexical: number;
  /** The semantic retriever's own score (0 when it did not return the item). */
  semantic: number;
  /** Reciprocal rank fusion, normalised so the best candidate is 1 (with a reranker: of the fusion's and its order). */
  fused: number;
  /** The reranker's score, when one is configured and the item was among those it read. */
  rerank?: number;
  /** 0.5 ^ (age in days / half-life), age from when it happened (`occurredAt ?? createdAt`). */
  recency: number;
  importance: number;
  /** How well when it happened matches the period the question names (see `periodMatch`); 0 when none is named. */
  period: number;
  /**
   * Weighted sum of relevance (fused, times `outOfPeriod + (1 - outOfPeriod) * period` when the question
   * names a period), recency and importance; graph neighbours get a share of their parent's.
   */
  final: number;
}

export type ContextReasonCode =
  | "selected"
  | "graph_neighbour"
  | "adjacent_turn"
  | "near_duplicate"
  | "over_item_limit"
  | "over_budget";

export interface ContextReason {
  code: ContextReasonCode;
  /** A sentence for the trace viewer. */
  detail: string;
}

/** A candidate the engine considered, with its scores and why it is in or out. */
export interface ContextItem {
  id: string;
  source: string;
  kind: MemoryKind;
  text: string;
  entities?: string[];
  /** When the thing happened, if the memory knows (shown as its date in the memory block). */
  occurredAt?: number;
  scores: ContextScores;
  /** "retrieved" by lexical/semantic search, reached by one "graph" hop, or "adjacent" to a retrieved turn. */
  origin: "retrieved" | "graph" | "adjacent";
  /** For graph items: the retrieved item whose entity led here, and the edge. */
  parentId?: string;
  edge?: GraphEdge;
  included: boolean;
  reason: ContextReason;
  /** Tokens its line takes in the memory block. */
  tokens: number;
}

/** Weights of the final rank. They need not sum to 1. */
export interface RankWeights {
  relevance: number;
  recency: number;
  importance: number;
}

/** Knobs of retrieval and ranking; every one has a default (see `defaultTuning`). */
export interface ContextTuning {
  /** Hits asked of each retriever. */
  topK: number;
  /** Most memory items listed in one prompt. */
  maxItems: number;
  /** Reciprocal rank fusion constant. */
  rrfK: number;
  /** Lexical search: the weight of the question's common words against its content words (see `ftsTerms`). */
  functionWeight: number;
  /** Weight of the lexical list in the fusion. */
  lexicalWeight: number;
  /** Weight of the semantic list in the fusion. */
  semanticWeight: number;
  /** The recency weight when the question asks about now ("these days", "currently"), in place of `weights.recency`. */
  currentRecency: number;
  /** For a question that names a period, days before it searched too (what held before May still held in May). */
  periodLookbackDays: number;
  /** For a question that names a period, the share of its relevance a memory from outside the period keeps (`periodMatch` 0). */
  outOfPeriod: number;
  /** MMR trade-off: 1 = pure relevance, 0 = pure diversity. */
  mmrLambda: number;
  /** Similarity at or above which an item is a near-duplicate of one already chosen. */
  duplicateThreshold: number;
  weights: RankWeights;
  /** Retrieved items whose entities are expanded. */
  expandFrom: number;
  /** Edges asked of the graph. */
  graphLimit: number;
  /** A graph neighbour's final score is its parent's times this (< 1 keeps it below the parent). */
  graphFactor: number;
  /** Best-ranked candidates whose adjacent memories (the turns just before and after) are looked at; 0 turns the stage off. */
  adjacentFrom: number;
  /** An adjacent memory gains this share of its neighbour's score (added to its own, or its whole score when it was no candidate). */
  adjacentFactor: number;
  /**
   * The first places (5: what a model reads first) that go to what ranks there before the neighbour
   * stage, and where two memories stored next to each other both stand only when each matches on its
   * own; 0 turns the rule off.
   */
  neighbourPlaces: number;
  /** The best word matches (the lexical search's first) that always hold one of those first places; 0: none. */
  lexicalFirst: number;
  /** With a reranker: the best fused candidates it reads (their order is fused again with its own). */
  rerankTop: number;
  /** With a reranker: the weight of its order against the fusion's (1) when the two are fused. */
  rerankWeight: number;
  /** How a question's slash date (10/01/2024) reads; "unstated" reads only those one order allows (31/12/2024). */
  slashDates: SlashDates;
}

/** How a slash date reads: 10/01/2024 is 10 January day-first, 1 October month-first. */
export type SlashDates = "day-first" | "month-first" | "unstated";

export interface ContextBudget {
  /** The model's context window (or the share of it this agent may use). */
  maxTokens: number;
  /** Kept free for the reply; the prompt gets `maxTokens - reserveForReply`. */
  reserveForReply: number;
}

export interface CompileInput {
  systemPrompt: string;
  /** The behavior's goal, appended to the system prompt. */
  goal?: string;
  sessionId: string;
  /** The new user message. */
  query: string;
  /** Memory sources to search, e.g. the agent's `contextSources`. */
  sources: string[];
  budget: ContextBudget;
  /** How many recent messages to consider. */
  recencyWindow: number;
  /** Days after which recency weighs half. Non-positive or non-finite: recency is ignored (1 for all). */
  halfLifeDays: number;
  /** The rolling summary of turns that fell out of the window (see `foldIntoSummary`). */
  summary?: string;
  tuning?: Partial<ContextTuning>;
}

export interface CompiledContext {
  /** System prompt (+ goal), memory block, summary, recent history, user message. */
  messages: Message[];
  /** Every candidate, included and dropped, best first. */
  items: ContextItem[];
  tokens: { used: number; budget: number };
  /** Recent messages left out for the budget, oldest first: fold them into the summary. */
  overflow: Message[];
  /** What went wrong but did not stop the turn (a retriever failed, text was cut). */
  warnings: string[];
}

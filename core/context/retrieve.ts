import { clamp01, finalScore, maximalMarginalRelevance, reciprocalRankFusion, recencyDecay } from "./rank";
import { happenedAt, periodMatch, temporalCue, type TemporalCue } from "./time";
import type {
  ContextItem,
  ContextStore,
  ContextTuning,
  GraphEdge,
  MemoryItem,
  RankWeights,
  RerankPort,
  ScoredId,
} from "./types";

const dayMs = 86_400_000;

export interface RetrieveInput {
  store: ContextStore;
  query: string;
  sources: string[];
  tuning: ContextTuning;
  now: number;
  halfLifeDays: number;
  similar: (a: string, b: string) => number;
  /** Re-orders the best fused candidates (see `rerankBest`); absent: the fusion's order stands. */
  rerank?: RerankPort;
  /** Collects what failed without failing the turn. */
  warnings: string[];
}

/**
 * One line of the memory block; also what an item's `tokens` measures. A memory with a time it
 * happened carries its date, so the model can answer "when" and tell an old value from a new one.
 *
 * @example
 * memoryLine({ source: "memory", text: "We moved to Lisbon", occurredAt: Date.UTC(2024, 4, 11) }) // "- [memory 2024-05-11] We moved to Lisbon"
 */
export function memoryLine(item: { source: string; text: string; occurredAt?: number }): string {
  const date =
    item.occurredAt !== undefined && Number.isFinite(item.occurredAt)
      ? ` ${new Date(item.occurredAt).toISOString().slice(0, 10)}`
      : "";
  return `- [${item.source}${date}] ${item.text}`;
}

/**
 * Hybrid retrieval: lexical + semantic hits fused by RRF, scored, de-duplicated by MMR, expanded one
 * graph hop, and cut to `maxItems`. Returns every candidate, best first, each marked with why it is in
 * or out; the caller still has to fit the included ones into the token budget.
 */
export async function retrieveCandidates(input: RetrieveInput): Promise<ContextItem[]> {
  const { store, query, sources, tuning, warnings } = input;
  if (query.trim() === "" || sources.length === 0 || tuning.topK <= 0) return [];
  const options = { sources, limit: tuning.topK, functionWeight: tuning.functionWeight };
  const cue = temporalCue(query, input.now, tuning.slashDates);
  // The words of a named date stay in the word search ("watch in 2017" is answered by the turn that
  // says 2017), and the question without them is searched too (the answer may not repeat the date):
  // each list counts half, so a turn found both ways counts as one found by the whole question.
  const without = cue.named && cue.rest.trim() && cue.rest !== query ? cue.rest : undefined;
  const lexicalShare = without ? 0.5 : 1;
  // A named period is also searched within (and the weeks before it), so its memories are candidates
  // even when the whole history holds better word matches; only a question about when prefers them
  // (`cue.range`): for any other the period may be what was talked about, not when.
  const window = cue.named && {
    from: cue.named.from - Math.max(0, tuning.periodLookbackDays) * dayMs,
    to: cue.named.to,
  };
  const inPeriod = without ?? query;
  const [lexical, lexicalWithout, semantic, lexicalInPeriod, semanticInPeriod] = await Promise.all([
    settle("lexical", () => store.lexical(query, options), warnings),
    without ? settle("lexical", () => store.lexical(without, options), warnings) : [],
    settle("semantic", () => store.semantic(query, options), warnings),
    window ? settle("lexical", () => store.lexical(inPeriod, { ...options, between: window }), warnings) : [],
    window ? settle("semantic", () => store.semantic(inPeriod, { ...options, between: window }), warnings) : [],
  ]);
  const fused = reciprocalRankFusion(
    [lexical, lexicalWithout, semantic, lexicalInPeriod, semanticInPeriod],
    tuning.rrfK,
    [
      tuning.lexicalWeight * lexicalShare,
      tuning.lexicalWeight * lexicalShare,
      tuning.semanticWeight,
      tuning.lexicalWeight,
      tuning.semanticWeight,
    ],
  );
  const weights = weightsFor(cue, tuning);
  const outside = clamp01(tuning.outOfPeriod);
  if (fused.size === 0) return [];
  const items = await settle("get", () => store.get([...fused.keys()]), warnings);
  const maxFused = Math.max(...fused.values());
  const lexicalScore = scoreMap([...lexical, ...lexicalWithout, ...lexicalInPeriod]);
  const semanticScore = scoreMap([...semantic, ...semanticInPeriod]);

  const retrieved = items
    .filter((item) => fused.has(item.id) && sources.includes(item.source))
    .map((item): ContextItem => {
      const fusedNorm = maxFused > 0 ? (fused.get(item.id) ?? 0) / maxFused : 0;
      const recency = recencyDecay(item, input.now, input.halfLifeDays);
      const importance = clamp01(item.importance);
      const period = cue.range ? periodMatch(happenedAt(item), cue.range) : 0;
      return {
        ...base(item),
        scores: {
          lexical: lexicalScore.get(item.id) ?? 0,
          semantic: semanticScore.get(item.id) ?? 0,
          fused: fusedNorm,
          recency,
          importance,
          period,
          final: finalScore(
            { fused: cue.range ? fusedNorm * (outside + (1 - outside) * period) : fusedNorm, recency, importance },
            weights,
          ),
        },
        origin: "retrieved",
        included: true,
        reason: { code: "selected", detail: "" },
      };
    })
    .sort(byFinal);
  await rerankBest(input, retrieved);
  // What ranks in the first places on its own, before any neighbour lends it a share of its score.
  const own = new Set(retrieved.slice(0, firstPlaces(tuning)).map((item) => item.id));
  const { candidates, pairs } = await addAdjacent(input, retrieved);

  const byId = new Map(candidates.map((item) => [item.id, item]));
  const mmr = maximalMarginalRelevance(
    candidates.map((item) => ({ id: item.id, text: item.text, score: item.scores.final })),
    { lambda: tuning.mmrLambda, duplicateThreshold: tuning.duplicateThreshold, similar: input.similar },
  );
  const chosen = mmr.order.map((id) => byId.get(id)!);
  const duplicates = [...mmr.duplicates].map(([id, dup]) => dropDuplicate(byId.get(id)!, dup.of, dup.similarity));

  const expanded = await expandGraph(input, chosen, new Set(byId.keys()));
  const anchors = new Set(lexical.slice(0, Math.max(0, Math.floor(tuning.lexicalFirst))).map((hit) => hit.id));
  const ranked = await holdFirstPlaces(input, mergeBelowParents(chosen, expanded.items), own, pairs, anchors);

  ranked.forEach((item, index) => {
    if (index >= tuning.maxItems) {
      item.included = false;
      item.reason = {
        code: "over_item_limit",
        detail: `ranked ${index + 1}, past the limit of ${tuning.maxItems} items`,
      };
    } else if (item.origin === "adjacent") {
      item.reason = { code: "adjacent_turn", detail: `ranked ${index + 1}, stored next to ${item.parentId}` };
    } else if (item.origin === "graph") {
      item.reason = {
        code: "graph_neighbour",
        detail: `one graph hop from ${item.parentId} (${item.edge?.subject} ${item.edge?.relation} ${item.edge?.object})`,
      };
    } else {
      item.reason = {
        code: "selected",
        detail: `ranked ${index + 1} (fused ${item.scores.fused.toFixed(2)}, recency ${item.scores.recency.toFixed(2)}, importance ${item.scores.importance.toFixed(2)})`,
      };
    }
  });
  return [...ranked, ...expanded.duplicates, ...duplicates];
}

/**
 * A cross-encoder reads the question with each of the `rerankTop` best candidates; its order and the
 * fusion's are fused again (RRF, its weight `rerankWeight`), and the candidates take the places, and
 * the scores, of those `rerankTop` in the new order: the rest keep theirs, below. A reranker that
 * fails or answers the wrong count leaves the order as it was, with a warning.
 */
async function rerankBest(input: RetrieveInput, retrieved: ContextItem[]): Promise<void> {
  const { rerank, tuning } = input;
  const top = retrieved.slice(0, Math.max(0, Math.floor(tuning.rerankTop)));
  if (!rerank || top.length < 2) return;
  let scores: number[];
  try {
    scores = await rerank.rerank(
      input.query,
      top.map((item) => item.text),
    );
    if (!Array.isArray(scores) || scores.length !== top.length || !scores.every(Number.isFinite))
      throw new Error(`expected ${top.length} finite scores, got ${Array.isArray(scores) ? scores.length : "none"}`);
  } catch (error) {
    input.warnings.push(`rerank failed: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const byModel = top.map((item, i) => ({ id: item.id, score: scores[i]! })).sort((a, b) => b.score - a.score);
  const order = reciprocalRankFusion(
    [top.map((item) => ({ id: item.id, score: item.scores.final })), byModel],
    tuning.rrfK,
    [1, Math.max(0, tuning.rerankWeight)],
  );
  const places = top.map((item) => ({ fused: item.scores.fused, final: item.scores.final }));
  const reordered = top
    .map((item, i) => ({ item, score: scores[i]!, at: order.get(item.id) ?? 0 }))
    .sort((a, b) => b.at - a.at || b.item.scores.final - a.item.scores.final);
  reordered.forEach(({ item, score }, i) => {
    item.scores.rerank = score;
    item.scores.fused = places[i]!.fused;
    item.scores.final = places[i]!.final;
    retrieved[i] = item;
  });
}

/**
 * The turns next to a good hit: in a conversation the answer is often the turn after the question
 * that matched ("What does the necklace mean?" → "It's from my grandma…"), or the one before it.
 * Each memory stored just before or after one of the `adjacentFrom` best candidates (same provenance
 * and source) gains `adjacentFactor` of that candidate's score: added to its own when it is a
 * candidate already, its whole score when it was not. Measured on LoCoMo (bench/memory-eval).
 */
async function addAdjacent(
  input: RetrieveInput,
  retrieved: ContextItem[],
): Promise<{ candidates: ContextItem[]; pairs: Neighbours }> {
  const { tuning, store } = input;
  const from = retrieved.slice(0, Math.max(0, Math.floor(tuning.adjacentFrom)));
  const factor = clamp01(tuning.adjacentFactor);
  const pairs: Neighbours = { asked: new Set(), of: new Map() };
  if (!store.adjacent || from.length === 0 || factor <= 0) return { candidates: retrieved, pairs };
  const found = await settle("adjacent", () => store.adjacent!(from.map((item) => item.id)), input.warnings);
  notePairs(pairs, from, found);
  const parentScore = new Map(from.map((item) => [item.id, item.scores.final]));
  const gains = new Map<string, { gain: number; of: string; item: MemoryItem }>();
  for (const { item, of } of found) {
    if (!input.sources.includes(item.source)) continue;
    const gain = factor * (parentScore.get(of) ?? 0);
    if (gain > (gains.get(item.id)?.gain ?? 0)) gains.set(item.id, { gain, of, item });
  }
  const byId = new Map(retrieved.map((item) => [item.id, item]));
  const added: ContextItem[] = [];
  for (const [id, { gain, of, item }] of gains) {
    const known = byId.get(id);
    if (known) {
      known.scores.final += gain;
      continue;
    }
    added.push({
      ...base(item),
      scores: {
        lexical: 0,
        semantic: 0,
        fused: 0,
        recency: recencyDecay(item, input.now, input.halfLifeDays),
        importance: clamp01(item.importance),
        period: 0,
        final: gain,
      },
      origin: "adjacent",
      parentId: of,
      included: true,
      reason: { code: "adjacent_turn", detail: "" },
    });
  }
  return { candidates: [...retrieved, ...added].sort(byFinal), pairs };
}

/** Which memories are stored next to which, as far as asked (`asked`): adjacency both ways. */
interface Neighbours {
  asked: Set<string>;
  of: Map<string, Set<string>>;
}

function notePairs(pairs: Neighbours, asked: Array<{ id: string }>, found: Array<{ item: MemoryItem; of: string }>) {
  const link = (a: string, b: string) => pairs.of.set(a, (pairs.of.get(a) ?? new Set()).add(b));
  for (const { id } of asked) pairs.asked.add(id);
  for (const { item, of } of found) {
    link(of, item.id);
    link(item.id, of);
  }
}

function firstPlaces(tuning: ContextTuning): number {
  return Math.max(0, Math.floor(tuning.neighbourPlaces));
}

/**
 * The first `neighbourPlaces` places (what a model reads first) go first to the `lexicalFirst` best
 * word matches (`anchors`), then to what ranks there on its own (`own`: the order before the
 * neighbour stage lent any memory a share), in the final order; the neighbour stage orders everything
 * after them. Two memories stored next to each other share those places only when both match on
 * their own: each ranked there on its own and, for two turns of a conversation, each found by its own
 * words (a turn's vector holds the turn before it, so its meaning match may be its neighbour's). A
 * place one of them leaves goes to the next best. So a greeting exchange ranked as a unit ("what did
 * your day look like today?" and its reply) no longer takes two of the first five, and the turn whose
 * words match best is always among them (the fusion put it sixth or lower behind turns that both
 * lists half-matched; measured in bench/memory-eval, issue 43).
 */
async function holdFirstPlaces(
  input: RetrieveInput,
  ranked: ContextItem[],
  own: Set<string>,
  pairs: Neighbours,
  anchors: Set<string>,
): Promise<ContextItem[]> {
  const places = firstPlaces(input.tuning);
  if (places < 1 || ranked.length < 2) return ranked;
  // The places are filled from about the first three times as many; their neighbours not yet known are asked once.
  const window = ranked.slice(0, places * 3).filter((item) => item.origin !== "graph");
  const unknown = window.filter((item) => !pairs.asked.has(item.id));
  if (unknown.length && input.store.adjacent) {
    const found = await settle("adjacent", () => input.store.adjacent!(unknown.map((item) => item.id)), input.warnings);
    notePairs(pairs, unknown, found);
  }
  const onItsOwn = (item: ContextItem) => own.has(item.id) && (item.kind !== "episode" || item.scores.lexical > 0);
  const clash = (a: ContextItem, b: ContextItem) =>
    (pairs.of.get(a.id)?.has(b.id) ?? false) && !(onItsOwn(a) && onItsOwn(b));
  const first: ContextItem[] = [];
  const fits = (item: ContextItem) => !first.some((placed) => clash(placed, item));
  // The best word matches, then what ranks there on its own; a place left (a pair that may not share them) goes to the next best.
  for (const item of ranked) if (first.length < places && anchors.has(item.id) && fits(item)) first.push(item);
  for (const item of ranked)
    if (first.length < places && !first.includes(item) && own.has(item.id) && fits(item)) first.push(item);
  for (const item of ranked) if (first.length < places && !first.includes(item) && fits(item)) first.push(item);
  first.sort((a, b) => ranked.indexOf(a) - ranked.indexOf(b));
  return [...first, ...ranked.filter((item) => !first.includes(item))];
}

/**
 * The rank weights for this question. Asking when something happened, or about a named period, is
 * not asking for the newest: recency drops out, so it cannot bury the old fact that answers. Asking
 * about now ("where do I live now?") weighs recency `currentRecency`, so the latest value of a fact
 * that changed comes first.
 */
function weightsFor(cue: TemporalCue, tuning: ContextTuning): RankWeights {
  const { weights } = tuning;
  if (cue.asksWhen || cue.range) return { ...weights, recency: 0 };
  if (cue.current) return { ...weights, recency: tuning.currentRecency };
  return weights;
}

async function expandGraph(
  input: RetrieveInput,
  chosen: ContextItem[],
  known: Set<string>,
): Promise<{ items: ContextItem[]; duplicates: ContextItem[] }> {
  const { tuning } = input;
  const parents = chosen.slice(0, Math.max(0, tuning.expandFrom));
  const entities = unique(parents.flatMap((item) => item.entities ?? []));
  if (entities.length === 0 || tuning.graphLimit <= 0) return { items: [], duplicates: [] };
  const edges = await settle("neighbours", () => input.store.neighbours(entities, tuning.graphLimit), input.warnings);
  const linked: Array<{ edge: GraphEdge; parent: ContextItem }> = [];
  for (const edge of edges) {
    const parent = parents.find((item) => touches(item.entities ?? [], edge));
    if (parent && edge.provenance !== parent.id) linked.push({ edge, parent });
  }
  const wanted = unique(linked.map((l) => l.edge.provenance).filter((id) => !known.has(id)));
  const found = wanted.length ? await settle("get", () => input.store.get(wanted), input.warnings) : [];
  const foundById = new Map(found.map((item) => [item.id, item]));

  const items: ContextItem[] = [];
  const duplicates: ContextItem[] = [];
  const seen = new Set(known);
  for (const { edge, parent } of linked) {
    // The memory behind the edge is already a candidate, ranked on its own merit.
    if (known.has(edge.provenance)) continue;
    const found = foundById.get(edge.provenance);
    // A mention edge only points at its memory; without the memory (superseded, another source) it says nothing.
    if (!found && edge.relation === mentionRelation) continue;
    const item: MemoryItem = found ?? edgeAsItem(edge);
    if (seen.has(item.id)) continue;
    if (!input.sources.includes(item.source) && foundById.has(item.id)) continue;
    seen.add(item.id);
    const recency = recencyDecay(item, input.now, input.halfLifeDays);
    const context: ContextItem = {
      ...base(item),
      scores: {
        lexical: 0,
        semantic: 0,
        fused: 0,
        recency,
        importance: clamp01(item.importance),
        period: 0,
        final: parent.scores.final * clamp01(tuning.graphFactor),
      },
      origin: "graph",
      parentId: parent.id,
      edge,
      included: true,
      reason: { code: "graph_neighbour", detail: "" },
    };
    const twin = [...chosen, ...items].find(
      (other) => input.similar(other.text, item.text) >= tuning.duplicateThreshold,
    );
    if (twin) duplicates.push(dropDuplicate(context, twin.id, input.similar(twin.text, item.text)));
    else items.push(context);
  }
  return { items, duplicates };
}

/** Places each graph item after its parent and before the first later item that scores lower. */
function mergeBelowParents(chosen: ContextItem[], expanded: ContextItem[]): ContextItem[] {
  const slots = expanded.map((item) => {
    const parentIndex = chosen.findIndex((c) => c.id === item.parentId);
    let slot = chosen.length;
    for (let i = parentIndex + 1; i < chosen.length; i++) {
      if (chosen[i]!.scores.final < item.scores.final) {
        slot = i;
        break;
      }
    }
    return { item, slot };
  });
  const out: ContextItem[] = [];
  for (let i = 0; i <= chosen.length; i++) {
    out.push(
      ...slots
        .filter((s) => s.slot === i)
        .map((s) => s.item)
        .sort(byFinal),
    );
    const direct = chosen[i];
    if (direct) out.push(direct);
  }
  return out;
}

/** The relation of the edges a memory without a triple gets, one per entity it names (see the memory store). */
export const mentionRelation = "is mentioned in";

function edgeAsItem(edge: GraphEdge): MemoryItem {
  return {
    id: `edge:${edge.subject}|${edge.relation}|${edge.object}`,
    kind: "fact",
    text: `${edge.subject} ${edge.relation} ${edge.object}`,
    source: "graph",
    importance: 0.5,
    createdAt: 0,
    entities: [edge.subject, edge.object],
  };
}

function base(
  item: MemoryItem,
): Pick<ContextItem, "id" | "source" | "kind" | "text" | "tokens" | "entities" | "occurredAt"> {
  return {
    id: item.id,
    source: item.source,
    kind: item.kind,
    text: item.text,
    tokens: 0,
    entities: item.entities ?? [],
    ...(item.occurredAt !== undefined ? { occurredAt: item.occurredAt } : {}),
  };
}

function dropDuplicate(item: ContextItem, of: string, similarity: number): ContextItem {
  return {
    ...item,
    included: false,
    reason: { code: "near_duplicate", detail: `near-duplicate of ${of} (similarity ${similarity.toFixed(2)})` },
  };
}

function touches(entities: string[], edge: GraphEdge): boolean {
  const wanted = new Set(entities.map((e) => e.toLowerCase()));
  return wanted.has(edge.subject.toLowerCase()) || wanted.has(edge.object.toLowerCase());
}

async function settle<T>(what: string, call: () => Promise<T[]>, warnings: string[]): Promise<T[]> {
  try {
    return (await call()) ?? [];
  } catch (error) {
    warnings.push(`${what} retrieval failed: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}

function scoreMap(hits: ScoredId[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const hit of hits) if (!map.has(hit.id)) map.set(hit.id, hit.score);
  return map;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function byFinal(a: ContextItem, b: ContextItem): number {
  return b.scores.final - a.scores.final || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

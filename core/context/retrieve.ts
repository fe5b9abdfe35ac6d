import { clamp01, finalScore, maximalMarginalRelevance, reciprocalRankFusion, recencyDecay } from "./rank";
import { happenedAt, periodMatch, temporalCue, type TemporalCue } from "./time";
import type { ContextItem, ContextStore, ContextTuning, GraphEdge, MemoryItem, RankWeights, ScoredId } from "./types";

const dayMs = 86_400_000;

export interface RetrieveInput {
  store: ContextStore;
  query: string;
  sources: string[];
  tuning: ContextTuning;
  now: number;
  halfLifeDays: number;
  similar: (a: string, b: string) => number;
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
  // A named period ("in May 2023") is matched on the memories' dates, not searched for as words.
  const cue = temporalCue(query, input.now);
  const searched = cue.range && cue.rest.trim() ? cue.rest : query;
  // And for a period, the same two searches again within it (and the weeks before it), so its
  // memories are candidates even when the whole history holds better word matches.
  const window = cue.range && {
    from: cue.range.from - Math.max(0, tuning.periodLookbackDays) * dayMs,
    to: cue.range.to,
  };
  const [lexical, semantic, lexicalInPeriod, semanticInPeriod] = await Promise.all([
    settle("lexical", () => store.lexical(searched, options), warnings),
    settle("semantic", () => store.semantic(searched, options), warnings),
    window ? settle("lexical", () => store.lexical(searched, { ...options, between: window }), warnings) : [],
    window ? settle("semantic", () => store.semantic(searched, { ...options, between: window }), warnings) : [],
  ]);
  const fused = reciprocalRankFusion([lexical, semantic, lexicalInPeriod, semanticInPeriod], tuning.rrfK, [
    tuning.lexicalWeight,
    tuning.semanticWeight,
    tuning.lexicalWeight,
    tuning.semanticWeight,
  ]);
  const weights = weightsFor(cue, tuning);
  const outside = clamp01(tuning.outOfPeriod);
  if (fused.size === 0) return [];
  const items = await settle("get", () => store.get([...fused.keys()]), warnings);
  const maxFused = Math.max(...fused.values());
  const lexicalScore = scoreMap([...lexical, ...lexicalInPeriod]);
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
  const candidates = await addAdjacent(input, retrieved);

  const byId = new Map(candidates.map((item) => [item.id, item]));
  const mmr = maximalMarginalRelevance(
    candidates.map((item) => ({ id: item.id, text: item.text, score: item.scores.final })),
    { lambda: tuning.mmrLambda, duplicateThreshold: tuning.duplicateThreshold, similar: input.similar },
  );
  const chosen = mmr.order.map((id) => byId.get(id)!);
  const duplicates = [...mmr.duplicates].map(([id, dup]) => dropDuplicate(byId.get(id)!, dup.of, dup.similarity));

  const expanded = await expandGraph(input, chosen, new Set(byId.keys()));
  const ranked = mergeBelowParents(chosen, expanded.items);

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
 * The turns next to a good hit: in a conversation the answer is often the turn after the question
 * that matched ("What does the necklace mean?" → "It's from my grandma…"), or the one before it.
 * Each memory stored just before or after one of the `adjacentFrom` best candidates (same provenance
 * and source) gains `adjacentFactor` of that candidate's score: added to its own when it is a
 * candidate already, its whole score when it was not. Measured on LoCoMo (bench/memory-eval).
 */
async function addAdjacent(input: RetrieveInput, retrieved: ContextItem[]): Promise<ContextItem[]> {
  const { tuning, store } = input;
  const from = retrieved.slice(0, Math.max(0, Math.floor(tuning.adjacentFrom)));
  const factor = clamp01(tuning.adjacentFactor);
  if (!store.adjacent || from.length === 0 || factor <= 0) return retrieved;
  const found = await settle("adjacent", () => store.adjacent!(from.map((item) => item.id)), input.warnings);
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
  return [...retrieved, ...added].sort(byFinal);
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

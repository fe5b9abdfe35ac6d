import { happenedAt } from "./time";
import type { MemoryItem, RankWeights, ScoredId } from "./types";

const dayMs = 86_400_000;

/** Lower-cased words (letters, digits, apostrophes inside words), for overlap measures. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

/**
 * Jaccard overlap of the two texts' word sets, 0..1. The default near-duplicate measure; inject an
 * embedding cosine where one is at hand.
 *
 * @example
 * wordOverlap("The wifi password is tulip42", "the WiFi password is tulip42.") // 1
 */
export function wordOverlap(a: string, b: string): number {
  return setOverlap(new Set(words(a)), new Set(words(b)));
}

/**
 * `wordOverlap` that splits each distinct text into words once. The near-duplicate pass compares
 * every pair of a compile's candidates (about 60, so some 1,800 pairs): splitting both texts of every
 * pair was a tenth of a compile at 100,000 memories (bench/context.bench.mjs). Same values as
 * `wordOverlap`; make one per compile, its cache lives as long as the function.
 *
 * @example
 * const similar = cachedWordOverlap();
 * similar("The wifi password is tulip42", "the WiFi password is tulip42.") // 1
 */
export function cachedWordOverlap(): (a: string, b: string) => number {
  const sets = new Map<string, Set<string>>();
  const setOf = (text: string) => {
    let set = sets.get(text);
    if (!set) sets.set(text, (set = new Set(words(text))));
    return set;
  };
  return (a, b) => setOverlap(setOf(a), setOf(b));
}

function setOverlap(left: Set<string>, right: Set<string>): number {
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared += 1;
  return shared / (left.size + right.size - shared);
}

/**
 * Reciprocal rank fusion: each list adds `weight / (k + rank)` (rank from 1, weight 1 unless given) to an id's score.
 * Only order matters, so bm25 and cosine scores need no common scale.
 *
 * @example
 * reciprocalRankFusion([[{ id: "a", score: 9 }], [{ id: "b", score: 0.8 }, { id: "a", score: 0.7 }]], 60).get("a") // 1/61 + 1/62
 */
export function reciprocalRankFusion(
  lists: readonly (readonly ScoredId[])[],
  k = 60,
  weights: readonly number[] = [],
): Map<string, number> {
  const fused = new Map<string, number>();
  for (const [index, list] of lists.entries()) {
    const weight = Number.isFinite(weights[index]) ? Math.max(0, weights[index]!) : 1;
    const seen = new Set<string>();
    let rank = 0;
    for (const hit of list) {
      if (seen.has(hit.id)) continue; // a retriever repeating an id must not count twice
      seen.add(hit.id);
      rank += 1;
      fused.set(hit.id, (fused.get(hit.id) ?? 0) + weight / (k + rank));
    }
  }
  return fused;
}

/**
 * 0.5 ^ (age / half-life), the age counted from when the thing happened (`occurredAt`, else when it
 * was stored), not from when it was last used: a fact about last year read yesterday is still about
 * last year. 1 when the half-life is not a positive finite number, or the item is from the future.
 */
export function recencyDecay(
  item: Pick<MemoryItem, "createdAt" | "occurredAt">,
  now: number,
  halfLifeDays: number,
): number {
  if (!(halfLifeDays > 0) || !Number.isFinite(halfLifeDays)) return 1;
  const ageDays = Math.max(0, now - happenedAt(item)) / dayMs;
  return 0.5 ** (ageDays / halfLifeDays);
}

export function finalScore(
  parts: { fused: number; recency: number; importance: number },
  weights: RankWeights,
): number {
  return (
    weights.relevance * parts.fused + weights.recency * parts.recency + weights.importance * clamp01(parts.importance)
  );
}

export function clamp01(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value));
}

export interface MmrCandidate {
  id: string;
  text: string;
  score: number;
}

export interface MmrResult {
  /** Chosen ids in MMR order. */
  order: string[];
  /** Ids left out as near-duplicates, with the chosen id they repeat and the similarity. */
  duplicates: Map<string, { of: string; similarity: number }>;
}

/**
 * Maximal marginal relevance: repeatedly picks the candidate with the best
 * `lambda * score - (1 - lambda) * (max similarity to what is picked)`, and drops any candidate at or
 * above `duplicateThreshold` similarity to a pick.
 */
export function maximalMarginalRelevance(
  candidates: readonly MmrCandidate[],
  options: { lambda: number; duplicateThreshold: number; similar: (a: string, b: string) => number },
): MmrResult {
  const lambda = clamp01(options.lambda);
  const remaining = [...candidates];
  const picked: MmrCandidate[] = [];
  const duplicates = new Map<string, { of: string; similarity: number }>();
  const maxSim = new Map<string, { of: string; similarity: number }>();
  while (remaining.length > 0) {
    let bestIndex = 0;
    let bestValue = -Infinity;
    for (let i = 0; i < remaining.length; i++) {
      const candidate = remaining[i]!;
      const penalty = maxSim.get(candidate.id)?.similarity ?? 0;
      const value = lambda * candidate.score - (1 - lambda) * penalty;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = i;
      }
    }
    const [chosen] = remaining.splice(bestIndex, 1);
    if (!chosen) break;
    picked.push(chosen);
    for (let i = remaining.length - 1; i >= 0; i--) {
      const other = remaining[i]!;
      const similarity = options.similar(chosen.text, other.text);
      if (similarity >= options.duplicateThreshold) {
        duplicates.set(other.id, { of: chosen.id, similarity });
        remaining.splice(i, 1);
      } else if (similarity > (maxSim.get(other.id)?.similarity ?? 0)) {
        maxSim.set(other.id, { of: chosen.id, similarity });
      }
    }
  }
  return { order: picked.map((c) => c.id), duplicates };
}

/**
 * The first `count` entries of `[...scores].sort((a, b) => b[1] - a[1])` (best score first, ties in
 * insertion order), without sorting them all: a lexical search scores a few thousand rows and most
 * often reads only its best page. A min-heap finds the `count`-th best score; the entries above it,
 * then its ties in insertion order, are that prefix.
 *
 * @example
 * firstByScore(new Map([["a", 1], ["b", 3], ["c", 2], ["d", 3]]), 2) // [["b", 3], ["d", 3]]
 */
export function firstByScore<K>(scores: Map<K, number>, count: number): Array<[K, number]> {
  const byScore = (a: [K, number], b: [K, number]) => b[1] - a[1];
  if (scores.size <= count) return [...scores].sort(byScore);
  if (count <= 0) return [];
  const heap = new Float64Array(count);
  let size = 0;
  for (const score of scores.values()) {
    if (size < count) {
      let i = size++;
      while (i > 0 && heap[(i - 1) >> 1]! > score) {
        heap[i] = heap[(i - 1) >> 1]!;
        i = (i - 1) >> 1;
      }
      heap[i] = score;
    } else if (score > heap[0]!) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= size) break;
        const child = left + 1 < size && heap[left + 1]! < heap[left]! ? left + 1 : left;
        if (heap[child]! >= score) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = score;
    }
  }
  const threshold = heap[0]!;
  const above: Array<[K, number]> = [];
  const ties: Array<[K, number]> = [];
  for (const entry of scores) {
    if (entry[1] > threshold) above.push(entry);
    else if (entry[1] === threshold && ties.length < count) ties.push(entry);
  }
  return [...above, ...ties.slice(0, count - above.length)].sort(byScore);
}

import { parseTriple } from "./extract";
import { happenedAt } from "./time";
import type { MemoryItem, MemoryKind, Triple } from "./types";

const dayMs = 86_400_000;

export interface ConsolidationOptions {
  /** Similarity of two items, 0..1 (word overlap, or the cosine of their embeddings). */
  similar: (a: MemoryItem, b: MemoryItem) => number;
  now: number;
  /** Similarity at or above which two items of one kind say the same thing. */
  threshold: number;
  /** Share of importance lost per day unused, e.g. 0.01. */
  decayPerDay: number;
  /** When consolidation last ran: decay counts only days since then, so repeated runs do not compound. */
  lastRunAt?: number;
  /** Kinds that never decay; standing instructions by default. */
  exemptKinds?: MemoryKind[];
}

export interface MergePlan {
  keep: string;
  drop: string[];
  /** The kept item's new importance: the highest of the group. */
  importance: number;
}

export interface SupersedePlan {
  old: string;
  new: string;
  subject: string;
  relation: string;
  previous: string;
  current: string;
  /** Where the old fact came from, so the store can keep it as history rather than lose it. */
  provenance: { source: string; createdAt: number };
}

export interface ConsolidationPlan {
  merge: MergePlan[];
  supersede: SupersedePlan[];
  decay: Array<{ id: string; importance: number }>;
}

/**
 * Plans memory upkeep without touching storage: merge items that say the same thing, supersede a fact
 * whose value changed (same subject and relation, newer object), and decay the importance of items
 * left unused. The Durable Object applies the plan in one transaction.
 *
 * @example
 * const plan = planConsolidation(items, { similar: (a, b) => wordOverlap(a.text, b.text), now: clock.now(), threshold: 0.8, decayPerDay: 0.01 });
 * // plan.supersede: [{ old: "m1", new: "m9", subject: "user", relation: "lives in", previous: "Lyon", current: "Berlin", ... }]
 */
export function planConsolidation(items: readonly MemoryItem[], options: ConsolidationOptions): ConsolidationPlan {
  const exempt = new Set<MemoryKind>(options.exemptKinds ?? ["instruction"]);
  const triples = new Map<string, Triple>();
  for (const item of items) {
    const triple = item.triple ?? (item.kind === "fact" ? parseTriple(item.text) : undefined);
    if (triple) triples.set(item.id, normalise(triple));
  }

  const supersede: SupersedePlan[] = [];
  const superseded = new Set<string>();
  const bySlot = new Map<string, MemoryItem[]>();
  for (const item of items) {
    const triple = triples.get(item.id);
    if (!triple) continue;
    const slot = `${triple.subject}\u0000${triple.relation}`;
    bySlot.set(slot, [...(bySlot.get(slot) ?? []), item]);
  }
  for (const group of bySlot.values()) {
    // The value that holds now is the one that happened last, not the one stored last (an import of old facts).
    const newest = [...group].sort(
      (a, b) => happenedAt(b) - happenedAt(a) || b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1),
    )[0]!;
    const current = triples.get(newest.id)!;
    for (const item of group) {
      const triple = triples.get(item.id)!;
      if (item.id === newest.id || triple.object === current.object) continue;
      superseded.add(item.id);
      supersede.push({
        old: item.id,
        new: newest.id,
        subject: current.subject,
        relation: current.relation,
        previous: (item.triple ?? parseTriple(item.text))?.object ?? triple.object,
        current: (newest.triple ?? parseTriple(newest.text))?.object ?? current.object,
        provenance: { source: item.source, createdAt: item.createdAt },
      });
    }
  }

  const candidates = items.filter((item) => !superseded.has(item.id)).sort(keepFirst);
  const assigned = new Set<string>();
  const merge: MergePlan[] = [];
  for (const head of candidates) {
    if (assigned.has(head.id)) continue;
    assigned.add(head.id);
    const drop: MemoryItem[] = [];
    for (const other of candidates) {
      if (
        assigned.has(other.id) ||
        other.kind !== head.kind ||
        !compatible(triples.get(head.id), triples.get(other.id))
      )
        continue;
      if (
        sameTriple(triples.get(head.id), triples.get(other.id)) ||
        options.similar(head, other) >= options.threshold
      ) {
        assigned.add(other.id);
        drop.push(other);
      }
    }
    if (drop.length) {
      merge.push({
        keep: head.id,
        drop: drop.map((d) => d.id),
        importance: Math.max(head.importance, ...drop.map((d) => d.importance)),
      });
    }
  }

  const dropped = new Set(merge.flatMap((m) => m.drop));
  const mergedImportance = new Map(merge.map((m) => [m.keep, m.importance]));
  const decay: Array<{ id: string; importance: number }> = [];
  const rate = Math.min(1, Math.max(0, options.decayPerDay));
  for (const item of items) {
    if (superseded.has(item.id) || dropped.has(item.id) || exempt.has(item.kind) || rate === 0) continue;
    const since = Math.max(item.lastUsedAt ?? item.createdAt, options.lastRunAt ?? -Infinity);
    const days = Math.max(0, options.now - since) / dayMs;
    const start = mergedImportance.get(item.id) ?? item.importance;
    const next = Math.round(start * (1 - rate) ** days * 10_000) / 10_000;
    if (Math.abs(next - start) >= 0.005) decay.push({ id: item.id, importance: next });
  }
  return { merge, supersede, decay };
}

function normalise(triple: Triple): Triple {
  const clean = (s: string) =>
    s
      .trim()
      .toLowerCase()
      .replace(/^the\s+/, "")
      .replace(/[.!]+$/, "");
  return { subject: clean(triple.subject), relation: clean(triple.relation), object: clean(triple.object) };
}

/** Two facts about different subjects or values are never one memory, however alike their wording. */
function compatible(a: Triple | undefined, b: Triple | undefined): boolean {
  if (!a || !b) return true;
  return a.subject === b.subject && a.relation === b.relation && a.object === b.object;
}

function sameTriple(a: Triple | undefined, b: Triple | undefined): boolean {
  return !!a && !!b && compatible(a, b);
}

/** The item a merge keeps: most important, then most recently used, then oldest id. */
function keepFirst(a: MemoryItem, b: MemoryItem): number {
  return (
    b.importance - a.importance ||
    (b.lastUsedAt ?? b.createdAt) - (a.lastUsedAt ?? a.createdAt) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

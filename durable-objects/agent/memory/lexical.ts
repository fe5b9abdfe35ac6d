import { firstByScore, ftsTerms, type MemoryKind, type ScoredId } from "../../../core/context";
import type { SqlLike } from "../../../core/ports";
import { chunkSize, memoryKindsBut, within, type Period } from "./records";

/** Rows one lexical term is ranked over (its newest). */
const termCap = 1000;
/** Terms searched by one statement: workerd's SQLite allows 5 parts in a compound select. */
const termsPerStatement = 5;

/** Each term's newest `termCap` hits with their bm25 part, as one compound select of `count` parts. */
function lexicalQuery(count: number): string {
  return Array.from(
    { length: count },
    (_, t) =>
      `SELECT r, b, ${t} AS t FROM (SELECT rowid AS r, bm25(memories_fts) AS b FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?)`,
  ).join(" UNION ALL ");
}

/** A live memory's row as the lexical search filters it: where it is, its kind, when it happened. */
export interface LiveRow {
  seq: number;
  id: string;
  source: string;
  kind: MemoryKind;
  at: number;
}

/**
 * The memory store's FTS5 search (`store.lexical`): raw SQL over `memories_fts`, then the live rows
 * of the best hits, read by `liveBySeq` (the store's prepared statement), filtered.
 */
export function makeLexicalSearch(deps: { sql: SqlLike; liveBySeq: (seqs: number[]) => LiveRow[] }) {
  const { sql, liveBySeq } = deps;
  /**
   * FTS5 hits, best first (bm25 negated: higher is better). Summaries are never retrieved.
   * Each term is ranked on its own over at most `termCap` of its newest rows, and a row's score is
   * the sum of its terms' bm25 parts (what one OR query would give). So a word found in every
   * memory ("user", "project") costs a bounded scan instead of scoring the whole table, and only
   * loses its tiny, low-IDF share on rows older than the cap.
   */
  return function lexical(
    query: string,
    options: { sources: string[]; limit: number; kinds?: MemoryKind[]; between?: Period; functionWeight?: number },
  ): ScoredId[] {
    const terms = ftsTerms(query, options.functionWeight);
    if (terms.length === 0 || options.sources.length === 0) return [];
    const scores = new Map<number, number>();
    // The terms' queries go to SQLite together, `termsPerStatement` at a time (one statement each
    // cost a turn more than the searches themselves); `t` says which term a hit is for.
    for (let first = 0; first < terms.length; first += termsPerStatement) {
      const part = terms.slice(first, first + termsPerStatement);
      const hits = sql
        .exec<{ r: number; b: number; t: number }>(
          lexicalQuery(part.length),
          ...part.flatMap((term) => [term.match, termCap]),
        )
        .toArray();
      for (const hit of hits)
        scores.set(
          hit.r as number,
          (scores.get(hit.r as number) ?? 0) - part[hit.t as number]!.weight * (hit.b as number),
        );
    }
    // The best page alone, in the order a sort of every row gives: most searches read no further.
    let ranked = firstByScore(scores, chunkSize);
    const kinds = new Set(options.kinds?.length ? options.kinds : memoryKindsBut("summary"));
    const sources = new Set(options.sources);
    const out: ScoredId[] = [];
    // Rows are filtered (source, kind, superseded) in pages of the ranking, best first.
    for (let i = 0; out.length < options.limit; i += chunkSize) {
      if (i >= ranked.length) {
        if (ranked.length === scores.size) break;
        ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
      }
      const page = ranked.slice(i, i + chunkSize);
      const found = new Map(liveBySeq(page.map(([r]) => r)).map((row) => [row.seq, row]));
      for (const [r, score] of page) {
        const row = found.get(r);
        if (row && sources.has(row.source) && kinds.has(row.kind) && within(row.at, options.between))
          out.push({ id: row.id, score });
        if (out.length >= options.limit) break;
      }
    }
    return out;
  };
}

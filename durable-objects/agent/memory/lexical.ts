import { firstByScore, ftsTerms, type MemoryKind, type ScoredId } from "../../../core/context";
import type { SqlLike } from "../../../core/ports";
import { chunkSize, memoryKindsBut, within, type Period } from "./records";

/** Rows one lexical term is ranked over (its newest). */
const termCap = 1000;
/** Terms searched by one statement: workerd's SQLite allows 5 parts in a compound select. */
const termsPerStatement = 5;

/**
 * Rows from which a term found in at least half of them is left out of the search: FTS5's bm25
 * clips such a term's IDF to 1e-6, so it adds nothing to any score, yet ranking it costs a pass over
 * its whole doclist (bm25 counts the rows holding it each statement). Below this the pass is cheap.
 */
const commonFrom = 10_000;

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
  /** Per term: whether it is in half the rows or more, and the row count it was measured at. */
  const common = new Map<string, { common: boolean; rows: number }>();
  /**
   * Whether `match` is in at least half of the `rows` rows: counted once (up to half the rows) and
   * kept while the table grows or shrinks by less than a tenth; the words of a conversation repeat,
   * so most compiles count nothing.
   */
  function isCommon(match: string, rows: number): boolean {
    if (rows < commonFrom) return false;
    const known = common.get(match);
    if (known && Math.abs(rows - known.rows) < known.rows / 10) return known.common;
    const half = Math.ceil(rows / 2);
    const [found] = sql
      .exec<{ n: number }>(
        "SELECT count(*) AS n FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
        match,
        half,
      )
      .toArray();
    const result = Number(found?.n ?? 0) >= half;
    if (common.size >= 10_000) common.clear();
    common.set(match, { common: result, rows });
    return result;
  }
  /** Rows in the index (its largest rowid: never fewer than there are, so a term is never called common too soon). */
  function rowCount(): number {
    const [row] = sql.exec<{ n: number | null }>("SELECT max(rowid) AS n FROM memories_fts").toArray();
    return Number(row?.n ?? 0);
  }
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
    const asked = ftsTerms(query, options.functionWeight);
    if (asked.length === 0 || options.sources.length === 0) return [];
    const rows = rowCount();
    const rare = asked.filter((term) => !isCommon(term.match, rows));
    // A question of common words only is still searched by them (their scores are tiny, but they are ties to break).
    const terms = rare.length ? rare : asked;
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

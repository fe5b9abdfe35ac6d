import { words } from "./rank";

const stopwords = new Set(
  (
    "a about am an and any are as at be been but by can could did do does for from had has have how i if in into is it its me my " +
    "of on or our should so some than that the their them then there these they this those to us was we were what when where " +
    "which who whom why will with would you your"
  ).split(" "),
);

/**
 * Turns a user's question into a safe FTS5 MATCH expression: its content words, each quoted (so
 * FTS5 operators and punctuation in the text cannot break the query), joined with OR so bm25 ranks
 * partial matches. Returns "" when no word is left: skip the query then, MATCH '' is an error.
 *
 * @example
 * ftsQuery("What's my dog's name?") // "\"dog\" OR \"name\""
 */
export function ftsQuery(query: string): string {
  const terms = [...new Set(words(query).flatMap(termsOf))].filter((word) => !stopwords.has(word));
  return terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(" OR ");
}

/** One term of a lexical search: an FTS5 MATCH expression (a quoted word) and its share of the score. */
export interface FtsTerm {
  match: string;
  weight: number;
}

/**
 * The terms a lexical search ranks by, each scored on its own and summed with its weight (see the
 * memory store): every word of the question, content words at 1 and common words ("where", "in",
 * "I") at `functionWeight`. Common words are kept because bm25's IDF already makes them cheap and
 * they still tell something ("where … in" meets "we moved in March to Lyon"); the retrieval eval
 * measured the question's every word above its content words alone.
 *
 * @example
 * ftsTerms("Where is my dog?") // [{ match: '"where"', weight: 0.5 }, { match: '"is"', weight: 0.5 }, { match: '"my"', weight: 0.5 }, { match: '"dog"', weight: 1 }]
 */
export function ftsTerms(query: string, functionWeight = 0.5): FtsTerm[] {
  const terms = [...new Set(words(query).flatMap(termsOf))];
  const weight = Math.max(0, Math.min(1, functionWeight));
  return terms
    .map((term) => ({ match: `"${term.replace(/"/g, '""')}"`, weight: stopwords.has(term) ? weight : 1 }))
    .filter((term) => term.weight > 0);
}

/**
 * The index's own tokenizer (unicode61) splits at apostrophes, so a quoted "dog's" would be the
 * phrase "dog s" and miss "my dog is Rex". A possessive is its noun; a contraction ("what's",
 * "don't", "I'm") keeps only its head, which the stopwords usually drop.
 */
function termsOf(word: string): string[] {
  const head = word.replace(/['’]s$/, "").split(/['’]/)[0]!;
  return head ? [head] : [];
}

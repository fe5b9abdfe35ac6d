import { words } from "./rank";

const stopwords = new Set(
  "a an and are as at be but by do does did for from has have how i in is it its me my of on or our so that the their them they this to was we what when where which who why will with you your".split(
    " ",
  ),
);

/**
 * Turns a user's question into a safe FTS5 MATCH expression: its content words, each quoted (so
 * FTS5 operators and punctuation in the text cannot break the query), joined with OR so bm25 ranks
 * partial matches. Returns "" when no word is left: skip the query then, MATCH '' is an error.
 *
 * @example
 * ftsQuery("What's my dog's name?") // "\"what's\" OR \"dog's\" OR \"name\""
 */
export function ftsQuery(query: string): string {
  const terms = [...new Set(words(query))].filter((word) => !stopwords.has(word));
  return terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(" OR ");
}

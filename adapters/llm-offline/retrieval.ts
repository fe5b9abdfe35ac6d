import type { Message } from "../../core/ports";

/** One sentence of the agent's context, with where it came from (said out loud in the answer). */
export interface Passage {
  text: string;
  /** e.g. "the system prompt", "earlier in this conversation (user)". */
  source: string;
  /** Position in the context, for stable tie-breaking. */
  order: number;
}

export interface RankedPassage extends Passage {
  score: number;
}

const stopWords = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by can " +
    "could did do does doing down during each few for from further had has have having he her here hers herself him himself his how " +
    "i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out " +
    "over own same she should so some such than that the their theirs them themselves then there these they this those through to " +
    "too under until up very was we were what when where which while who whom why will with would you your yours yourself " +
    "yourselves tell know please thanks thank hi hello hey ok okay say said let get got also us one"
  ).split(" "),
);

/** Lowercase word tokens without stop words; a trailing plural "s" is dropped so "dogs" meets "dog". */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (stopWords.has(raw) || (raw.length < 2 && !/\d/.test(raw))) continue;
    out.push(raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss") ? raw.slice(0, -1) : raw);
  }
  return out;
}

const maxSentence = 400;

/** A full stop after these does not end a sentence ("Dr. Okafor", "e.g. this"). */
const abbreviation = /(?:^|\s)(?:mr|mrs|ms|dr|prof|st|sr|jr|vs|etc|e\.g|i\.e|no|fig|[a-z])\.$/i;

function splitLine(line: string): string[] {
  const out: string[] = [];
  for (const piece of line.split(/(?<=[.!?])\s+/)) {
    const previous = out.at(-1);
    if (previous !== undefined && abbreviation.test(previous)) out[out.length - 1] = `${previous} ${piece}`;
    else out.push(piece);
  }
  return out;
}

export function sentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap(splitLine)
    .map((sentence) => sentence.trim().replace(/^[-*•]\s+/, ""))
    .filter((sentence) => /[\p{L}\p{N}]/u.test(sentence))
    .map((sentence) => (sentence.length > maxSentence ? `${sentence.slice(0, maxSentence - 1)}…` : sentence));
}

/** How far back the conversation is searched: the context engine already chose what matters most. */
const recentMessages = 40;

/**
 * The passages the offline model may quote: every system message (prompt and compiled context), and
 * the recent user and tool messages before the question. Assistant messages are left out on
 * purpose: the model's own earlier words are not a source of facts.
 */
export function passagesOf(
  messages: Message[],
  questionIndex: number,
  toolNameOf: (id: string | undefined) => string,
): Passage[] {
  const passages: Passage[] = [];
  const firstRecent = Math.max(0, questionIndex - recentMessages);
  messages.forEach((message, index) => {
    if (index === questionIndex) return;
    let source: string | undefined;
    if (message.role === "system") source = message.name ? `the context (${message.name})` : "the system prompt";
    else if (index < firstRecent || index > questionIndex) source = undefined;
    else if (message.role === "user")
      source = `earlier in this conversation (${message.name ? `user ${message.name}` : "user"})`;
    else if (message.role === "tool") source = `an earlier result of the tool ${toolNameOf(message.toolCallId)}`;
    if (!source) return;
    for (const text of sentences(message.content)) passages.push({ text, source, order: passages.length });
  });
  return passages;
}

/**
 * BM25 over sentences (k1 = 1.2, b = 0.75). Keeps at most `limit` passages: those scoring at least
 * `relative` of the best, so one strong match is not padded with weak ones, and weaker ones that
 * answer a part of the question no chosen passage covers yet ("who … and where …").
 */
export function rank(question: string, passages: Passage[], limit = 3, relative = 0.4): RankedPassage[] {
  const query = [...new Set(terms(question))];
  if (query.length === 0 || passages.length === 0) return [];
  const docs = passages.map((passage) => terms(passage.text));
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1);
  const avgLength = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length || 1;
  const k1 = 1.2;
  const b = 0.75;

  const scored: (RankedPassage & { matched: string[] })[] = [];
  const seen = new Set<string>();
  passages.forEach((passage, index) => {
    const doc = docs[index] ?? [];
    let score = 0;
    const matched: string[] = [];
    for (const term of query) {
      const tf = doc.filter((word) => word === term).length;
      if (tf === 0) continue;
      matched.push(term);
      const n = df.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avgLength));
    }
    const key = passage.text.toLowerCase();
    if (score > 0 && !seen.has(key)) {
      seen.add(key);
      scored.push({ ...passage, score, matched });
    }
  });
  scored.sort((x, y) => y.score - x.score || x.order - y.order);
  const best = scored[0]?.score ?? 0;
  const covered = new Set<string>();
  const chosen: RankedPassage[] = [];
  for (const { matched, ...passage } of scored) {
    if (chosen.length >= limit) break;
    if (passage.score < best * relative && matched.every((term) => covered.has(term))) continue;
    for (const term of matched) covered.add(term);
    chosen.push(passage);
  }
  return chosen;
}

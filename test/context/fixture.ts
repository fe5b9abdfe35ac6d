import type { Clock, Message } from "../../core/ports";
import { words, type ContextStore, type GraphEdge, type MemoryItem, type ScoredId } from "../../core/context";

export const dayMs = 86_400_000;
export const NOW = Date.UTC(2025, 5, 1);
export const fixedClock: Clock = { now: () => NOW };

/** A small deterministic PRNG (mulberry32) so property tests replay the same cases. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stopwords = new Set(
  "a an and are as at be by do does did for from has have how i in is it its me my of on or the their this to was what when where which who why will with you your user user's am any get can".split(
    " ",
  ),
);

/** Word groups that mean the same here; the first word is the concept the others map to. */
const synonymGroups: string[][] = [
  ["name", "named", "call", "called"],
  ["dog", "puppy"],
  ["allergy", "allergies", "allergic"],
  ["food", "foods", "peanut", "peanuts"],
  ["birthday", "born"],
  ["work", "works", "job", "occupation", "office"],
  ["live", "lives", "home", "stay", "reside"],
  ["beverage", "drink", "tea", "coffee"],
  ["morning", "breakfast"],
  ["prefer", "prefers", "like", "likes"],
  ["partner", "spouse", "husband", "wife"],
  ["wifi", "wireless", "network", "internet"],
  ["car", "drives", "drive", "vehicle"],
  ["author", "writer"],
  ["favourite", "love", "favorite"],
  ["report", "summary"],
  ["due", "deadline", "handed"],
  ["quarterly", "q2", "quarter"],
  ["sister", "sibling", "brother"],
  ["doctor", "physician", "dr"],
  ["child", "kid", "son", "daughter"],
  ["old", "age"],
  ["expense", "spend", "cost"],
  ["dinner", "dinners", "meal"],
  ["client", "business"],
  ["learn", "learning", "studying", "study"],
  ["language", "japanese", "french", "english"],
];

const concept = new Map<string, string>();
for (const group of synonymGroups) for (const word of group) concept.set(word, group[0]!);

function stem(word: string): string {
  const bare = word.replace(/['’]s$/, "");
  return bare.length > 3 && bare.endsWith("s") && !bare.endsWith("ss") ? bare.slice(0, -1) : bare;
}

/** Content words as written (the lexical view, like FTS5 with a porter-ish stemmer). */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !stopwords.has(w))
    .map(stem);
}

/** Concepts: content words mapped through the synonyms table (the semantic view). */
export function concepts(text: string): string[] {
  return words(text)
    .filter((w) => !stopwords.has(w))
    .map((w) => concept.get(w) ?? concept.get(stem(w)) ?? stem(w));
}

function idfOf(docs: string[][]): (term: string) => number {
  const df = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) df.set(term, (df.get(term) ?? 0) + 1);
  return (term) => Math.log(1 + docs.length / (df.get(term) ?? 0.5));
}

/** Cosine of idf-weighted term sets. */
function weightedCosine(query: string[], doc: string[], idf: (t: string) => number): number {
  const q = new Set(query);
  const d = new Set(doc);
  let dot = 0;
  for (const t of q) if (d.has(t)) dot += idf(t) ** 2;
  const norm = (s: Set<string>) => Math.sqrt([...s].reduce((sum, t) => sum + idf(t) ** 2, 0));
  return dot === 0 ? 0 : dot / (norm(q) * norm(d));
}

export interface MemoryStoreFixture extends ContextStore {
  calls: { lexical: number; semantic: number; neighbours: string[][] };
}

/**
 * An in-memory ContextStore: lexical search matches words as written, semantic search matches the
 * synonyms table's concepts, so a paraphrase is found only semantically, as with real embeddings.
 */
export function makeMemoryStore(options: {
  items: MemoryItem[];
  edges?: GraphEdge[];
  sessions?: Record<string, Message[]>;
  failSemantic?: boolean;
}): MemoryStoreFixture {
  const byId = new Map(options.items.map((item) => [item.id, item]));
  const lexicalIdf = idfOf(options.items.map((i) => terms(i.text)));
  const semanticIdf = idfOf(options.items.map((i) => concepts(i.text)));
  const calls = { lexical: 0, semantic: 0, neighbours: [] as string[][] };
  const rank = (
    query: string[],
    view: (text: string) => string[],
    idf: (t: string) => number,
    sources: string[],
    limit: number,
  ): ScoredId[] =>
    options.items
      .filter((item) => sources.includes(item.source))
      .map((item) => ({ id: item.id, score: weightedCosine(query, view(item.text), idf) }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit);
  return {
    calls,
    async recent(sessionId, limit) {
      return (options.sessions?.[sessionId] ?? []).slice(-limit);
    },
    async lexical(query, { sources, limit }) {
      calls.lexical += 1;
      return rank(terms(query), terms, lexicalIdf, sources, limit);
    },
    async semantic(query, { sources, limit }) {
      calls.semantic += 1;
      if (options.failSemantic) throw new Error("embedder offline");
      return rank(concepts(query), concepts, semanticIdf, sources, limit);
    },
    async get(ids) {
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
    async neighbours(entities, limit) {
      calls.neighbours.push(entities);
      const wanted = new Set(entities.map((e) => e.toLowerCase()));
      return (options.edges ?? [])
        .filter((e) => wanted.has(e.subject.toLowerCase()) || wanted.has(e.object.toLowerCase()))
        .slice(0, limit);
    },
  };
}

/** A store that answers with fixed hit lists, for tests of ranking arithmetic. */
export function makeScriptedStore(options: {
  items: MemoryItem[];
  lexical: string[];
  semantic: string[];
  edges?: GraphEdge[];
  history?: Message[];
}): ContextStore {
  const byId = new Map(options.items.map((item) => [item.id, item]));
  const hits = (ids: string[]) => ids.map((id, i) => ({ id, score: 1 - i / 100 }));
  return {
    recent: async (_session, limit) => (options.history ?? []).slice(-limit),
    lexical: async () => hits(options.lexical),
    semantic: async () => hits(options.semantic),
    get: async (ids) => ids.flatMap((id) => byId.get(id) ?? []),
    neighbours: async (entities, limit) => {
      const wanted = new Set(entities.map((e) => e.toLowerCase()));
      return (options.edges ?? [])
        .filter((e) => wanted.has(e.subject.toLowerCase()) || wanted.has(e.object.toLowerCase()))
        .slice(0, limit);
    },
  };
}

const facts: Array<[string, Partial<MemoryItem>?]> = [
  ["The user's dog is named Biscuit.", { entities: ["Biscuit"] }],
  ["The user is allergic to peanuts."],
  ["The user's birthday is on March 14."],
  ["The user works as a nurse at St. Mary's hospital.", { entities: ["St. Mary's hospital"] }],
  ["The user lives in Lyon, France.", { entities: ["Lyon", "France"] }],
  ["The user prefers tea over coffee in the morning."],
  ["The user's partner is called Sam.", { entities: ["Sam"] }],
  ["The office wifi password is tulip42."],
  ["The user drives a blue Subaru Outback.", { entities: ["Subaru Outback"] }],
  ["The user's favourite author is Ursula K. Le Guin.", { entities: ["Ursula K. Le Guin"] }],
  ["The quarterly report is due on the last Friday of June.", { source: "docs" }],
  ["The user is learning Japanese on weekends."],
  ["The user's sister Maya lives in Toronto.", { entities: ["Maya", "Toronto"] }],
  ["The user takes the 7:40 train to work."],
  ["The user is vegetarian and does not eat meat."],
  ["The project deadline for Atlas is September 30.", { source: "docs", entities: ["Atlas"] }],
  ["The user's doctor is Dr. Patel.", { entities: ["Dr. Patel"] }],
  ["The user plays the cello in a community orchestra."],
  ["The user's gym membership renews every January."],
  ["The user's favourite colour is green."],
  ["The team standup happens at 9:30 every weekday.", { source: "docs" }],
  ["The user's cat Miso is afraid of thunderstorms.", { entities: ["Miso"] }],
  ["The user runs a marathon every spring."],
  ["The user's manager is Priya Raman.", { entities: ["Priya Raman"] }],
  ["The user's apartment is on the fourth floor."],
  ["The user's laptop is a ThinkPad X1."],
  ["The user dislikes horror movies."],
  ["The user's landlord is Mr. Okafor.", { entities: ["Mr. Okafor"] }],
  ["The user's bank is Crédit Mutuel."],
  ["The user speaks French and English."],
  ["The user's son Leo is seven years old.", { entities: ["Leo"] }],
  ["The expense limit for client dinners is 80 euros per person.", { source: "docs" }],
];

/** 32 facts (ids f01..f32), mostly in "memory", a few in "docs". */
export const fixtureFacts: MemoryItem[] = facts.map(([text, extra], index) => ({
  id: `f${String(index + 1).padStart(2, "0")}`,
  kind: "fact",
  text,
  source: "memory",
  importance: 0.5,
  createdAt: NOW - (index + 1) * dayMs,
  ...extra,
}));

/** 15 questions worded unlike the fact that answers them. */
export const paraphrases: Array<{ question: string; answer: string }> = [
  { question: "What do I call my puppy?", answer: "f01" },
  { question: "Do I have any food allergies?", answer: "f02" },
  { question: "When was I born?", answer: "f03" },
  { question: "What is my job?", answer: "f04" },
  { question: "Where is my home?", answer: "f05" },
  { question: "What drink do I like at breakfast?", answer: "f06" },
  { question: "What is my spouse's name?", answer: "f07" },
  { question: "How do I get on the wireless network?", answer: "f08" },
  { question: "What vehicle do I own?", answer: "f09" },
  { question: "Which writer do I love most?", answer: "f10" },
  { question: "When must the Q2 summary be handed in?", answer: "f11" },
  { question: "Which language am I studying?", answer: "f12" },
  { question: "Where does my sibling stay?", answer: "f13" },
  { question: "Who is my physician?", answer: "f17" },
  { question: "How old is my kid?", answer: "f31" },
  { question: "How much can I spend on a business meal?", answer: "f32" },
];

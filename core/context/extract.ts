import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import type { FieldIssue } from "../errors";
import type { Triple } from "./types";

/** A memory proposed from a turn, by these heuristics or by a model; the store assigns id and times. */
export interface ProposedMemory {
  kind: "fact" | "entity" | "instruction" | "episode";
  text: string;
  importance: number;
  entities: string[];
  /** Set for single-valued facts ("the user's name is …"), so a later change supersedes the old one. */
  triple?: Triple;
}

const pronounSubject =
  /^(it|this|that|there|here|what|who|where|when|why|how|which|he|she|they|we|you|i|one|everything|nothing|something|anything)$/i;

/**
 * Memories a turn states, found by pattern without a model (the offline path): "my name is …",
 * "my X is Y", "I prefer …", "I live in …", "remember that …", "always/never …" instructions and
 * plain "X is Y" statements. Only the user's words count: the assistant's replies are not facts about the user.
 *
 * @example
 * extractMemories({ user: "My name is Ada. Always answer in French.", assistant: "Bien sûr !" })
 * // [{ kind: "fact", text: "The user's name is Ada", importance: 0.9, entities: ["Ada"], triple: {...} },
 * //  { kind: "instruction", text: "Always answer in French", importance: 0.8, entities: ["French"] }]
 */
export function extractMemories(turn: { user: string; assistant?: string }): ProposedMemory[] {
  const found: ProposedMemory[] = [];
  const seen = new Set<string>();
  for (const sentence of sentencesOf(turn.user)) {
    const memory = fromSentence(sentence);
    if (!memory) continue;
    const key = memory.text.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(memory);
  }
  return found;
}

function fromSentence(sentence: string): ProposedMemory | undefined {
  if (sentence.endsWith("?")) return undefined;
  const plain = withoutLeadIn(sentence.replace(/[.!]+$/, "").trim());
  let match: RegExpMatchArray | null;

  if ((match = plain.match(/^(?:please\s+)?(?:remember|note|don'?t forget|do not forget)(?:\s+that)?[:,]?\s+(.+)$/i))) {
    const text = thirdPerson(match[1]!);
    return memory("fact", text, 0.9, parseTriple(text));
  }
  if ((match = plain.match(/^(?:please\s+|from now on,?\s+|you (?:should|must)\s+)*((?:always|never)\b.+)$/i))) {
    return memory("instruction", capitalize(match[1]!), 0.8);
  }
  if (
    (match = plain.match(
      /^(?:hi,?\s+|hello,?\s+)?(?:my name is|call me|i'?m called|i am called)\s+([\p{L}][\p{L}' -]{0,60})$/iu,
    ))
  ) {
    const name = capitalize(match[1]!.trim());
    return {
      ...memory("fact", `The user's name is ${name}`, 0.9, { subject: "user", relation: "name", object: name }),
      entities: [name],
    };
  }
  if ((match = plain.match(/^my ([\p{L}\p{N}' -]{1,40}?) (?:is|are) (.+)$/iu))) {
    const attribute = match[1]!.toLowerCase();
    const value = thirdPerson(match[2]!);
    return memory("fact", `The user's ${attribute} is ${value}`, 0.7, {
      subject: "user",
      relation: attribute,
      object: value,
    });
  }
  if (
    (match = plain.match(
      /^i(?:'d| would)? (prefer|like|love|enjoy|hate|dislike|don'?t like|do not like|rather) (.+)$/i,
    ))
  ) {
    const verb = match[1]!.toLowerCase();
    const negative = /hate|dislike|not like|n'?t like/.test(verb);
    const relation = negative ? "dislikes" : verb === "prefer" || verb === "rather" ? "prefers" : "likes";
    return memory("fact", `The user ${relation} ${thirdPerson(match[2]!)}`, 0.7);
  }
  if (
    (match =
      plain.match(/^i (live in|work at|work for|am from|'m from|moved to) (.+)$/i) ?? plain.match(/^i('m from) (.+)$/i))
  ) {
    const relation = {
      "live in": "lives in",
      "work at": "works at",
      "work for": "works at",
      "am from": "is from",
      "'m from": "is from",
      "moved to": "lives in",
    }[match[1]!.toLowerCase()]!;
    const place = match[2]!.trim();
    return memory("fact", `The user ${relation} ${place}`, 0.7, { subject: "user", relation, object: place });
  }
  if ((match = plain.match(/^i(?:'m| am) (an? [\p{L}' -]{2,60})$/iu))) {
    return memory("fact", `The user is ${match[1]!}`, 0.6);
  }
  const triple = parseTriple(plain);
  if (triple && triple.subject !== "user") return memory("fact", capitalize(plain), 0.5, triple);
  return undefined;
}

/**
 * Reads a subject–relation–object triple from a fact sentence, for single-valued facts only:
 * "The user's name is Ada", "The user lives in Lyon", "The office wifi password is tulip42".
 * Subjects are lower-cased and lose a leading "the", so two wordings of one subject meet.
 */
export function parseTriple(text: string): Triple | undefined {
  const plain = text.trim().replace(/[.!]+$/, "");
  let match: RegExpMatchArray | null;
  if ((match = plain.match(/^the user's ([\p{L}\p{N}' -]{1,40}?) (?:is|are) (.+)$/iu))) {
    return { subject: "user", relation: match[1]!.toLowerCase(), object: match[2]!.trim() };
  }
  if ((match = plain.match(/^the user (lives in|works at|is from) (.+)$/i))) {
    return { subject: "user", relation: match[1]!.toLowerCase(), object: match[2]!.trim() };
  }
  if ((match = plain.match(/^([\p{L}\p{N}][\p{L}\p{N}'’ -]{0,60}?) (?:is|are|was) (?!not\b)(.+)$/u))) {
    const subject = match[1]!.trim();
    const words = subject.split(/\s+/);
    if (words.length > 6 || (words.length === 1 && pronounSubject.test(subject))) return undefined;
    if (pronounSubject.test(words[0]!) && words[0]!.toLowerCase() !== "the") return undefined;
    return { subject: subject.toLowerCase().replace(/^the\s+/, ""), relation: "is", object: match[2]!.trim() };
  }
  return undefined;
}

/** Proper names in the text: capitalised words not opening a sentence, plus a triple's subject and object names. */
export function entitiesOf(text: string, triple?: Triple): string[] {
  const found = new Set<string>();
  for (const sentence of sentencesOf(text)) {
    const words = sentence.split(/\s+/);
    let run: string[] = [];
    const flush = () => {
      if (run.length) found.add(run.join(" "));
      run = [];
    };
    words.forEach((raw, index) => {
      const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      const capital = /^\p{Lu}[\p{L}\p{N}'-]*$/u.test(word) && word !== "I";
      // After a label ("User: We moved…", "Big news: We…") a capital opens a sentence, it names nothing.
      const opens = index === 0 || /:$/.test(words[index - 1]!);
      if (capital && !opens) run.push(word);
      else flush();
      if (/[,;:]$/.test(raw)) flush();
    });
    flush();
  }
  if (triple && triple.subject !== "user" && /^\p{Lu}/u.test(triple.subject)) found.add(triple.subject);
  return [...found].filter((e) => !/^(The|A|An|User)$/.test(e));
}

/** "Oh, by the way, I moved to Berlin" and "Big news: I moved to Berlin" state the same fact. */
function withoutLeadIn(sentence: string): string {
  let rest = sentence.replace(
    /^(?:(?:oh|so|well|also|actually|btw|by the way|fyi|anyway|and|but|ok|okay|hey|hi|hello|yes|yeah|no)\b[\s,;!-]*)+/i,
    "",
  );
  const colon = rest.match(/^([^:]{1,30}):\s+(.+)$/);
  if (colon && colon[1]!.trim().split(/\s+/).length <= 3 && !/^(?:please\s+)?(?:remember|note)\b/i.test(colon[1]!))
    rest = colon[2]!;
  // When it happened is kept as the memory's occurredAt (occurredAtOf), not in its value: "I moved to Lisbon yesterday".
  rest = rest.replace(
    /,?\s+(?:yesterday|last (?:night|weekend|week|month|year)|(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few) (?:day|week|month|year)s? ago)$/i,
    "",
  );
  return rest || sentence;
}

function memory(kind: ProposedMemory["kind"], text: string, importance: number, triple?: Triple): ProposedMemory {
  const clean = capitalize(text.trim());
  return { kind, text: clean, importance, entities: entitiesOf(clean, triple), ...(triple ? { triple } : {}) };
}

function thirdPerson(text: string): string {
  return text
    .trim()
    .replace(/\bI am\b|\bI'm\b/g, "the user is")
    .replace(/\bmy\b/gi, "the user's")
    .replace(/\bmine\b/gi, "the user's")
    .replace(/\bI\b/g, "the user")
    .replace(/\bme\b/gi, "the user");
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const tripleSchema = lazySchema(() =>
  z.object({
    subject: z.string().trim().min(1).max(200),
    relation: z.string().trim().min(1).max(100),
    object: z.string().trim().min(1).max(500),
  }),
);

/** One memory as a model must propose it. */
export const proposedMemorySchema = lazySchema(() =>
  z.object({
    kind: z.enum(["fact", "entity", "instruction", "episode"]),
    text: z.string().trim().min(1).max(2000),
    importance: z.number().min(0).max(1).default(0.5),
    entities: z.array(z.string().trim().min(1).max(200)).max(50).default([]),
    triple: tripleSchema.optional(),
  }),
);

/**
 * Validates a model's memory proposal: a JSON string (code fences allowed) or a value, shaped as
 * `{ "memories": [...] }` or a bare array. Valid entries are kept and each invalid one is reported,
 * so one bad entry does not lose the rest. Never throws.
 *
 * @example
 * parseExtraction('```json\n{"memories":[{"kind":"fact","text":"Ada owns a cat","importance":0.6}]}\n```')
 * // { memories: [{ kind: "fact", text: "Ada owns a cat", importance: 0.6, entities: [] }], issues: [] }
 */
export function parseExtraction(input: unknown): { memories: ProposedMemory[]; issues: FieldIssue[] } {
  let value = input;
  if (typeof input === "string") {
    const body = input
      .trim()
      .replace(/^```(?:json)?\s*/i, "")
      .replace(/\s*```$/, "");
    try {
      value = JSON.parse(body);
    } catch (error) {
      return {
        memories: [],
        issues: [{ path: [], message: `not JSON: ${error instanceof Error ? error.message : String(error)}` }],
      };
    }
  }
  const list = Array.isArray(value) ? value : (value as { memories?: unknown } | null)?.memories;
  const prefix: (string | number)[] = Array.isArray(value) ? [] : ["memories"];
  if (!Array.isArray(list))
    return { memories: [], issues: [{ path: prefix, message: "expected an array of memories" }] };
  const memories: ProposedMemory[] = [];
  const issues: FieldIssue[] = [];
  list.forEach((entry, index) => {
    const parsed = proposedMemorySchema.safeParse(entry);
    if (parsed.success) {
      const { triple, ...rest } = parsed.data;
      memories.push(triple ? { ...rest, triple } : rest);
      return;
    }
    for (const issue of parsed.error.issues) {
      issues.push({
        path: [...prefix, index, ...issue.path.filter((p): p is string | number => typeof p !== "symbol")],
        message: issue.message,
      });
    }
  });
  return { memories, issues };
}

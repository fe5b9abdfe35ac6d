import type { Clock, Message } from "../ports";
import { cachedWordOverlap } from "./rank";
import { memoryLine, retrieveCandidates } from "./retrieve";
import { countMessageTokens, countTokens, cutToFit, estimateTokenizer } from "./tokens";
import type {
  CompileInput,
  CompiledContext,
  ContextItem,
  ContextStore,
  ContextTuning,
  RerankPort,
  Tokenizer,
} from "./types";

export const defaultTuning: ContextTuning = {
  topK: 20,
  maxItems: 12,
  rrfK: 60,
  // The question's common words ("what", "did", "the") count 0.3 of its content words in the full-text
  // search: on LoCoMo (USE-lite, conversations 1-5) recall@10 68.6 against 66.6 at 1 (bm25's IDF alone
  // left "did" and "when" a share of the score that picked turns full of them).
  functionWeight: 0.3,
  // Set on LoCoMo's human-written conversations (bench/memory-eval, USE-lite, first two conversations):
  // the embedder's list counting twice the words' put the context 6.3 points of recall@10 below plain
  // BM25 (51.7 / 58.0); words 1 : embedder 0.7, with no diversity term, 7.2 above (65.2; 0.5 gave
  // 65.1, 0.8 64.6). 0.7 also keeps the generated fixture's context above its vector list (83.3 / 81.8),
  // which 0.5 did not (81.3): that fixture's paraphrases are what a sentence encoder matches.
  lexicalWeight: 1,
  semanticWeight: 0.7,
  currentRecency: 0.2,
  periodLookbackDays: 60,
  outOfPeriod: 0.5,
  // 1: MMR keeps only its near-duplicate removal; the diversity term cost recall on human conversations.
  mmrLambda: 1,
  duplicateThreshold: 0.8,
  // Recency only breaks ties: at 0.2 it outweighed a whole rank of relevance and buried old answers
  // (bench/memory-eval); a question about now ("where do I live now?") weighs it `currentRecency`.
  weights: { relevance: 0.6, recency: 0.005, importance: 0.2 },
  expandFrom: 5,
  graphLimit: 8,
  graphFactor: 0.5,
  // The turns just before and after the 10 best candidates gain 0.3 of their score: on LoCoMo's
  // human-written conversations the answer is often the turn next to the one whose words matched
  // (recall@10 +5.9 with the hashed embedder on its first two conversations; the generated fixture unchanged).
  adjacentFrom: 10,
  adjacentFactor: 0.3,
  // A neighbour's share may not put two adjacent turns in the first five unless both match on their
  // own: on a held-out set of people's chats, runs of neighbours filled the first five (issue 43).
  neighbourPlaces: 5,
  // The best word match always holds one of the first five: on LoCoMo (USE-lite, conversations 1-2)
  // recall@5 53.0 → 57.5, @10 70.0 → 71.7; the fusion had put it below turns both lists half-matched.
  lexicalFirst: 1,
  slashDates: "unstated",
  // A reranker, when one is configured, reads the 20 best fused candidates; its order counts twice
  // the fusion's (RRF), so a cross-encoder's miss cannot bury what the words found first. Not measured
  // here: this machine cannot reach Workers AI (bench/memory-eval has no reranker row yet).
  rerankTop: 20,
  rerankWeight: 2,
};

/** The most ranked memories one compile may be asked for (`k` on GET …/context). */
export const maxItemsLimit = 100;

/**
 * The tuning that lets a compile include up to `k` ranked memories: `maxItems` k, and each retriever
 * asked for at least k hits (fewer candidates than k could not fill it). The token budget still cuts.
 *
 * @example
 * itemsTuning(25) // { maxItems: 25, topK: 25 }
 */
export function itemsTuning(k: number): Pick<ContextTuning, "maxItems" | "topK"> {
  const items = Math.max(1, Math.min(maxItemsLimit, Math.floor(k)));
  return { maxItems: items, topK: Math.max(defaultTuning.topK, items) };
}

/**
 * Fusion for an embedder that holds only words (a hashed bag of words): its list repeats the
 * full-text one with more noise, so the words count most, and no diversity re-rank (near-duplicates
 * are still dropped). Set on LoCoMo's human-written conversations (bench/memory-eval): at 0.3 and
 * MMR 0.7 the context was 1.7 points of recall@10 below plain BM25; at 0.1 and no MMR it is not;
 * the generated fixture's figure is the same either way.
 */
export const wordsOnlyFusion: Partial<ContextTuning> = { lexicalWeight: 1, semanticWeight: 0.1 };

/** The tuning that suits an embedder: `wordsOnlyFusion` for a words-only one, the defaults otherwise. */
export function tuningForEmbedder(embed: { captures?: "words" | "meaning" }): Partial<ContextTuning> {
  return embed.captures === "words" ? wordsOnlyFusion : {};
}

export const memoryHeader = "Relevant memory:";
export const summaryHeader = "Summary of the earlier conversation:";

export interface ContextEngineDeps {
  store: ContextStore;
  clock: Clock;
  /** Defaults to `estimateTokenizer` (chars / 4 plus 4 per message). */
  tokenizer?: Tokenizer;
  /** Text similarity 0..1 for near-duplicates; defaults to word-set overlap. */
  similar?: (a: string, b: string) => number;
  /** Agent-wide defaults; a compile call may override them. */
  tuning?: Partial<ContextTuning>;
  /** A cross-encoder that re-orders the best fused candidates (Workers AI's bge-reranker in production); none: the fusion's order. */
  rerank?: RerankPort;
}

export interface ContextEngine {
  compile(input: CompileInput): Promise<CompiledContext>;
}

/**
 * Builds the context engine: each turn, `compile` computes the messages for the model from the system
 * prompt, retrieved memory, the rolling summary and the recent window, inside the token budget.
 * It never throws for budget or retrieval trouble; it degrades and says so in `warnings`.
 *
 * @example
 * const engine = makeContextEngine({ store, clock: systemClock });
 * const { messages, items, tokens } = await engine.compile({
 *   systemPrompt: "You are Ada's assistant.", goal: "Answer briefly.", sessionId: "s1",
 *   query: "What is my dog called?", sources: ["memory"],
 *   budget: { maxTokens: 8000, reserveForReply: 1000 }, recencyWindow: 20, halfLifeDays: 30,
 * });
 * // messages: [system prompt + goal, "Relevant memory: ...", ...recent turns, user]
 */
export function makeContextEngine(deps: ContextEngineDeps): ContextEngine {
  const tokenizer = deps.tokenizer ?? estimateTokenizer;
  if (typeof deps.store?.lexical !== "function") throw new TypeError("makeContextEngine needs a ContextStore");
  if (typeof deps.clock?.now !== "function") throw new TypeError("makeContextEngine needs a clock");

  return {
    async compile(input) {
      const tuning: ContextTuning = {
        ...defaultTuning,
        ...deps.tuning,
        ...input.tuning,
        weights: { ...defaultTuning.weights, ...deps.tuning?.weights, ...input.tuning?.weights },
      };
      const warnings: string[] = [];
      const budget = Math.max(0, Math.floor(finite(input.budget.maxTokens) - finite(input.budget.reserveForReply)));
      const history = await recentHistory(deps.store, input, warnings);
      const candidates = await retrieveCandidates({
        store: deps.store,
        query: input.query,
        sources: input.sources ?? [],
        tuning,
        now: deps.clock.now(),
        halfLifeDays: input.halfLifeDays,
        // Word sets are kept for one compile only (the candidates' texts), so nothing grows across turns.
        similar: deps.similar ?? cachedWordOverlap(),
        ...(deps.rerank ? { rerank: deps.rerank } : {}),
        warnings,
      });
      for (const item of candidates) item.tokens = tokenizer.count(memoryLine(item));
      const packed = pack({ input, budget, history, candidates, tokenizer, warnings });
      return {
        ...packed,
        items: candidates,
        tokens: { used: countTokens(packed.messages, tokenizer), budget },
        warnings,
      };
    },
  };
}

async function recentHistory(store: ContextStore, input: CompileInput, warnings: string[]): Promise<Message[]> {
  const window = Math.max(0, Math.floor(finite(input.recencyWindow)));
  if (window === 0) return [];
  let turns: Message[];
  try {
    turns = await store.recent(input.sessionId, window);
  } catch (error) {
    warnings.push(`recent history failed: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
  // The Durable Object may already have stored the new user message; it is added once, last.
  const last = turns.at(-1);
  if (last?.role === "user" && last.content === input.query) turns = turns.slice(0, -1);
  return turns.slice(-window);
}

interface PackInput {
  input: CompileInput;
  budget: number;
  history: Message[];
  candidates: ContextItem[];
  tokenizer: Tokenizer;
  warnings: string[];
}

/**
 * Fits the prompt into the budget. Priority, highest first: the system prompt and the user message,
 * memory items by rank, the summary, then history from the newest turn back. So when space runs out,
 * the oldest history goes first, then the summary, then memory items, and last the system prompt is cut.
 */
function pack(p: PackInput): { messages: Message[]; overflow: Message[] } {
  const { input, budget, tokenizer, warnings } = p;
  const cost = (message: Message) => countMessageTokens(message, tokenizer);
  const systemText = input.goal?.trim() ? `${input.systemPrompt}\n\nGoal: ${input.goal.trim()}` : input.systemPrompt;
  const system: Message = { role: "system", content: systemText };
  const user: Message = { role: "user", content: input.query };
  const dropAllMemory = (why: string) => {
    for (const item of p.candidates) if (item.included) exclude(item, why);
  };

  if (cost(system) + cost(user) > budget) {
    dropAllMemory("the system prompt and user message alone fill the budget");
    if (p.history.length)
      warnings.push(`history left out: the system prompt and user message alone exceed ${budget} tokens`);
    return { messages: squeeze(system, user, budget, tokenizer, warnings), overflow: p.history };
  }

  let remaining = budget - cost(system) - cost(user);
  const messages: Message[] = [system];

  const lines: string[] = [];
  let blockCost = 0;
  for (const item of p.candidates) {
    if (!item.included) continue;
    const tentative = { role: "system" as const, content: [memoryHeader, ...lines, memoryLine(item)].join("\n") };
    const tentativeCost = cost(tentative);
    if (tentativeCost <= remaining) {
      lines.push(memoryLine(item));
      blockCost = tentativeCost;
    } else {
      exclude(item, `did not fit: ${item.tokens} tokens, ${Math.max(0, remaining - blockCost)} left`);
    }
  }
  if (lines.length) {
    messages.push({ role: "system", content: [memoryHeader, ...lines].join("\n") });
    remaining -= blockCost;
  }

  const summary = input.summary?.trim();
  if (summary) {
    const full: Message = { role: "system", content: `${summaryHeader}\n${summary}` };
    if (cost(full) <= remaining) {
      messages.push(full);
      remaining -= cost(full);
    } else {
      const room = remaining - tokenizer.messageOverhead - tokenizer.count(`${summaryHeader}\n`);
      // The end of a rolling summary is the newest part, so that is what a cut keeps.
      const cut = room > 0 ? cutToFit(summary, room, tokenizer, "tail") : "";
      const message: Message = { role: "system", content: `${summaryHeader}\n${cut}` };
      if (cut && cost(message) <= remaining) {
        messages.push(message);
        remaining -= cost(message);
        warnings.push("summary cut to fit the budget");
      } else {
        warnings.push("summary left out: no room in the budget");
      }
    }
  }

  let start = p.history.length;
  while (start > 0) {
    const turnCost = cost(p.history[start - 1]!);
    if (turnCost > remaining) break;
    remaining -= turnCost;
    start -= 1;
  }
  // A tool result whose assistant tool call was cut would be rejected by the chat APIs.
  while (start < p.history.length && p.history[start]!.role === "tool") start += 1;
  messages.push(...p.history.slice(start), user);
  return { messages, overflow: p.history.slice(0, start) };
}

/**
 * The last resort when the system prompt and user message alone exceed the budget: cut the system
 * prompt (keeping its head), then the user message (keeping its tail, where the question usually is).
 * Below the cost of two empty messages only the user message is kept, and below one, nothing.
 */
function squeeze(system: Message, user: Message, budget: number, tokenizer: Tokenizer, warnings: string[]): Message[] {
  const overhead = tokenizer.messageOverhead;
  const userCost = countMessageTokens(user, tokenizer);
  if (budget >= 2 * overhead) {
    const systemRoom = budget - userCost - overhead;
    const systemText = systemRoom >= 0 ? cutToFit(system.content, systemRoom, tokenizer, "head") : "";
    warnings.push("system prompt cut to fit the budget");
    const withSystem: Message = { role: "system", content: systemText };
    if (countMessageTokens(withSystem, tokenizer) + userCost <= budget) return [withSystem, user];
    const emptySystem: Message = { role: "system", content: "" };
    const userRoom = budget - countMessageTokens(emptySystem, tokenizer) - overhead;
    warnings.push("user message cut to fit the budget");
    const cutUser: Message = { role: "user", content: cutToFit(user.content, userRoom, tokenizer, "tail") };
    if (countMessageTokens(emptySystem, tokenizer) + countMessageTokens(cutUser, tokenizer) <= budget)
      return [emptySystem, cutUser];
  }
  warnings.push(`budget of ${budget} tokens is below two messages; the system prompt is left out`);
  const alone: Message = { role: "user", content: cutToFit(user.content, budget - overhead, tokenizer, "tail") };
  return countMessageTokens(alone, tokenizer) <= budget ? [alone] : [];
}

function exclude(item: ContextItem, detail: string): void {
  item.included = false;
  item.reason = { code: "over_budget", detail };
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

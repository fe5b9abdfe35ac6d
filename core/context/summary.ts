import type { LlmPort, Message } from "../ports";
import { countMessageTokens, cutToFit, estimateTokenizer } from "./tokens";
import type { Tokenizer } from "./types";

export interface FoldPlan {
  /** Older turns to fold into the summary, oldest first. */
  fold: Message[];
  /** The window that stays verbatim, oldest first. */
  keep: Message[];
  /** The size the new summary should stay within. */
  summaryTokens: number;
}

/**
 * Decides which older turns fall out of the window: all but the last `windowSize`, and more while the
 * window exceeds `windowTokens`. Tool results never open the window without the call that asked for them.
 *
 * @example
 * const { fold, keep } = planFold({ turns, windowSize: 20, summaryTokens: 400 });
 * if (fold.length) summary = (await foldIntoSummary(summary, fold, summarize, { maxTokens: 400 })).summary;
 */
export function planFold(input: {
  turns: readonly Message[];
  windowSize: number;
  summaryTokens: number;
  windowTokens?: number;
  tokenizer?: Tokenizer;
}): FoldPlan {
  const tokenizer = input.tokenizer ?? estimateTokenizer;
  const size = Math.max(0, Math.floor(Number.isFinite(input.windowSize) ? input.windowSize : 0));
  let start = Math.max(0, input.turns.length - size);
  if (input.windowTokens !== undefined) {
    let total = 0;
    for (let i = start; i < input.turns.length; i++) total += countMessageTokens(input.turns[i]!, tokenizer);
    while (start < input.turns.length && total > input.windowTokens) {
      total -= countMessageTokens(input.turns[start]!, tokenizer);
      start += 1;
    }
  }
  while (start < input.turns.length && input.turns[start]!.role === "tool") start += 1;
  return {
    fold: input.turns.slice(0, start),
    keep: input.turns.slice(start),
    summaryTokens: Math.max(0, Math.floor(input.summaryTokens)),
  };
}

/** What the injected summarizer is asked: extend `previousSummary` with `turns` within `maxTokens`. */
export interface SummarizeRequest {
  previousSummary: string;
  turns: Message[];
  maxTokens: number;
}

export type Summarize = (request: SummarizeRequest) => Promise<string>;

export interface FoldResult {
  summary: string;
  /** "model" when `summarize` answered, "extractive" when the fallback wrote it, "unchanged" with no turns. */
  method: "model" | "extractive" | "unchanged";
  /** Why the model's summary was not used. */
  error?: unknown;
}

/**
 * Folds turns into the rolling summary with the injected `summarize` (the Durable Object passes a model
 * call). If it throws or answers nothing, `extractiveSummary` writes the summary instead, so an
 * overflowing window never fails a turn.
 *
 * @example
 * const { summary, method } = await foldIntoSummary(previous, plan.fold, makeLlmSummarizer({ llm, model: "gpt-4o-mini" }));
 */
export async function foldIntoSummary(
  previousSummary: string,
  turns: readonly Message[],
  summarize: Summarize,
  options: { maxTokens?: number; tokenizer?: Tokenizer } = {},
): Promise<FoldResult> {
  const tokenizer = options.tokenizer ?? estimateTokenizer;
  const maxTokens = Math.max(0, Math.floor(options.maxTokens ?? 512));
  if (turns.length === 0) return { summary: previousSummary, method: "unchanged" };
  let error: unknown;
  try {
    const written = (await summarize({ previousSummary, turns: [...turns], maxTokens }))?.trim();
    if (written) return { summary: cutToFit(written, maxTokens, tokenizer, "head"), method: "model" };
    error = new Error("the summarizer returned an empty summary");
  } catch (caught) {
    error = caught;
  }
  const material: Message[] = previousSummary.trim()
    ? [{ role: "system", content: previousSummary }, ...turns]
    : [...turns];
  return { summary: extractiveSummary(material, maxTokens, tokenizer), method: "extractive", error };
}

const cue =
  /\b(name|prefer|like|remember|always|never|decid\w*|agree\w*|deadline|must|need|plan\w*|birthday|live|work|allerg\w*)\b/i;

/**
 * A summary written without a model: the turns' most telling sentences, in their original order, each
 * with its speaker, within `maxTokens`. System turns (an earlier summary) and user statements come first.
 *
 * @example
 * extractiveSummary([{ role: "user", content: "My name is Ada. Hi!" }], 20) // "User: My name is Ada."
 */
export function extractiveSummary(
  turns: readonly Message[],
  maxTokens: number,
  tokenizer: Tokenizer = estimateTokenizer,
): string {
  if (maxTokens <= 0) return "";
  type Sentence = { order: number; line: string; score: number };
  const sentences: Sentence[] = [];
  turns.forEach((turn, turnIndex) => {
    if (turn.role === "tool") return;
    const speaker = turn.role === "user" ? "User: " : turn.role === "assistant" ? "Assistant: " : "";
    const roleScore = turn.role === "system" ? 3 : turn.role === "user" ? 2 : 1;
    for (const raw of turn.content.split(/(?<=[.!?])\s+|\n+/)) {
      const text = raw.trim().slice(0, 300);
      const wordCount = text.split(/\s+/).filter(Boolean).length;
      if (wordCount === 0) continue;
      let score = roleScore + (0.5 * (turnIndex + 1)) / turns.length;
      if (cue.test(text)) score += 1;
      if (/\d|\s\p{Lu}/u.test(text)) score += 0.5;
      if (wordCount < 3) score -= 1;
      if (text.endsWith("?")) score -= 0.5;
      sentences.push({ order: sentences.length, line: speaker + text, score });
    }
  });
  const ranked = [...sentences].sort((a, b) => b.score - a.score || b.order - a.order);
  const chosen: Sentence[] = [];
  const render = (list: Sentence[]) =>
    [...list]
      .sort((a, b) => a.order - b.order)
      .map((s) => s.line)
      .join("\n");
  for (const sentence of ranked) {
    if (tokenizer.count(render([...chosen, sentence])) <= maxTokens) chosen.push(sentence);
  }
  if (chosen.length === 0 && ranked[0]) return cutToFit(ranked[0].line, maxTokens, tokenizer, "head");
  return render(chosen);
}

/** The messages asking a model to fold turns into the summary. */
export function summaryPrompt(request: SummarizeRequest): Message[] {
  const transcript = request.turns
    .filter((turn) => turn.role !== "tool" || turn.content.length < 500)
    .map((turn) => `${turn.role}: ${turn.content}`)
    .join("\n");
  return [
    {
      role: "system",
      content:
        `You maintain the running summary of a conversation. Merge the earlier summary with the new turns into one ` +
        `summary of at most ${request.maxTokens} tokens. Keep names, facts, decisions, preferences and open tasks; ` +
        `drop small talk. Answer with the summary text only.`,
    },
    { role: "user", content: `Earlier summary:\n${request.previousSummary || "(none)"}\n\nNew turns:\n${transcript}` },
  ];
}

/**
 * A `Summarize` that asks a model through the LlmPort.
 *
 * @example
 * const summarize = makeLlmSummarizer({ llm, model: "gpt-4o-mini" });
 */
export function makeLlmSummarizer(deps: { llm: LlmPort; model: string; signal?: AbortSignal }): Summarize {
  return async (request) => {
    const response = await deps.llm.complete({
      model: deps.model,
      messages: summaryPrompt(request),
      temperature: 0,
      maxTokens: Math.max(16, request.maxTokens),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (response.finishReason === "error") throw new Error("the model failed to summarize");
    return response.content;
  };
}

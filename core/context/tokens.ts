import type { Message } from "../ports";
import type { Tokenizer } from "./types";
import { imagesTokens } from "../images/tokens";

/** Put where text was cut to fit the budget, so the model (and a reader) can tell. */
export const truncationMarker = "…[truncated]";

/**
 * A tokenizer that estimates: `ceil(chars / charsPerToken)` per text plus a fixed cost per message.
 * Close enough for English with GPT- and Claude-style tokenizers; inject a real one where it matters.
 *
 * @example
 * const tokenizer = makeEstimateTokenizer();
 * tokenizer.count("hello world"); // 3
 */
export function makeEstimateTokenizer(options: { charsPerToken?: number; messageOverhead?: number } = {}): Tokenizer {
  const charsPerToken = options.charsPerToken ?? 4;
  const messageOverhead = options.messageOverhead ?? 4;
  if (!(charsPerToken > 0)) throw new RangeError("charsPerToken must be positive");
  if (!(messageOverhead >= 0)) throw new RangeError("messageOverhead must not be negative");
  return { count: (text) => Math.ceil(text.length / charsPerToken), messageOverhead };
}

export const estimateTokenizer: Tokenizer = makeEstimateTokenizer();

/** Tokens one message costs: its overhead, content, name, tool calls and images (a fixed estimate each: core/images imageTokens). */
export function countMessageTokens(message: Message, tokenizer: Tokenizer): number {
  let tokens = tokenizer.messageOverhead + tokenizer.count(message.content);
  if (message.images) tokens += imagesTokens(message.images);
  if (message.name) tokens += tokenizer.count(message.name);
  if (message.toolCalls?.length) tokens += tokenizer.count(JSON.stringify(message.toolCalls));
  if (message.toolCallId) tokens += tokenizer.count(message.toolCallId);
  return tokens;
}

/** Tokens a message array costs; the figure reported as `tokens.used`. */
export function countTokens(messages: readonly Message[], tokenizer: Tokenizer): number {
  let total = 0;
  for (const message of messages) total += countMessageTokens(message, tokenizer);
  return total;
}

/**
 * The longest cut of `text` (its head, or its tail) that fits `maxTokens` with the marker, or "" when
 * not even the marker fits. Binary search on length, then a check, because a real tokenizer need not
 * count prefixes monotonically.
 */
export function cutToFit(
  text: string,
  maxTokens: number,
  tokenizer: Tokenizer,
  keep: "head" | "tail" = "head",
): string {
  if (tokenizer.count(text) <= maxTokens) return text;
  const build = (length: number): string =>
    keep === "head"
      ? text.slice(0, length).trimEnd() + truncationMarker
      : truncationMarker + text.slice(text.length - length).trimStart();
  if (tokenizer.count(build(0)) > maxTokens) return "";
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (tokenizer.count(build(mid)) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  const cut = build(low);
  return tokenizer.count(cut) <= maxTokens ? cut : "";
}

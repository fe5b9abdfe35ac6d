import type { Message } from "../ports";

/**
 * A rough token count (about four characters per token for English text), used where no
 * tokenizer is at hand: budgets, the offline model's usage, providers that report no usage.
 * @example
 * estimateTokens("hello world!") // 3
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Rough tokens of a message array, including the tool calls the assistant proposed. */
export function estimateMessageTokens(messages: Message[]): number {
  let total = 0;
  for (const message of messages) {
    total += estimateTokens(message.content);
    for (const call of message.toolCalls ?? []) total += estimateTokens(call.name + JSON.stringify(call.arguments));
  }
  return total;
}

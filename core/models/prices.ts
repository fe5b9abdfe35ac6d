/**
 * US dollars per million tokens (input, output) of models whose price is published; a model not
 * listed has no known price, and a report says so (null) rather than guessing.
 */
const perMillion: Record<string, readonly [number, number]> = {
  "gpt-4o-mini": [0.15, 0.6],
  "gpt-4o": [2.5, 10],
  "gpt-4.1": [2, 8],
  "gpt-4.1-mini": [0.4, 1.6],
  "claude-haiku-4-5": [1, 5],
  "claude-sonnet-4-5": [3, 15],
  "claude-opus-4-1": [15, 75],
  offline: [0, 0],
};

/** The cost of a model call's tokens, or null when the model's price is not known. */
export function costOf(model: string, usage: { inputTokens: number; outputTokens: number }): number | null {
  const price = perMillion[model] ?? perMillion[model.replace(/-\d{4}-\d{2}-\d{2}$|-\d{8}$/, "")];
  if (!price) return null;
  return (usage.inputTokens * price[0] + usage.outputTokens * price[1]) / 1_000_000;
}

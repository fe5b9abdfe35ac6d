import type { ModelTool } from "../ports";

/**
 * Pantheon tool names may contain dots (`clock.now`); OpenAI and Anthropic accept only
 * `[a-zA-Z0-9_-]`. Adapters send `clock__now` and map the names the model returns back through
 * the table built from the request's own tools, so the round trip is exact.
 */
export interface ToolNameCodec {
  toProvider(name: string): string;
  fromProvider(name: string): string;
}

export function makeToolNameCodec(tools: ModelTool[] | undefined): ToolNameCodec {
  const back = new Map<string, string>();
  const encode = (name: string) => name.replaceAll(".", "__");
  for (const tool of tools ?? []) {
    const encoded = encode(tool.name);
    if (!back.has(encoded)) back.set(encoded, tool.name);
  }
  return {
    toProvider: encode,
    fromProvider: (name) => back.get(name) ?? name,
  };
}

/** Tool arguments arrive as JSON text; a model can produce broken or non-object JSON. */
export function parseToolArguments(text: string | undefined): Record<string, unknown> {
  if (!text || text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return { value };
  } catch {
    // Kept rather than dropped so the gates and the trace show what the model actually sent.
    return { _unparsed: text };
  }
}

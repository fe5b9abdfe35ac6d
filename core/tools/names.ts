import type { ToolSpec } from "./tool-spec";

/**
 * Providers (OpenAI, Anthropic) accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`, so the dots of
 * Pantheon tool names are carried as `__`. Decoding is exact for every name without `_` next to a
 * `.` or another `_`; for the rare others, `makeToolNameCodec` resolves against the declared tools.
 * @example
 * encodeToolName("clock.now"); // "clock__now"
 * decodeToolName("clock__now"); // "clock.now"
 */
export function encodeToolName(name: string): string {
  return name.replaceAll(".", "__");
}

export function decodeToolName(encoded: string): string {
  return encoded.replaceAll("__", ".");
}

/** Exact two-way mapping for one agent's declared tools; two tools that encode alike are refused. */
export interface ToolNameCodec {
  encode(name: string): string;
  /** The declared tool name for a provider name or a declared name itself; undefined when unknown. */
  decode(providerName: string): string | undefined;
}

export class ToolNameClashError extends Error {
  override readonly name = "ToolNameClashError";
  constructor(
    readonly first: string,
    readonly second: string,
  ) {
    super(`tools '${first}' and '${second}' have the same provider name '${encodeToolName(first)}'`);
  }
}

export function makeToolNameCodec(specs: readonly Pick<ToolSpec, "name">[]): ToolNameCodec {
  const byEncoded = new Map<string, string>();
  const declared = new Set<string>();
  for (const { name } of specs) {
    const encoded = encodeToolName(name);
    const other = byEncoded.get(encoded);
    if (other !== undefined && other !== name) throw new ToolNameClashError(other, name);
    byEncoded.set(encoded, name);
    declared.add(name);
  }
  return {
    encode: encodeToolName,
    decode: (providerName) => (declared.has(providerName) ? providerName : byEncoded.get(providerName)),
  };
}

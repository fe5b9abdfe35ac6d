import { PantheonError } from "../../core/errors";
import type { EmbedPort } from "../../core/ports";

export interface HashedEmbedderOptions {
  /** Default 256. */
  dimensions?: number;
}

/**
 * A deterministic, dependency-free {@link EmbedPort}: hashed word and character-trigram features,
 * L2-normalised. Texts sharing words or word fragments score higher; there is no meaning beyond
 * that. For unit tests that must not depend on the embeddings sidecar, not for real recall.
 *
 * @example
 * ```ts
 * const embed = makeHashedEmbedder({ dimensions: 64 });
 * const [a, b] = await embed.embed(["reset my password", "password reset"]);
 * ```
 */
export function makeHashedEmbedder(options: HashedEmbedderOptions = {}): EmbedPort {
  const dimensions = options.dimensions ?? 256;
  if (!Number.isInteger(dimensions) || dimensions < 8) {
    throw new PantheonError(
      "bad_request",
      `hashed embedder dimensions must be an integer of at least 8, got ${dimensions}`,
    );
  }

  function vectorOf(text: string): number[] {
    const v = new Float64Array(dimensions);
    const add = (feature: string, weight: number): void => {
      const h = fnv1a(feature);
      // A second hash bit picks the sign, so colliding features cancel instead of piling up.
      v[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * weight;
    };
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const word of words) {
      add(`w:${word}`, 1);
      const padded = `^${word}$`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.5);
    }
    if (words.length === 0) add("empty", 1);
    let norm = 0;
    for (const x of v) norm += x * x;
    // Every feature may cancel out in rare collisions; fall back to the empty-text direction.
    if (norm === 0) {
      v[fnv1a("empty") % dimensions] = 1;
      norm = 1;
    }
    const inv = 1 / Math.sqrt(norm);
    return Array.from(v, (x) => x * inv);
  }

  return {
    model: `hashed:${dimensions}`,
    dimensions,
    captures: "words",
    async embed(texts: string[]): Promise<number[][]> {
      return texts.map(vectorOf);
    },
  };
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

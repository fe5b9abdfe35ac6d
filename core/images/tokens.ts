import type { ImageRef } from "../ports";

/** Tokens an image of unknown size is counted as (what a 1024x1024 picture costs below). */
export const unknownImageTokens = 765;

/**
 * Tokens an image costs in the context budget, estimated as OpenAI prices a high-detail image: scaled
 * to fit 2048x2048, then its short side to 768, counted in 512-pixel tiles at 170 tokens each plus
 * 85. A fixed figure per size, so a budget can be kept without the bytes; other providers price
 * within the same order.
 * @example
 * imageTokens({ id: "…", type: "image/png", bytes: 68, width: 2, height: 2 }); // 255
 * imageTokens({ id: "…", type: "image/jpeg", bytes: 9000, width: 1024, height: 1024 }); // 765
 */
export function imageTokens(ref: Pick<ImageRef, "width" | "height">): number {
  let { width, height } = ref;
  if (!width || !height) return unknownImageTokens;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const short = Math.min(width, height);
  if (short > 768) {
    width *= 768 / short;
    height *= 768 / short;
  }
  return 170 * Math.ceil(width / 512) * Math.ceil(height / 512) + 85;
}

/** Tokens all of a message's images cost. */
export function imagesTokens(images: readonly Pick<ImageRef, "width" | "height">[] | undefined): number {
  let total = 0;
  for (const image of images ?? []) total += imageTokens(image);
  return total;
}

// Compiled by `npm run typecheck`, never run: proves the real Cloudflare bindings fit the minimal
// shapes the adapters declare, so production wiring needs no casts.
import type { AiLike } from "../../adapters/embed-workers-ai";
import type { SqlLike } from "../../adapters/vector-sqlite";
import type { VectorizeLike } from "../../adapters/vector-vectorize";

export type BindingsFit = [
  Vectorize extends VectorizeLike ? true : never,
  Ai extends AiLike ? true : never,
  SqlStorage extends SqlLike ? true : never,
];
export const bindingsFit: BindingsFit = [true, true, true];

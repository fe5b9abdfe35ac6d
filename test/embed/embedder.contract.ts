import { describe, expect, it } from "vitest";
import type { EmbedPort } from "../../core/ports";

export interface EmbedderContractOptions {
  name: string;
  make(): EmbedPort;
  /** An embedder whose backend fails; omit for embedders that cannot fail (the hashed one). */
  makeFailing?(): EmbedPort;
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** The behaviour every EmbedPort adapter owes its callers (STYLE.md practice 2). */
export function runEmbedderContract({ name, make, makeFailing }: EmbedderContractOptions): void {
  describe(`${name} honours the EmbedPort contract`, () => {
    it("names its vector space and returns one vector of the advertised size per text", async () => {
      const embedder = make();
      expect(embedder.model).toMatch(/^[a-z-]+:.+/);
      const vectors = await embedder.embed(["first text", "second text", "third"]);
      expect(vectors).toHaveLength(3);
      for (const v of vectors) {
        expect(v).toHaveLength(embedder.dimensions);
        expect(v.every(Number.isFinite)).toBe(true);
      }
    });

    it("returns no vectors for no texts", async () => {
      expect(await make().embed([])).toEqual([]);
    });

    it("keeps the order of the texts, in one batch and across many", async () => {
      const embedder = make();
      const texts = Array.from({ length: 150 }, (_, i) => `note number ${i} about topic ${i % 13}`);
      const together = await embedder.embed(texts);
      expect(together).toHaveLength(150);
      for (const i of [0, 1, 63, 64, 99, 100, 149]) {
        const [alone] = await embedder.embed([texts[i]!]);
        expect(cosine(together[i]!, alone!)).toBeCloseTo(1, 5);
      }
    });

    it("scores texts about the same thing above unrelated ones", async () => {
      const [question, paraphrase, unrelated] = await make().embed([
        "how do I reset my password",
        "I need to reset my password",
        "volcanic eruptions in Iceland",
      ]);
      expect(cosine(question!, paraphrase!)).toBeGreaterThan(cosine(question!, unrelated!) + 0.2);
    });

    if (makeFailing) {
      it("surfaces a backend failure as a PantheonError with the backend's message", async () => {
        const failure = await makeFailing()
          .embed(["anything"])
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(failure).toMatchObject({ name: "PantheonError" });
        expect((failure as { code: string }).code).toMatch(/^(model_failed|rate_limited)$/);
        expect((failure as Error).message).toMatch(/embeddings failed: .*backend is down/);
      });
    }
  });
}

import { describe, expect, it } from "vitest";
import type { VectorMetadata, VectorPort } from "../../core/ports";

/** Every index under contract is opened with this many dimensions. */
export const contractDimensions = 16;

/** One fresh, empty store (a Vectorize index, an agent's SQLite) that indexes are opened over. */
export interface VectorIndexFixture {
  /** A new adapter instance for one agent's namespace; opening twice is what a restart looks like. */
  open(namespace: string): VectorPort;
  /** Ids physically left in the store for a namespace, to prove deletes leave no orphans. */
  storedIds(namespace: string): Promise<string[]>;
}

export interface VectorIndexContractOptions {
  name: string;
  make(dimensions: number): VectorIndexFixture | Promise<VectorIndexFixture>;
}

/** A unit-ish vector pointing mostly along `axis`, nudged along `nudge` by `amount`. */
export function axis(index: number, nudge?: number, amount = 0.3): number[] {
  const v = new Array<number>(contractDimensions).fill(0.01);
  v[index % contractDimensions] = 1;
  if (nudge !== undefined) v[nudge % contractDimensions] = amount;
  return v;
}

/**
 * The behaviour every VectorPort adapter owes its callers (STYLE.md practice 2): run it once per
 * adapter with a `make` that builds a fresh store.
 */
export function runVectorIndexContract({ name, make }: VectorIndexContractOptions): void {
  describe(`${name} honours the VectorPort contract`, () => {
    it("ranks the nearest vector first, with cosine scores from highest to lowest", async () => {
      const fixture = await make(contractDimensions);
      const index = fixture.open("agent-rank");
      await index.upsert([
        { id: "far", values: axis(5) },
        { id: "near", values: axis(1, 2, 0.2) },
        { id: "nearer", values: axis(1) },
      ]);
      const matches = await index.query(axis(1), { topK: 3 });
      expect(matches.map((m) => m.id)).toEqual(["nearer", "near", "far"]);
      expect(matches[0]!.score).toBeCloseTo(1, 5);
      expect(matches[1]!.score).toBeLessThan(matches[0]!.score);
      expect(matches[2]!.score).toBeLessThan(0.2);
    });

    it("answers an empty index with no matches", async () => {
      const fixture = await make(contractDimensions);
      expect(await fixture.open("agent-empty").query(axis(0), { topK: 5 })).toEqual([]);
    });

    it("returns each vector's metadata with its match", async () => {
      const fixture = await make(contractDimensions);
      const index = fixture.open("agent-meta");
      const metadata: VectorMetadata = { kind: "fact", source: "chat", weight: 2, pinned: true };
      await index.upsert([
        { id: "m1", values: axis(3), metadata },
        { id: "m2", values: axis(4) },
      ]);
      const matches = await index.query(axis(3), { topK: 2 });
      expect(matches[0]).toMatchObject({ id: "m1", metadata });
      expect(matches[1]!.id).toBe("m2");
      expect(matches[1]!.metadata ?? {}).toEqual({});
    });

    it("replaces the vector and metadata when an id is upserted again", async () => {
      const fixture = await make(contractDimensions);
      const index = fixture.open("agent-replace");
      await index.upsert([
        { id: "moving", values: axis(0), metadata: { version: 1 } },
        { id: "anchor", values: axis(0, 1, 0.5) },
      ]);
      await index.upsert([{ id: "moving", values: axis(7), metadata: { version: 2 } }]);
      const nearNew = await index.query(axis(7), { topK: 5 });
      expect(nearNew[0]).toMatchObject({ id: "moving", metadata: { version: 2 } });
      expect(nearNew.filter((m) => m.id === "moving")).toHaveLength(1);
      const nearOld = await index.query(axis(0), { topK: 1 });
      expect(nearOld[0]!.id).toBe("anchor");
    });

    it("never returns a deleted vector again and leaves nothing of it behind", async () => {
      const fixture = await make(contractDimensions);
      const index = fixture.open("agent-delete");
      await index.upsert([
        { id: "keep", values: axis(2, 3) },
        { id: "gone", values: axis(2) },
      ]);
      await index.deleteByIds(["gone", "never-existed"]);
      const matches = await index.query(axis(2), { topK: 5 });
      expect(matches.map((m) => m.id)).toEqual(["keep"]);
      expect(await fixture.storedIds("agent-delete")).toEqual(["keep"]);
      expect(await fixture.open("agent-delete").query(axis(2), { topK: 5 })).toHaveLength(1);
    });

    it("keeps only matches whose metadata equals every filter key, even when others are closer", async () => {
      const fixture = await make(contractDimensions);
      const index = fixture.open("agent-filter");
      await index.upsert([
        { id: "chat-close", values: axis(6), metadata: { kind: "chat", lang: "en" } },
        { id: "fact-en", values: axis(6, 7, 0.6), metadata: { kind: "fact", lang: "en" } },
        { id: "fact-fr", values: axis(6, 8, 0.4), metadata: { kind: "fact", lang: "fr" } },
        { id: "bare", values: axis(6, 9, 0.1) },
      ]);
      const facts = await index.query(axis(6), { topK: 5, filter: { kind: "fact" } });
      expect(facts.map((m) => m.id)).toEqual(["fact-fr", "fact-en"]);
      const english = await index.query(axis(6), { topK: 5, filter: { kind: "fact", lang: "en" } });
      expect(english.map((m) => m.id)).toEqual(["fact-en"]);
      expect(await index.query(axis(6), { topK: 5, filter: { kind: "dream" } })).toEqual([]);
    });

    it("isolates agents' namespaces, even when they use the same ids", async () => {
      const fixture = await make(contractDimensions);
      const alice = fixture.open("agent-alice");
      const bob = fixture.open("agent-bob");
      await alice.upsert([{ id: "m1", values: axis(10), metadata: { owner: "alice" } }]);
      await bob.upsert([{ id: "m1", values: axis(11), metadata: { owner: "bob" } }]);
      const seenByAlice = await alice.query(axis(11), { topK: 5 });
      expect(seenByAlice).toHaveLength(1);
      expect(seenByAlice[0]).toMatchObject({ id: "m1", metadata: { owner: "alice" } });
      await bob.deleteByIds(["m1"]);
      expect(await bob.query(axis(11), { topK: 5 })).toEqual([]);
      expect((await alice.query(axis(10), { topK: 5 }))[0]).toMatchObject({ id: "m1", metadata: { owner: "alice" } });
    });

    it("returns at most topK matches, and all of them when fewer are stored", async () => {
      const fixture = await make(contractDimensions);
      const index = fixture.open("agent-topk");
      await index.upsert(Array.from({ length: 12 }, (_, i) => ({ id: `v${i}`, values: axis(i, i + 1, 0.5) })));
      expect(await index.query(axis(0), { topK: 3 })).toHaveLength(3);
      expect(await index.query(axis(0), { topK: 1 })).toHaveLength(1);
      expect(await index.query(axis(0), { topK: 20 })).toHaveLength(12);
    });

    it("finds what was stored from a fresh instance over the same store (a restart)", async () => {
      const fixture = await make(contractDimensions);
      await fixture.open("agent-restart").upsert([
        { id: "a", values: axis(12), metadata: { kind: "fact" } },
        { id: "b", values: axis(13) },
      ]);
      const matches = await fixture.open("agent-restart").query(axis(12), { topK: 1, filter: { kind: "fact" } });
      expect(matches).toEqual([{ id: "a", score: expect.closeTo(1, 5), metadata: { kind: "fact" } }]);
    });

    it("rejects a topK that is not a positive integer", async () => {
      const fixture = await make(contractDimensions);
      await expect(fixture.open("agent-bad").query(axis(0), { topK: 0 })).rejects.toThrow(/topK/);
    });
  });
}

import { describe, expect, it } from "vitest";
import { cachedWordOverlap, firstByScore, wordOverlap } from "../../core/context";

// The compile's shortcuts (bench/README.md, 2026-11-26 context entry) must rank exactly as the plain
// computations they replace: the best page of a lexical search, and the near-duplicate measure.

/** A small deterministic generator, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const fullSort = (scores: Map<number, number>) => [...scores.entries()].sort((a, b) => b[1] - a[1]);

describe("firstByScore", () => {
  it("is the prefix of a full stable sort, ties kept in insertion order", () => {
    const random = seeded(7);
    for (let round = 0; round < 500; round++) {
      const scores = new Map<number, number>();
      const levels = 1 + Math.floor(random() * 40); // few levels: many ties
      const size = Math.floor(random() * 300);
      for (let i = 0; i < size; i++) scores.set(Math.floor(random() * 1e6), -Math.floor(random() * levels) * 0.37);
      const count = Math.floor(random() * 120);
      expect(firstByScore(scores, count)).toEqual(fullSort(scores).slice(0, count));
    }
  });

  it("keeps the first-inserted of equal scores when the page is full of ties", () => {
    const scores = new Map([
      ["a", 1],
      ["b", 3],
      ["c", 2],
      ["d", 3],
      ["e", 3],
    ]);
    expect(firstByScore(scores, 2)).toEqual([
      ["b", 3],
      ["d", 3],
    ]);
    expect(firstByScore(scores, 4)).toEqual([
      ["b", 3],
      ["d", 3],
      ["e", 3],
      ["c", 2],
    ]);
    expect(firstByScore(scores, 0)).toEqual([]);
    expect(firstByScore(scores, 9)).toEqual([...scores].sort((a, b) => b[1] - a[1]));
  });
});

describe("cachedWordOverlap", () => {
  it("gives wordOverlap's value for every pair, asked in any order and again", () => {
    const texts = [
      "The wifi password is tulip42",
      "the WiFi password is tulip42.",
      "",
      "a b c",
      "c d e a",
      "Über straße",
      "über Straße!",
      "Ada's dog is Rex",
    ];
    const similar = cachedWordOverlap();
    for (let pass = 0; pass < 2; pass++) {
      for (const a of texts) for (const b of texts) expect(similar(a, b)).toBe(wordOverlap(a, b));
    }
    expect(similar("The wifi password is tulip42", "the WiFi password is tulip42.")).toBe(1);
    expect(similar("a b c", "c d e a")).toBe(0.4);
  });
});

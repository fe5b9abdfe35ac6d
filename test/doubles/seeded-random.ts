/**
 * mulberry32: a small seeded PRNG for the fuzz and fault suites, so a failing case is reproduced
 * by its seed and index.
 * @example
 * const r = seededRandom(42); r.pick(["a", "b"]); r.int(10); r.chance(0.25);
 */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** 0 ≤ n < `below` */
  const int = (below: number) => Math.floor(next() * below);
  return {
    next,
    int,
    /** lo ≤ n ≤ hi */
    between: (lo: number, hi: number) => lo + int(hi - lo + 1),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
  };
}

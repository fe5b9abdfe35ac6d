// Synthetic embeddings for the vector benchmarks (context, vector-index): unit vectors clustered
// around topics × subtopics like text embeddings, from a seeded PRNG so every run sees the same
// data. Not a *.bench.mjs file, so bench/run.mjs does not list it as a module.

/**
 * A seeded generator of clustered unit vectors. The topic and subtopic centres are drawn when it
 * is made; `random` is the same stream, so a bench that draws its other data from it (words,
 * importances) stays reproducible too.
 * @param {{ seed: number, dimensions: number, Vector?: ArrayConstructor | Float32ArrayConstructor, topics?: number, subtopics?: number }} options
 *   `Vector` is what a vector is stored in while it is normalised (Float32Array rounds each
 *   component, so it draws other vectors than Array from the same seed).
 * @example
 * const synthetic = makeSyntheticVectors({ seed: 42, dimensions: 512, Vector: Float32Array });
 * const v = synthetic.sample(1); // a unit vector near one of the 50 × 20 subtopics
 */
export function makeSyntheticVectors({ seed, dimensions, Vector = Array, topics = 50, subtopics = 20 }) {
  let state = seed;
  function random() {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  }
  function gaussian() {
    return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  }
  function unitAround(center, spread) {
    const v = new Vector(dimensions);
    let n = 0;
    for (let j = 0; j < dimensions; j++) {
      v[j] = (center ? center[j] : 0) + (gaussian() * spread) / Math.sqrt(dimensions);
      n += v[j] * v[j];
    }
    const inv = 1 / Math.sqrt(n);
    for (let j = 0; j < dimensions; j++) v[j] *= inv;
    return v;
  }
  const topicCentres = Array.from({ length: topics }, () => unitAround(undefined, 1));
  const subtopicCentres = topicCentres.flatMap((t) => Array.from({ length: subtopics }, () => unitAround(t, 0.8)));
  /** A unit vector around a random subtopic; a larger `spread` puts it further from its centre. */
  const sample = (spread = 1) => unitAround(subtopicCentres[Math.floor(random() * subtopicCentres.length)], spread);
  return { random, gaussian, unitAround, sample };
}

/**
 * Indices of the `k` rows of `data` (n rows of `dimensions` floats, back to back) with the largest
 * dot product with `q`: the exact scan that recall is measured against.
 * @example
 * exactTopK(new Float32Array([1, 0, 0, 1]), 2, [0, 1], { dimensions: 2, k: 1 }); // [1]
 */
export function exactTopK(data, n, q, { dimensions, k }) {
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const o = i * dimensions;
    for (let j = 0; j < dimensions; j++) s += q[j] * data[o + j];
    scores[i] = s;
  }
  return Array.from(scores.keys())
    .sort((a, b) => scores[b] - scores[a])
    .slice(0, k);
}

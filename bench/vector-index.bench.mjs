// Measures the SQLite vector index (adapters/vector-sqlite) in plain Node, over node:sqlite in
// memory behind the same SqlLike shape a Durable Object gives it.
//   node bench/vector-index.bench.mjs [sizes=1000,10000,100000] [queries=200]   (BENCH_SPREAD=1)
// Data: 512-dim unit vectors drawn around 50 topics × 20 subtopics (clustered like text
// embeddings); queries come from the same distribution but are not in the index.
// Baseline: exact brute-force float32 scan over an in-memory copy. Targets at 100k:
// query p50 ≤ 25 ms, recall@10 ≥ 0.95.
import { build } from "esbuild";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DatabaseSync } from "node:sqlite";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const sizes = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
const queryCount = Number(process.argv[3] ?? 200);
const D = 512;
const K = 10;

const out = mkdtempSync(join(tmpdir(), "pantheon-bench-"));
await build({
  entryPoints: [join(root, "adapters/vector-sqlite/index.ts")],
  bundle: true,
  format: "esm",
  platform: "neutral",
  outfile: join(out, "index.mjs"),
  logLevel: "error",
});
const { makeSqliteIndex } = await import(pathToFileURL(join(out, "index.mjs")).href);
rmSync(out, { recursive: true, force: true });

/** SqlLike over node:sqlite: BLOBs in as ArrayBuffer → Uint8Array, out as ArrayBuffer, like DO SQL. */
function sqlOver(db) {
  const statements = new Map();
  const toSql = (v) => (v instanceof ArrayBuffer ? new Uint8Array(v) : v);
  const fromSql = (row) => {
    for (const key in row) {
      const v = row[key];
      if (v instanceof Uint8Array) row[key] = v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength);
    }
    return row;
  };
  return {
    exec(query, ...bindings) {
      let statement = statements.get(query);
      if (!statement) statements.set(query, (statement = db.prepare(query)));
      const rows = /^\s*(SELECT|WITH)/i.test(query) ? statement.all(...bindings.map(toSql)).map(fromSql) : (statement.run(...bindings.map(toSql)), []);
      return {
        toArray: () => rows,
        one: () => {
          if (rows.length !== 1) throw new Error(`expected exactly one row, got ${rows.length}`);
          return rows[0];
        },
      };
    },
  };
}

let seed = 42;
function random() {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 4294967296;
}
function gaussian() {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}
function unitAround(center, spread) {
  const v = new Float32Array(D);
  let n = 0;
  for (let j = 0; j < D; j++) {
    v[j] = (center ? center[j] : 0) + (gaussian() * spread) / Math.sqrt(D);
    n += v[j] * v[j];
  }
  const inv = 1 / Math.sqrt(n);
  for (let j = 0; j < D; j++) v[j] *= inv;
  return v;
}
const topics = Array.from({ length: 50 }, () => unitAround(undefined, 1));
const subtopics = topics.flatMap((t) => Array.from({ length: 20 }, () => unitAround(t, 0.8)));
// BENCH_SPREAD widens the noise around each subtopic (harder: 2 gives neighbours at cosine ≈ 0.2).
const spread = Number(process.env.BENCH_SPREAD ?? 1);
const sample = () => unitAround(subtopics[Math.floor(random() * subtopics.length)], spread);

function exactTop(data, n, q) {
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const o = i * D;
    for (let j = 0; j < D; j++) s += q[j] * data[o + j];
    scores[i] = s;
  }
  return Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]).slice(0, K);
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const rows = [];
for (const n of sizes) {
  const data = new Float32Array(n * D);
  for (let i = 0; i < n; i++) data.set(sample(), i * D);
  const db = new DatabaseSync(":memory:");
  const sql = sqlOver(db);
  let index = makeSqliteIndex(sql, { dimensions: D, namespace: "bench" });
  let t = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(n, i + 1000); k++) batch.push({ id: `v${k}`, values: Array.from(data.subarray(k * D, (k + 1) * D)), metadata: { k: k % 7 } });
    await index.upsert(batch);
  }
  const buildMs = performance.now() - t;

  // A fresh instance over the same database: what an evicted agent pays on its first query.
  index = makeSqliteIndex(sql, { dimensions: D, namespace: "bench" });
  const queries = Array.from({ length: queryCount }, () => Array.from(sample()));
  t = performance.now();
  await index.query(queries[0], { topK: K });
  const wakeMs = performance.now() - t;

  const times = [];
  const baseline = [];
  let hits = 0;
  for (const q of queries) {
    t = performance.now();
    const matches = await index.query(q, { topK: K });
    times.push(performance.now() - t);
    t = performance.now();
    const exact = exactTop(data, n, q);
    baseline.push(performance.now() - t);
    const got = new Set(matches.map((m) => m.id));
    hits += exact.filter((i) => got.has(`v${i}`)).length;
  }
  const p50 = pct(times, 50);
  rows.push({
    vectors: n,
    "build s": (buildMs / 1000).toFixed(1),
    "wake ms": wakeMs.toFixed(0),
    "p50 ms": p50.toFixed(2),
    "p95 ms": pct(times, 95).toFixed(2),
    "exact p50 ms": pct(baseline, 50).toFixed(2),
    "speed-up": `${(pct(baseline, 50) / p50).toFixed(1)}×`,
    "recall@10": (hits / (queries.length * K)).toFixed(3),
  });
  db.close();
}
console.table(rows);
const last = rows.find((r) => r.vectors === 100000);
if (last) {
  const ok = Number(last["p50 ms"]) <= 25 && Number(last["recall@10"]) >= 0.95;
  console.log(`100k targets (p50 ≤ 25 ms, recall@10 ≥ 0.95): ${ok ? "met" : "NOT met"}`);
}

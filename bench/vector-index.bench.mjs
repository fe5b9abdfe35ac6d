// Measures the SQLite vector index (adapters/vector-sqlite) in plain Node, over node:sqlite in
// memory behind the same SqlLike shape a Durable Object gives it (real SQLite rather than a Map
// fake, so the exact re-rank reads are measured too). Runs alone or from bench/run.mjs (`run`).
//   node bench/vector-index.bench.mjs [sizes=1000,10000,100000] [queries=200]   (BENCH_SPREAD=1)
// Data: 512-dim unit vectors drawn around 50 topics × 20 subtopics (clustered like text
// embeddings); queries come from the same distribution but are not in the index.
// Baseline: exact brute-force float32 scan over an in-memory copy. Targets at 100k:
// query p50 ≤ 25 ms, recall@10 ≥ 0.95.
import { build } from "esbuild";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DatabaseSync } from "node:sqlite";
import { sqlOver } from "../test/node/memory-harness.mjs";
import { exactTopK, makeSyntheticVectors } from "./synthetic-vectors.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const D = 512;
const K = 10;

async function loadIndexModule() {
  const out = mkdtempSync(join(tmpdir(), "pantheon-bench-"));
  try {
    await build({
      entryPoints: [join(root, "adapters/vector-sqlite/index.ts")],
      bundle: true,
      format: "esm",
      platform: "neutral",
      outfile: join(out, "index.mjs"),
      logLevel: "error",
    });
    return await import(pathToFileURL(join(out, "index.mjs")).href);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const synthetic = makeSyntheticVectors({ seed: 42, dimensions: D, Vector: Float32Array });
// BENCH_SPREAD widens the noise around each subtopic (harder: 2 gives neighbours at cosine ≈ 0.2).
const spread = Number(process.env.BENCH_SPREAD ?? 1);
const sample = () => synthetic.sample(spread);

const exactTop = (data, n, q) => exactTopK(data, n, q, { dimensions: D, k: K });
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/** Measures one index size: build, wake-up, query latency against the exact scan, recall@10. */
async function measure(makeSqliteIndex, n, queryCount) {
  const data = new Float32Array(n * D);
  for (let i = 0; i < n; i++) data.set(sample(), i * D);
  const db = new DatabaseSync(":memory:");
  const sql = sqlOver(db);
  let index = makeSqliteIndex(sql, { dimensions: D, namespace: "bench" });
  let t = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(n, i + 1000); k++)
      batch.push({ id: `v${k}`, values: Array.from(data.subarray(k * D, (k + 1) * D)), metadata: { k: k % 7 } });
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
  db.close();
  return {
    n,
    buildMs,
    wakeMs,
    p50: pct(times, 50),
    p95: pct(times, 95),
    exactP50: pct(baseline, 50),
    recall: hits / (queries.length * K),
  };
}

/**
 * bench/run.mjs entry: no server needed. Sizes from BENCH_VECTOR_SIZES (default 1000,10000,100000).
 * @returns {Promise<{ title: string, rows: object[], notes: string[] }>}
 */
export async function run(
  _server,
  { sizes = (process.env.BENCH_VECTOR_SIZES ?? "1000,10000,100000").split(",").map(Number), queryCount = 200 } = {},
) {
  const { makeSqliteIndex, defaultIvfTuning } = await loadIndexModule();
  const rows = [];
  const summary = [];
  const notes = [
    `512-dim unit vectors around 50 topics × 20 subtopics (BENCH_SPREAD=${spread}); ${queryCount} queries from the same distribution, topK ${K}`,
    `tuning ${JSON.stringify(defaultIvfTuning)}; baseline = exact float32 scan of an in-memory copy`,
  ];
  for (const n of sizes) {
    const m = await measure(makeSqliteIndex, n, queryCount);
    const judged = n === 100000;
    rows.push(
      {
        name: `query p50, ${n} vectors`,
        figure: round(m.p50),
        unit: "ms",
        baseline: round(m.exactP50),
        ...(judged ? { target: "<= 25 ms", ok: m.p50 <= 25 } : {}),
      },
      { name: `query p95, ${n} vectors`, figure: round(m.p95), unit: "ms" },
      {
        name: `recall@10, ${n} vectors`,
        figure: round(m.recall, 3),
        unit: "",
        ...(judged ? { target: ">= 0.95", ok: m.recall >= 0.95 } : {}),
      },
      { name: `first query after restart, ${n} vectors`, figure: Math.round(m.wakeMs), unit: "ms" },
      { name: `build (upsert by 1000), ${n} vectors`, figure: round(m.buildMs / 1000, 1), unit: "s" },
    );
    notes.push(`${n} vectors: ${(m.exactP50 / m.p50).toFixed(1)}× faster than the exact scan`);
    summary.push({
      vectors: n,
      "build s": round(m.buildMs / 1000, 1),
      "wake ms": Math.round(m.wakeMs),
      "p50 ms": round(m.p50),
      "p95 ms": round(m.p95),
      "exact p50 ms": round(m.exactP50),
      "speed-up": `${(m.exactP50 / m.p50).toFixed(1)}×`,
      "recall@10": round(m.recall, 3),
    });
  }
  return { title: "SQLite vector index (adapters/vector-sqlite), plain Node over node:sqlite", rows, notes, summary };
}

function round(x, digits = 2) {
  return Number(x.toFixed(digits));
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (isMain) {
  const sizes = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
  const result = await run(null, { sizes, queryCount: Number(process.argv[3] ?? 200) });
  console.log(result.title);
  console.table(result.summary);
  for (const note of result.notes.slice(0, 2)) console.log(`  · ${note}`);
  const judged = result.rows.filter((r) => typeof r.ok === "boolean");
  if (judged.length > 0)
    console.log(`100k targets (p50 ≤ 25 ms, recall@10 ≥ 0.95): ${judged.every((r) => r.ok) ? "met" : "NOT met"}`);
}

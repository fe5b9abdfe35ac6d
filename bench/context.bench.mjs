// Measures the context engine as an agent runs it (durable-objects/agent/memory/context-turn.ts over the
// memory store, FTS5 and the local SQLite vector index), in plain Node over node:sqlite with the
// agent database's real migrations. No server needed.
//   node bench/context.bench.mjs [sizes=1000,10000,100000] [queries=60]
// Data: N synthetic memories ("The <w> <w> of project <w> is <w> <n>", words Zipf-drawn from a
// 3000-word vocabulary) with precomputed 512-dim vectors clustered around 50 topics × 20
// subtopics; each query has its own vector from the same clusters. Targets at 100k: compile
// p50 ≤ 25 ms, recall@10 of the local index against the exact scan ≥ 0.95, compile cost growing
// no faster than linearly (exponent of p50 over N ≤ 1). Ingestion (memories/s, embedding
// included) uses the real embeddings sidecar.
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { freePort } from "../scripts/dev-server.mjs";
import { ensureSidecar } from "../sidecar/ensure-sidecar.mjs";
import { agentDatabase, loadMemoryModules, localPorts, memoryOver } from "../test/node/memory-harness.mjs";
import { exactTopK, makeSyntheticVectors } from "./synthetic-vectors.mjs";

const D = 512;
const K = 10;

const synthetic = makeSyntheticVectors({ seed: 7, dimensions: D });
export const { random } = synthetic;
export const sampleVector = () => synthetic.sample(1);

const syllables = "ka lo mi ne ru ta shi vo pe da gu ri fe no zu ba te mo li sa".split(" ");
const vocabulary = Array.from(
  { length: 3000 },
  (_, i) =>
    syllables[i % 20] + syllables[Math.floor(i / 20) % 20] + (i >= 400 ? syllables[Math.floor(i / 400) % 20] : ""),
);
export const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(random() ** 2.2 * vocabulary.length))];
export const memoryText = (i) => `The ${word()} ${word()} of project ${word()} is ${word()} ${i}`;
export const queryText = () => `What is the ${word()} ${word()} of project ${word()}?`;

/** An EmbedPort that answers from precomputed vectors (memory texts and query texts alike). */
export function tableEmbedder(table) {
  return {
    model: "bench:clustered-512",
    dimensions: D,
    async embed(texts) {
      return texts.map((t) => table.get(t) ?? (table.set(t, sampleVector()), table.get(t)));
    },
  };
}

export const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const round = (x, digits = 2) => Number(x.toFixed(digits));

async function measure(modules, n, queryCount) {
  const database = agentDatabase(modules);
  const { sql, db } = database;
  const table = new Map();
  const embed = tableEmbedder(table);
  const ports = localPorts(modules, sql, embed);
  const clock = { now: () => Date.now() };
  const { memory, turns } = memoryOver(modules, database, clock, () => ports);
  const vectors = new Float32Array(n * D);
  const ids = [];
  let t = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(n, i + 1000); k++) {
      const text = memoryText(k);
      const v = sampleVector();
      table.set(text, v);
      vectors.set(v, k * D);
      batch.push({
        kind: "fact",
        text,
        provenance: "bench",
        importance: random(),
        createdAt: Date.now() - Math.floor(random() * 90) * 86_400_000,
      });
    }
    db.exec("BEGIN");
    const { records, warnings } = await memory.insert(batch);
    db.exec("COMMIT");
    if (warnings.length) throw new Error(warnings.join("; "));
    ids.push(...records.map((r) => r.id));
  }
  const loadMs = performance.now() - t;

  const session = "bench-session";
  for (let i = 0; i < 30; i++) {
    sql.exec(
      "INSERT INTO messages (id, session_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
      `msg${i}`,
      session,
      i % 2 ? "assistant" : "user",
      `Message ${i} about ${word()} and ${word()}.`,
      Date.now(),
    );
  }
  const queries = Array.from({ length: queryCount }, queryText);
  for (const q of queries.slice(0, 3))
    await turns.compile({
      sessionId: session,
      systemPrompt: "You are a bench agent.",
      query: q,
      sources: ["memory"],
      recencyWindow: 20,
      screen: () => null,
    });
  const times = [];
  let overBudget = 0;
  for (const q of queries) {
    t = performance.now();
    const { compiled } = await turns.compile({
      sessionId: session,
      systemPrompt: "You are a bench agent.",
      query: q,
      sources: ["memory"],
      recencyWindow: 20,
      screen: () => null,
    });
    times.push(performance.now() - t);
    if (compiled.tokens.used > compiled.tokens.budget) overBudget += 1;
  }

  // Recall@10 of the local index (as the store queries it) against the exact scan of the same vectors.
  const index = ports.vectors(embed.model, D);
  let hits = 0;
  for (let qi = 0; qi < queryCount; qi++) {
    const q = table.get(queries[qi]);
    const matches = await index.query(q, { topK: K, filter: { source: "memory" } });
    const exact = new Set(exactTopK(vectors, n, q, { dimensions: D, k: K }).map((i) => ids[i]));
    hits += matches.filter((m) => exact.has(m.id.split(".")[0])).length;
  }
  db.close();
  return { n, loadMs, p50: pct(times, 50), p95: pct(times, 95), recall: hits / (queryCount * K), overBudget };
}

/** Memories per second through the store with the real sidecar embedder (embedding included). */
async function ingestion(modules, count = 512) {
  const sidecar = await ensureSidecar({ port: await freePort(), timeoutMs: 60_000 });
  try {
    const embed = modules.makeOpenAiEmbedder({
      baseURL: sidecar.url,
      model: "use-lite",
      dimensions: 512,
      provider: "offline",
    });
    const database = agentDatabase(modules);
    const { memory } = memoryOver(modules, database, { now: () => Date.now() }, () =>
      localPorts(modules, database.sql, embed),
    );
    await memory.insert([{ kind: "fact", text: "warm up the model", provenance: "bench" }]);
    const texts = Array.from(
      { length: count },
      (_, i) =>
        `The user mentioned that meeting ${i} about ${word()} moved to ${["Monday", "Tuesday", "Friday"][i % 3]}.`,
    );
    const t = performance.now();
    for (let i = 0; i < count; i += 64) {
      const { warnings } = await memory.insert(
        texts.slice(i, i + 64).map((text) => ({ kind: "fact", text, provenance: "bench" })),
      );
      if (warnings.length) throw new Error(warnings.join("; "));
    }
    const seconds = (performance.now() - t) / 1000;
    database.db.close();
    return count / seconds;
  } finally {
    await sidecar.stop();
  }
}

/**
 * bench/run.mjs entry (no server needed). Sizes from BENCH_CONTEXT_SIZES (default 1000,10000,100000).
 * @returns {Promise<{ title: string, rows: object[], notes: string[], summary: object[] }>}
 */
export async function run(
  _server,
  { sizes = (process.env.BENCH_CONTEXT_SIZES ?? "1000,10000,100000").split(",").map(Number), queryCount = 60 } = {},
) {
  const modules = await loadMemoryModules();
  const rows = [];
  const summary = [];
  const results = [];
  for (const n of sizes) {
    const m = await measure(modules, n, queryCount);
    results.push(m);
    const judged = n === 100000;
    rows.push(
      {
        name: `context compile p50, ${n} memories`,
        figure: round(m.p50),
        unit: "ms",
        ...(judged ? { baseline: 25, ratio: round(m.p50 / 25), target: "<= 1 (25 ms)", ok: m.p50 <= 25 } : {}),
      },
      { name: `context compile p95, ${n} memories`, figure: round(m.p95), unit: "ms" },
      {
        name: `local index recall@10, ${n} memories`,
        figure: round(m.recall, 3),
        unit: "",
        ...(judged
          ? { baseline: 0.95, ratio: round(m.recall / 0.95), target: ">= 1 (0.95)", ok: m.recall >= 0.95 }
          : {}),
      },
    );
    summary.push({
      memories: n,
      "load s": round(m.loadMs / 1000, 1),
      "compile p50 ms": round(m.p50),
      "compile p95 ms": round(m.p95),
      "recall@10": round(m.recall, 3),
      "over budget": m.overBudget,
    });
  }
  const notes = [
    `${queryCount} compiles per size (recency window 20 of a 30-message session, budget 8000 tokens); vectors precomputed, clustered 50 × 20`,
  ];
  const first = results[0];
  const last = results.at(-1);
  if (first && last && last.n > first.n) {
    const exponent = Math.log(last.p50 / first.p50) / Math.log(last.n / first.n);
    rows.push({
      name: `compile growth exponent ${first.n}→${last.n}`,
      figure: round(exponent),
      unit: "",
      baseline: 1,
      ratio: round(exponent),
      target: "<= 1 (linear)",
      ok: exponent <= 1,
    });
  }
  try {
    const rate = await ingestion(modules);
    rows.push({ name: "ingestion with the sidecar embedder", figure: round(rate, 0), unit: "memories/s" });
  } catch (error) {
    notes.push(
      `ingestion skipped: the sidecar did not start (${error instanceof Error ? error.message.split("\n")[0] : error})`,
    );
  }
  return {
    title: "Context engine (context-turn over memory store, FTS5, local vector index), plain Node over node:sqlite",
    rows,
    notes,
    summary,
  };
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (isMain) {
  const sizes = (process.argv[2] ?? "1000,10000,100000").split(",").map(Number);
  const result = await run(null, { sizes, queryCount: Number(process.argv[3] ?? 60) });
  console.log(result.title);
  console.table(result.summary);
  console.table(
    result.rows.map((r) => ({
      name: r.name,
      figure: r.figure,
      unit: r.unit,
      target: r.target ?? "",
      "ratio to target": r.ratio ?? "",
      ok: r.ok ?? "",
    })),
  );
  for (const note of result.notes) console.log(`  · ${note}`);
}

// A/B of the context compile between checkouts, in the same seconds: one database of N synthetic
// memories (context.bench.mjs's data), each checkout's memory code compiling over it, the checkouts
// taking turns query by query (their order rotating), so every one meets the same machine load. On
// this shared 2-core machine separate runs of context.bench.mjs swing more than a change moves.
// Also says whether each checkout compiles exactly what the first one does (messages, items, scores, reasons).
//   node bench/context-ab.mjs <checkout> <checkout> [...] [--memories 100000] [--queries 60] [--rounds 5]
// A checkout is a folder with this repository (e.g. `git worktree add --detach /tmp/base <commit>`, with
// node_modules linked); the database takes the migrations of the last one.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { memoryText, pct, queryText, random, sampleVector, tableEmbedder, word } from "./context.bench.mjs";

const { values: options, positionals: checkouts } = parseArgs({
  allowPositionals: true,
  options: {
    memories: { type: "string", default: "100000" },
    queries: { type: "string", default: "60" },
    rounds: { type: "string", default: "5" },
  },
});
if (checkouts.length < 2)
  throw new Error(
    "usage: node bench/context-ab.mjs <checkout> <checkout> [...] [--memories N] [--queries N] [--rounds N]",
  );
const roots = checkouts.map((c) => resolve(c));
const n = Number(options.memories);
const queryCount = Number(options.queries);
const rounds = Number(options.rounds);

const table = new Map();
const embed = tableEmbedder(table);
// A fixed clock: the checkouts' compiles are compared byte for byte.
const clock = { now: () => 1_800_000_000_000 };
const loaded = [];
for (const root of roots) {
  const harness = await import(`${root}/test/node/memory-harness.mjs`);
  loaded.push({ root, harness, modules: await harness.loadMemoryModules() });
}
const last = loaded.at(-1);
const database = last.harness.agentDatabase(last.modules);
const setups = loaded.map(({ root, harness, modules }) => {
  const ports = harness.localPorts(modules, database.sql, embed);
  return { root, ...harness.memoryOver(modules, database, clock, () => ports) };
});
for (let i = 0; i < n; i += 1000) {
  const batch = [];
  for (let k = i; k < Math.min(n, i + 1000); k++) {
    const text = memoryText(k);
    table.set(text, sampleVector());
    batch.push({
      kind: "fact",
      text,
      provenance: "bench",
      importance: random(),
      createdAt: clock.now() - Math.floor(random() * 90) * 86_400_000,
    });
  }
  database.db.exec("BEGIN");
  await setups[0].memory.insert(batch);
  database.db.exec("COMMIT");
}
const session = "bench-session";
for (let i = 0; i < 30; i++) {
  database.sql.exec(
    "INSERT INTO messages (id, session_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
    `msg${i}`,
    session,
    i % 2 ? "assistant" : "user",
    `Message ${i} about ${word()} and ${word()}.`,
    clock.now(),
  );
}
const queries = Array.from({ length: queryCount }, queryText);
const turn = (q) => ({
  sessionId: session,
  systemPrompt: "You are a bench agent.",
  query: q,
  sources: ["memory"],
  recencyWindow: 20,
  screen: () => null,
});

const outputs = [];
for (const setup of setups) {
  const out = [];
  for (const q of queries) {
    const { compiled } = await setup.turns.compile(turn(q));
    out.push(
      JSON.stringify({
        messages: compiled.messages,
        items: compiled.items.map((x) => [x.id, x.scores, x.included, x.reason]),
      }),
    );
  }
  outputs.push(out);
}
for (let i = 1; i < setups.length; i++)
  console.log(
    `${roots[i]} compiles what ${roots[0]} does: ${outputs[i].every((o, q) => o === outputs[0][q]) ? "yes" : "NO"}`,
  );

const p50s = setups.map(() => []);
for (let round = 0; round < rounds; round++) {
  const times = setups.map(() => []);
  for (const [qi, q] of queries.entries()) {
    for (let k = 0; k < setups.length; k++) {
      const si = (qi + k) % setups.length;
      const t = performance.now();
      await setups[si].turns.compile(turn(q));
      times[si].push(performance.now() - t);
    }
  }
  for (const [si, setup] of setups.entries()) {
    p50s[si].push(pct(times[si], 50));
    console.log(
      `round ${round + 1} ${setup.root}: compile p50 ${pct(times[si], 50).toFixed(2)} ms, p95 ${pct(times[si], 95).toFixed(2)} ms`,
    );
  }
}
console.log(`${n} memories, ${queryCount} compiles per checkout per round`);
for (const [si, setup] of setups.entries())
  console.log(
    `${setup.root}: p50 by round ${p50s[si].map((x) => x.toFixed(1)).join(" / ")}; median ${pct(p50s[si], 50).toFixed(2)} ms`,
  );
database.db.close();

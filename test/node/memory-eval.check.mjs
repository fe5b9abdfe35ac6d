// The memory retrieval eval at CI size (bench/memory-eval, `npm run eval:memory` for the whole of it):
// the first conversations of the project's fixture with the worker's default (hashed) embedder.
// Fails when what the context puts in front of the model holds less evidence at recall@10 than
// plain BM25 over the same turns plus a margin, or when the committed fixture is not what its
// generator writes. Figures, not times: nothing here is timed.
//   node test/node/memory-eval.check.mjs
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture } from "../../bench/memory-eval/make-fixture.mjs";
import { evaluate, loadFixture, makeEmbedder, summarize, table } from "../../bench/memory-eval/eval.mjs";
import { makeLineChecks } from "./check-kit.mjs";
import { loadMemoryModules, root } from "./memory-harness.mjs";

/** Conversations run here (the full eval runs all of them). */
const conversations = 3;
/** Points of recall@10 the context must stay above BM25 on this subset. */
const margin = 5;

const { check, finish } = makeLineChecks();
try {
  const committed = readFileSync(join(root, "bench/memory-eval/fixture.json"), "utf8");
  check(committed === JSON.stringify(makeFixture(), null, 1) + "\n", "bench/memory-eval/fixture.json is what make-fixture.mjs writes");

  const modules = await loadMemoryModules();
  const fixture = loadFixture();
  const { embed } = await makeEmbedder("hashed", modules);
  const rows = await evaluate({ modules, fixture, embed, conversations });
  const summary = summarize(rows);
  console.log(table(summary, { embedder: embed.model }));
  const bm25 = summary.find((s) => s.name === "BM25").all[10];
  const context = summary.find((s) => s.name === "context").all[10];
  check(rows.length >= 90, `${rows.length} questions of ${conversations} conversations evaluated`);
  check(context >= bm25 + margin, `context recall@10 ${context.toFixed(1)} ≥ BM25 ${bm25.toFixed(1)} + ${margin}`);
  for (const kind of ["single", "multihop", "temporal"]) {
    const of = (name) => summary.find((s) => s.name === name).byKind[kind];
    check(of("context") >= of("BM25"), `${kind}: context recall@10 ${of("context").toFixed(1)} ≥ BM25 ${of("BM25").toFixed(1)}`);
  }
} catch (error) {
  check(false, `unexpected error: ${error instanceof Error ? error.stack : error}`);
}
finish();

// The memory retrieval eval at CI size (bench/memory-eval; `npm run eval:memory` runs all of it):
// the first conversations of the project's fixture, with both embedders the project ships. Fails
// when what the context puts in front of the model holds less evidence at recall@5, @10 or @25 than
// its own lexical stage, or at recall@10 than plain BM25 over the same turns plus a margin: 10
// points with USE-lite (the embeddings sidecar `npm start` runs, real weights), 4 with the hashed
// words-only fallback of a bare worker; or when the committed fixture is not what its generator writes. Figures, not times: nothing here is timed.
//   node test/node/memory-eval.check.mjs
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFixture } from "../../bench/memory-eval/make-fixture.mjs";
import { evaluate, ks, loadFixture, makeEmbedder, summarize, table } from "../../bench/memory-eval/eval.mjs";
import { makeLineChecks } from "./check-kit.mjs";
import { loadMemoryModules, root } from "./memory-harness.mjs";

/** Conversations run here (the full eval runs all twelve). */
const conversations = 3;
/** Points of recall@10 the context must stay above BM25 on this subset, per embedder. */
const margins = { hashed: 4, "use-lite": 10 };
/** Points of recall@10 the context may fall below the vector index alone on this fixture (see below). */
const vectorSlack = 8;

const { check, finish } = makeLineChecks();
try {
  const committed = readFileSync(join(root, "bench/memory-eval/fixture.json"), "utf8");
  check(
    committed === JSON.stringify(makeFixture(), null, 1) + "\n",
    "bench/memory-eval/fixture.json is what make-fixture.mjs writes",
  );

  const modules = await loadMemoryModules();
  const fixture = loadFixture();
  for (const [name, margin] of Object.entries(margins)) {
    const { embed, stop } = await makeEmbedder(name, modules);
    try {
      const rows = await evaluate({ modules, fixture, embed, conversations, stageNames: ["lexical only"] });
      const summary = summarize(rows);
      console.log(table(summary, { embedder: embed.model }));
      const of = (retriever) => summary.find((s) => s.name === retriever);
      check(rows.length >= 90, `${embed.model}: ${rows.length} questions of ${conversations} conversations evaluated`);
      // Never below its own lexical stage at any k (issue 43), on this set as on LoCoMo.
      for (const k of ks)
        check(
          of("context").all[k] >= of("lexical only").all[k],
          `${embed.model}: context recall@${k} ${of("context").all[k].toFixed(1)} ≥ its lexical stage ${of("lexical only").all[k].toFixed(1)}`,
        );
      check(
        of("context").all[10] >= of("BM25").all[10] + margin,
        `${embed.model}: context recall@10 ${of("context").all[10].toFixed(1)} ≥ BM25 ${of("BM25").all[10].toFixed(1)} + ${margin}`,
      );
      // The fusion must not fall far below its own vector part. Not "at or above" any more: the ranking
      // is set on people's conversations (LoCoMo), where words count first; on this fixture, whose
      // paraphrases are what a sentence encoder matches, that costs it about 5 points against USE-lite's
      // list alone (70.8 / 76.0 on these three, bench/memory-eval/results.md).
      check(
        of("context").all[10] >= of("vector index").all[10] - vectorSlack,
        `${embed.model}: context recall@10 ${of("context").all[10].toFixed(1)} ≥ the vector index alone ${of("vector index").all[10].toFixed(1)} − ${vectorSlack}`,
      );
    } finally {
      await stop();
    }
  }
} catch (error) {
  check(false, `unexpected error: ${error instanceof Error ? error.stack : error}`);
}
finish();

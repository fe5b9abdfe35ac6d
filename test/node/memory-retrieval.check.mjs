// Retrieval with real weights: the embeddings sidecar (USE-lite, 512 dimensions) embeds the fixture
// facts and their paraphrased questions (test/memory/retrieval-fixture.json); each question's fact
// must be in the top 3 by cosine, both by a direct comparison and through the agent's memory store
// (SQLite vector index over node:sqlite). The workerd tests use the hashed embedder, which only
// sees shared words; this is where meaning is checked.
//   node test/node/memory-retrieval.check.mjs
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../scripts/dev-server.mjs";
import { ensureSidecar } from "../../sidecar/ensure-sidecar.mjs";
import { cosine, makeLineChecks } from "./check-kit.mjs";
import { agentDatabase, loadMemoryModules, localPorts, root, systemClock, memoryOver } from "./memory-harness.mjs";

const fixture = JSON.parse(readFileSync(join(root, "test/memory/retrieval-fixture.json"), "utf8"));
const { check, finish } = makeLineChecks();

let sidecar;
try {
  sidecar = await ensureSidecar({ port: await freePort(), timeoutMs: 60_000 });
  const modules = await loadMemoryModules();
  const embed = modules.makeOpenAiEmbedder({
    baseURL: sidecar.url,
    model: "use-lite",
    dimensions: 512,
    provider: "offline",
  });

  const factVectors = await embed.embed(fixture.facts.map((f) => f.text));
  const questionVectors = await embed.embed(fixture.questions.map((q) => q.text));
  fixture.questions.forEach((question, i) => {
    const ranked = fixture.facts
      .map((f, j) => ({ id: f.id, score: cosine(questionVectors[i], factVectors[j]) }))
      .sort((a, b) => b.score - a.score);
    const rank = ranked.findIndex((r) => r.id === question.fact) + 1;
    check(
      rank >= 1 && rank <= 3,
      `cosine rank ${rank} (${ranked[rank - 1]?.score.toFixed(3)}) "${question.text}" → ${question.fact}`,
    );
  });

  const database = agentDatabase(modules);
  const { memory } = memoryOver(modules, database, systemClock, () => localPorts(modules, database.sql, embed));
  const { records, warnings } = await memory.insert(
    fixture.facts.map((f) => ({ kind: "fact", text: f.text, provenance: "check" })),
  );
  check(
    warnings.length === 0 && records.length === fixture.facts.length,
    `stored ${records.length} facts with vectors${warnings.length ? `: ${warnings.join("; ")}` : ""}`,
  );
  const idOf = new Map(records.map((r, i) => [r.id, fixture.facts[i].id]));
  for (const question of fixture.questions) {
    const hits = await memory.semantic(question.text, { sources: ["memory"], limit: 3 });
    const top = hits.map((h) => idOf.get(h.id));
    check(top.includes(question.fact), `memory store top 3 [${top.join(", ")}] for "${question.text}"`);
  }
} catch (error) {
  check(false, `unexpected error: ${error instanceof Error ? error.stack : error}`);
} finally {
  await sidecar?.stop();
}

// The last line is what test/node/run.mjs and scripts/test.mjs count.
finish();

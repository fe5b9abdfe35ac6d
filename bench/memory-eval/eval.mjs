// The memory retrieval eval (`npm run eval:memory`): how often what the context engine puts in front
// of the model holds the evidence of a question, on the project's own long-conversation fixture
// (bench/memory-eval/fixture.json, written by make-fixture.mjs), next to two baselines computed in
// the same run over the same stored turns: plain BM25 (SQLite FTS5's bm25 over the question's tokens,
// OR-ed) and the vector index alone.
//
//   npm run eval:memory                                  # hashed embedder (the worker's default)
//   npm run eval:memory -- --embedders hashed,use-lite   # also USE-lite through the sidecar
//   npm run eval:memory -- --conversations 3 --stages    # a subset; what each stage adds
//   npm run eval:memory -- --write                       # also rewrite bench/memory-eval/results.md
//   npm run eval:memory -- --sets locomo --only L06,L07 --cache /tmp/e.json   # a few at a time; embeddings kept
// Each conversation's recall@10 is printed to stderr as it finishes, so a killed run still tells.
//
// Every conversation goes into a fresh agent database (the real migrations, over node:sqlite): each
// turn becomes an `episode` memory through the import path (importLines), with the session's date
// as the time it happened and, as for an agent that lived through the conversation, as the time it
// was stored. Each question is then compiled as `GET …/context?q=` compiles it (makeContextTurns over
// the memory store), "now" being a day after the last session. The context's ranking is its memory
// items in order (near-duplicates it dropped are not in it). recall@k of a question is the share of
// its evidence turns among the first k; figures are the mean over questions, in points.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentDatabase, loadMemoryModules, localPorts, memoryOver, root } from "../../test/node/memory-harness.mjs";

export const ks = [5, 10, 25];
export const kinds = ["single", "multihop", "temporal", "open"];
const dayMs = 86_400_000;

/**
 * The eval's sets: the project's generated fixture, and LoCoMo (ten conversations written by people,
 * see bench/memory-eval/locomo/PROVENANCE.md). The generated one alone may not decide a ranking change.
 */
export const sets = {
  generated: "bench/memory-eval/fixture.json",
  locomo: "bench/memory-eval/locomo/locomo10.json",
};

export function loadSet(name) {
  const file = sets[name];
  if (!file) throw new Error(`unknown eval set '${name}' (${Object.keys(sets).join(", ")})`);
  return JSON.parse(readFileSync(join(root, file), "utf8"));
}

export function loadFixture() {
  return loadSet("generated");
}

/** The fixture's two parties are "user" and "assistant"; a set of two people names them. */
function speakerOf(turn) {
  return turn.speaker === "user" ? "User" : turn.speaker === "assistant" ? "Assistant" : turn.speaker;
}

/** Turn ids are `c01:s02:t03`; memory ids allow no colon. */
const memoryIdOf = (turnId) => turnId.replaceAll(":", "-");
const turnIdOf = (memoryId) => memoryId.replaceAll("-", ":");

/**
 * What the engine runs with per stage: each stage switches on one more part, the last is the engine
 * as it ships. Before it, ranking is by relevance alone: no recency, no importance, no preference for
 * the period a question names (its words are still left out of the searches).
 */
const relevanceOnly = { weights: { relevance: 1, recency: 0, importance: 0 }, currentRecency: 0, outOfPeriod: 1 };
const noRerank = { mmrLambda: 1, duplicateThreshold: 2 };
export const stages = [
  {
    name: "lexical only",
    lexical: true,
    semantic: false,
    tuning: { ...relevanceOnly, ...noRerank, graphLimit: 0, adjacentFrom: 0 },
  },
  {
    name: "vector only",
    lexical: false,
    semantic: true,
    tuning: { ...relevanceOnly, ...noRerank, graphLimit: 0, adjacentFrom: 0 },
  },
  {
    name: "fusion (weighted RRF)",
    lexical: true,
    semantic: true,
    tuning: { ...relevanceOnly, ...noRerank, graphLimit: 0, adjacentFrom: 0 },
  },
  { name: "+ graph hop", lexical: true, semantic: true, tuning: { ...relevanceOnly, ...noRerank, adjacentFrom: 0 } },
  { name: "+ adjacent turns", lexical: true, semantic: true, tuning: { ...relevanceOnly, ...noRerank } },
  // The re-rank as the embedder's fusion sets it (a words-only embedder keeps no diversity term).
  { name: "+ re-rank (MMR, near-duplicates)", lexical: true, semantic: true, tuning: relevanceOnly },
  { name: "+ recency, importance, period (the context)", lexical: true, semantic: true, tuning: {} },
];

/** The embedders the eval knows: the worker's default, and USE-lite through the dev sidecar. */
export async function makeEmbedder(name, modules) {
  if (name === "hashed") return { embed: modules.makeHashedEmbedder({ dimensions: 256 }), stop: async () => {} };
  if (name === "use-lite") {
    const { ensureSidecar } = await import("../../sidecar/ensure-sidecar.mjs");
    const { freePort } = await import("../../scripts/dev-server.mjs");
    const sidecar = await ensureSidecar({ port: await freePort(), timeoutMs: 120_000 });
    return {
      embed: modules.makeOpenAiEmbedder({
        baseURL: sidecar.url,
        model: "use-lite",
        dimensions: 512,
        provider: "offline",
      }),
      stop: () => sidecar.stop(),
    };
  }
  throw new Error(`unknown embedder '${name}' (hashed, use-lite)`);
}

/** The conversation's turns as import lines: episodes, dated by their session. */
export function turnLines(conversation) {
  return conversation.sessions
    .flatMap((session) =>
      session.turns.map((turn, i) => {
        // A minute a turn, so turns of one session keep their order in time.
        const at = Date.parse(session.date) + i * 60_000;
        return JSON.stringify({
          id: memoryIdOf(turn.id),
          kind: "episode",
          text: `${speakerOf(turn)}: ${turn.text}`,
          occurredAt: at,
          createdAt: at,
          provenance: `eval:${conversation.id}`,
        });
      }),
    )
    .join("\n");
}

/**
 * The baseline's query: every token of the question as the index's tokenizer (unicode61) cuts the
 * text, OR-ed, no stopword list, no expansion: bm25's IDF alone weighs "what" against "Biscuit".
 * Independent of the engine's own query building (ftsQuery), so improving that cannot move the baseline.
 */
export function plainBm25Query(question) {
  const tokens = [...new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  return tokens.map((t) => `"${t}"`).join(" OR ");
}

function recallAt(ranking, evidence, k) {
  const top = new Set(ranking.slice(0, k));
  return evidence.filter((e) => top.has(e)).length / evidence.length;
}

/**
 * Runs the eval over `conversations` with one embedder: for each question, the rankings of BM25, the
 * vector index, the context, and (with `withStages`) each stage. Returns per-question recalls.
 */
export async function evaluate({
  modules,
  fixture,
  embed,
  conversations,
  only,
  withStages = false,
  stageNames,
  tuning = {},
  variants = [],
  progress = false,
}) {
  const rows = [];
  const chosen = only
    ? fixture.conversations.filter((c) => only.includes(c.id))
    : fixture.conversations.slice(0, conversations ?? fixture.conversations.length);
  // `stageNames`: only these stages (a check that needs one stage need not run them all).
  const stagesRun = withStages ? stages : stageNames ? stages.filter((s) => stageNames.includes(s.name)) : [];
  for (const conversation of chosen) {
    const last = Date.parse(conversation.sessions.at(-1).date);
    const clock = { now: () => last + dayMs };
    const database = agentDatabase(modules);
    const { memory, messages, settings } = memoryOver(modules, database, clock, () =>
      localPorts(modules, database.sql, embed),
    );
    const report = await modules.importLines(memory, turnLines(conversation));
    if (report.errors.length)
      throw new Error(`import of ${conversation.id} failed: ${JSON.stringify(report.errors.slice(0, 3))}`);

    const bm25 = database.db.prepare(
      "SELECT m.id AS id FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ? ORDER BY bm25(memories_fts) LIMIT ?",
    );
    const variantRuns = variants.map((v) => ({ name: JSON.stringify(v), lexical: true, semantic: true, tuning: v }));
    const runs = [{ name: "context", lexical: true, semantic: true, tuning }, ...stagesRun, ...variantRuns].map(
      (stage) => {
        const partial = {
          ...memory,
          lexical: stage.lexical ? memory.lexical : () => [],
          semantic: stage.semantic ? memory.semantic : async () => [],
        };
        return { stage, turns: modules.makeContextTurns({ clock, memory: partial, messages, settings }) };
      },
    );

    for (const question of conversation.questions) {
      const match = plainBm25Query(question.text);
      const rankings = {
        BM25: match ? bm25.all(match, 25).map((r) => turnIdOf(r.id)) : [],
        "vector index": (await memory.semantic(question.text, { sources: ["memory"], limit: 25 })).map((h) =>
          turnIdOf(h.id),
        ),
      };
      for (const { stage, turns } of runs) {
        const { compiled } = await turns.compile({
          sessionId: "eval",
          systemPrompt: "You are the user's assistant.",
          query: question.text,
          sources: ["memory"],
          recencyWindow: 20,
          // The bench stores no model output: every write may pass.
          screen: () => null,
          // Room for 25 items: the order is the engine's; the default shows the model the first 12.
          tuning: { ...stage.tuning, maxItems: 25 },
        });
        rankings[stage.name] = compiled.items.filter((item) => item.included).map((item) => turnIdOf(item.id));
      }
      const recalls = {};
      for (const [name, ranking] of Object.entries(rankings))
        recalls[name] = Object.fromEntries(ks.map((k) => [k, recallAt(ranking, question.evidence, k)]));
      rows.push({
        conversation: conversation.id,
        question: question.id,
        kind: question.kind,
        text: question.text,
        evidence: question.evidence,
        recalls,
        rankings,
      });
    }
    if (progress) {
      const done = rows.filter((r) => r.conversation === conversation.id);
      const at10 = (name) =>
        ((100 * done.reduce((s, r) => s + r.recalls[name][10], 0)) / Math.max(1, done.length)).toFixed(1);
      console.error(
        `${conversation.id}: ${done.length} questions, recall@10 ${Object.keys(done[0]?.recalls ?? {})
          .map((name) => `${name} ${at10(name)}`)
          .join(", ")}`,
      );
    }
  }
  return rows;
}

/** Mean recall in points (0–100), one decimal, per retriever: overall and per question kind. */
export function summarize(rows) {
  const names = Object.keys(rows[0]?.recalls ?? {});
  const mean = (subset, name, k) =>
    subset.length ? (100 * subset.reduce((s, r) => s + r.recalls[name][k], 0)) / subset.length : NaN;
  return names.map((name) => ({
    name,
    all: Object.fromEntries(ks.map((k) => [k, mean(rows, name, k)])),
    byKind: Object.fromEntries(
      kinds.map((kind) => [
        kind,
        mean(
          rows.filter((r) => r.kind === kind),
          name,
          10,
        ),
      ]),
    ),
  }));
}

export function table(summary, { embedder, baseline = "BM25" } = {}) {
  const base = summary.find((s) => s.name === baseline);
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : "–");
  const lines = [
    `| retriever (${embedder}) | R@5 | R@10 | R@25 | R@10 vs ${baseline} | single | multi-hop | temporal | open |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const s of summary) {
    const delta = s.all[10] - base.all[10];
    lines.push(
      `| ${s.name} | ${f(s.all[5])} | ${f(s.all[10])} | ${f(s.all[25])} | ${s === base ? "" : (delta >= 0 ? "+" : "") + f(delta)} | ${kinds.map((k) => f(s.byKind[k])).join(" | ")} |`,
    );
  }
  return lines.join("\n");
}

/**
 * With `--cache <file>`, embeddings are kept on disk between runs (a real model takes minutes for the
 * whole fixture); the figures are the same, only faster to repeat.
 */
function cached(embed) {
  const file = argument("cache", "");
  if (!file) return embed;
  const key = (t) => `${embed.model}\u0000${t}`;
  let table = {};
  try {
    table = JSON.parse(readFileSync(file, "utf8"));
  } catch {}
  let dirty = false;
  let savedAt = Date.now();
  const save = () => {
    if (dirty) writeFileSync(file, JSON.stringify(table));
    dirty = false;
    savedAt = Date.now();
  };
  process.once("exit", save);
  return {
    ...embed,
    async embed(texts) {
      const missing = [...new Set(texts.filter((t) => !table[key(t)]))];
      if (missing.length) {
        const vectors = await embed.embed(missing);
        missing.forEach((t, i) => (table[key(t)] = vectors[i]));
        dirty = true;
        // Saved every minute too, so a killed sidecar or run loses at most a minute of embedding.
        if (Date.now() - savedAt > 60_000) save();
      }
      return texts.map((t) => table[key(t)]);
    },
  };
}

function argument(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] && !process.argv[i + 1].startsWith("--") ? process.argv[i + 1] : fallback;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const setNames = argument("sets", Object.keys(sets).join(",")).split(",");
  const embedders = argument("embedders", "hashed").split(",");
  const withStages = process.argv.includes("--stages") || process.argv.includes("--write");
  const modules = await loadMemoryModules();
  const out = [
    `Memory retrieval eval, ${new Date().toISOString().slice(0, 10)}. recall@k in points; the kind columns are R@10.`,
  ];
  for (const setName of setNames) {
    const fixture = loadSet(setName);
    const conversations = Number(argument("conversations", fixture.conversations.length));
    // --only L03,L04: those conversations (for running a set a few at a time and summing).
    const only = argument("only", "") ? argument("only", "").split(",") : undefined;
    const chosen = only
      ? fixture.conversations.filter((c) => only.includes(c.id))
      : fixture.conversations.slice(0, conversations);
    const questions = chosen.reduce((n, c) => n + c.questions.length, 0);
    out.push(
      "",
      `## ${setName}: ${chosen.length} conversations (${chosen.map((c) => c.id).join(", ")}), ${questions} questions (${sets[setName]})`,
    );
    for (const name of embedders) {
      const { embed, stop } = await makeEmbedder(name, modules);
      try {
        const tuning = JSON.parse(argument("tuning", "{}"));
        // --variants '[{…}, {…}]': more tunings of the context, each a row (for choosing the defaults).
        const variants = JSON.parse(argument("variants", "[]"));
        const rows = await evaluate({
          modules,
          fixture,
          embed: cached(embed),
          conversations,
          only,
          withStages,
          tuning,
          variants,
          progress: true,
        });
        out.push("", table(summarize(rows), { embedder: embed.model }));
        console.error(out.at(-1));
        if (process.argv.includes("--lost")) {
          // Questions where BM25 holds more evidence in its first 10 than the context.
          const [ours, theirs] = argument("lost", "context,BM25").split(",");
          for (const r of rows.filter((r) => r.recalls[ours][10] < r.recalls[theirs][10])) {
            console.log(
              `lost ${r.question} [${r.kind}] ${r.text}\n  evidence ${r.evidence.join(" ")}\n  ${ours} ${r.rankings[ours].slice(0, 10).join(" ")}\n  ${theirs} ${r.rankings[theirs].slice(0, 10).join(" ")}`,
            );
          }
        }
        if (process.argv.includes("--misses")) {
          for (const r of rows.filter((r) => r.recalls.context[10] < 1))
            console.log(
              `${r.question} [${r.kind}] ${r.text}\n  evidence ${r.evidence.join(" ")}\n  top ${r.rankings.context.slice(0, 10).join(" ")}`,
            );
        }
      } finally {
        await stop();
      }
    }
  }
  const text = out.join("\n") + "\n";
  console.log(text);
  if (process.argv.includes("--write"))
    writeFileSync(join(root, "bench/memory-eval/results.md"), `# Memory retrieval eval\n\n${text}`);
}

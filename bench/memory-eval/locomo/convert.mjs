// Converts LoCoMo's release (snap-research/locomo, data/locomo10.zip: ten JSON files, one a
// conversation) into the memory eval's own set format (bench/memory-eval/locomo/locomo10.json), and
// checks the archive is the one recorded in PROVENANCE.md. Run once; the output is committed.
//   node bench/memory-eval/locomo/convert.mjs <path to locomo10.zip>
//
// What is kept: each session's date and turns (speaker, text, and the caption of a shared photo, as
// "[shares a photo: …]": several questions are answered only by it) and the questions of categories
// 1–4 with their evidence turns. What is left out: the generated observations, session summaries and
// event summaries (not written by people, and a retriever over turns does not see them), image URLs,
// and category 5 (adversarial: the question asks about what was never said, so it has no evidence).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** sha256 of data/locomo10.zip at snap-research/locomo commit e76cdff4a04fce19090596d49862fe87a5c15aaa. */
export const archiveSha256 = "5c342973da4b45c12583c9fc7594d6410880f5aba2c491a0db09db262c906fb5";

/**
 * LoCoMo's category numbers, as its released data uses them (the paper's table lists them in another
 * order): 1 multi-hop, 2 temporal, 3 open-domain (world knowledge), 4 single-hop, 5 adversarial.
 */
const kindOf = { 1: "multihop", 2: "temporal", 3: "open", 4: "single" };

const months = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" → ISO time (UTC: the set names no zone). */
export function sessionDate(text) {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) (\w+),? (\d{4})$/i.exec(text.trim());
  if (!m) throw new Error(`unreadable session date '${text}'`);
  const month = months.indexOf(m[5].toLowerCase());
  if (month < 0) throw new Error(`unreadable month in '${text}'`);
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === "pm" ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/**
 * The evidence ids of a question as the release spells them, repaired where the slip is plain
 * ("D8:6; D9:17", "D:11:26", "D30:05"); ids naming no turn are dropped.
 */
function evidenceIds(evidence, known) {
  return evidence
    .flatMap((e) => String(e).split(/[;,\s]+/))
    .map((e) => e.replace(/^D:/, "D").replace(/:0+(\d)/, ":$1"))
    .filter((e) => known.has(e));
}

export function convertConversation(raw, index) {
  const id = `L${String(index + 1).padStart(2, "0")}`;
  const turnId = new Map();
  const sessions = [];
  for (let n = 1; raw[`session_${n}_date_time`] !== undefined; n++) {
    const turns = raw[`session_${n}`];
    if (!Array.isArray(turns) || turns.length === 0) continue;
    const session = `s${String(n).padStart(2, "0")}`;
    sessions.push({
      date: sessionDate(raw[`session_${n}_date_time`]),
      turns: turns.map((turn, i) => {
        const ours = `${id}:${session}:t${String(i + 1).padStart(2, "0")}`;
        turnId.set(turn.dia_id, ours);
        const photo = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : "";
        return { id: ours, speaker: turn.speaker, text: `${turn.text}${photo}` };
      }),
    });
  }
  const questions = [];
  raw.qa.forEach((qa, i) => {
    const kind = kindOf[qa.category];
    if (!kind) return;
    const evidence = [...new Set(evidenceIds(qa.evidence ?? [], turnId).map((e) => turnId.get(e)))];
    if (evidence.length === 0) return;
    questions.push({
      id: `${id}:q${String(i + 1).padStart(3, "0")}`,
      kind,
      text: qa.question,
      evidence,
      answer: String(qa.answer),
    });
  });
  return { id, speakers: [raw.speaker_a, raw.speaker_b], sessions, questions };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const archive = process.argv[2];
  if (!archive) throw new Error("usage: node bench/memory-eval/locomo/convert.mjs <locomo10.zip>");
  const sha = createHash("sha256").update(readFileSync(archive)).digest("hex");
  if (sha !== archiveSha256) throw new Error(`${archive} has sha256 ${sha}, not the recorded ${archiveSha256}`);
  const dir = mkdtempSync(join(tmpdir(), "locomo-"));
  try {
    const unzip = spawnSync("unzip", ["-q", "-o", archive, "-d", dir], { encoding: "utf8" });
    if (unzip.status !== 0) throw new Error(`unzip failed: ${unzip.stderr}`);
    const folder = join(dir, "data/multimodal_dialog/locomo10_v2");
    const files = readdirSync(folder)
      .filter((f) => f.endsWith(".json"))
      .sort((a, b) => Number.parseInt(a) - Number.parseInt(b));
    const conversations = files.map((f, i) =>
      convertConversation(JSON.parse(readFileSync(join(folder, f), "utf8")), i),
    );
    const set = {
      about:
        "LoCoMo (Maharana et al., ACL 2024; github.com/snap-research/locomo), ten long two-person conversations written by " +
        "LLM agents and edited by people, with human-annotated questions and evidence turns, converted by convert.mjs; see PROVENANCE.md.",
      source: {
        repository: "snap-research/locomo",
        commit: "e76cdff4a04fce19090596d49862fe87a5c15aaa",
        file: "data/locomo10.zip",
        sha256: sha,
        files,
      },
      conversations,
    };
    const out = join(here, "locomo10.json");
    writeFileSync(out, JSON.stringify(set) + "\n");
    const turns = conversations.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
    const questions = conversations.reduce((n, c) => n + c.questions.length, 0);
    console.log(`wrote ${out}: ${conversations.length} conversations, ${turns} turns, ${questions} questions`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

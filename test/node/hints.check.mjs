// Every `pantheon <command> <action>` the code tells a person to run (hints in errors, approval
// waits, the doctor's fixes, the PWA's messages, the CLI's own notes) names a command of the CLI's
// real command table, by its current name: an older spelling (`pantheon approve`, kept as an alias
// so old scripts run) or a command that was renamed fails here, so hints cannot drift from the CLI.
//   node test/node/hints.check.mjs
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { makeChecks } from "./check-kit.mjs";
import { root } from "./memory-harness.mjs";
// The CLI's files import the repository's shared code without extensions, as cli/pantheon.ts resolves them.
import "./ts-resolve.mjs";

const { commands } = await import(join(root, "cli/main.ts"));
const { check, finish } = makeChecks();

const byName = new Map(commands.map((c) => [c.name, c]));

/** A word that stands for an argument: `<agent>`, `${agent}`, `[--call <id>]`, `"<text>"`, a flag. */
const placeholder = (word) => /^(<|\$\{|\[|"|'|-)/.test(word);

/**
 * Why `pantheon <words…>` does not name a real command and action, or null when it does.
 * `approve|reject` (a hint offering both) is checked word by word.
 */
export function problemOf(words) {
  const [name, second] = words;
  if (name === "help") return null;
  const command = byName.get(name);
  if (!command) return `'${name}' is not a command of the CLI (commands: ${[...byName.keys()].join(", ")})`;
  const named = command.actions.filter((a) => a.name !== "");
  if (!named.length || second === undefined || placeholder(second)) return null;
  // `pantheon runs scout` is `runs list scout`: a command whose default action takes arguments reads a word as one.
  const fallback = named.find((a) => a.name === command.defaultAction);
  if (fallback?.usage.some((u) => /^\[?</.test(u.trim())) && !second.includes("|")) return null;
  for (const word of second.split("|")) {
    if (!named.some((a) => a.name === word))
      return `'${name} ${word}': ${name} has no action '${word}' (actions: ${named.map((a) => a.name).join(", ")})`;
  }
  return null;
}

/** Each `pantheon <command> [<action>]` in a text, with its line. */
export function mentionsIn(text) {
  const found = [];
  const pattern = /\bpantheon ([a-z][a-z-]*)(?: (\S+))?/g;
  for (const line of text.split("\n").map((l, i) => [l, i + 1])) {
    for (const m of line[0].matchAll(pattern)) {
      const second = m[2] && /^[a-z]/.test(m[2]) ? m[2].replace(/[^a-z|-].*$/, "") : m[2];
      found.push({ words: second ? [m[1], second] : [m[1]], line: line[1], text: m[0] });
    }
  }
  return found;
}

/** Words after "pantheon" that are prose, not a command ("the pantheon command", "a Pantheon agent" is capitalised). */
const prose = new Set(["command", "cli", "bin", "checkout", "server", "project", "deployment"]);

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === "node_modules" || entry === "dist") continue;
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mjs|js)$/.test(entry) && !entry.endsWith(".d.ts")) yield path;
  }
}

// The checker itself: a renamed spelling is caught, the current ones pass (a positive control beside each refusal).
check("the checker refuses an old spelling: pantheon approve", problemOf(["approve", "scout"]) !== null, "not flagged");
check(
  "the checker refuses a command that does not exist: pantheon token create",
  problemOf(["token", "create"]) !== null,
  "not flagged",
);
check(
  "the checker refuses an action that does not exist: pantheon agents frobnicate",
  problemOf(["agents", "frobnicate"]) !== null,
  "not flagged",
);
check(
  "the checker accepts pantheon runs approve and pantheon agents list",
  problemOf(["runs", "approve"]) === null && problemOf(["agents", "list"]) === null,
  "refused",
);
check(
  "the checker finds every mention in a line, template placeholders included",
  JSON.stringify(
    mentionsIn("or `pantheon runs approve ${agent} ${runId}` then pantheon history ${agent}").map((m) => m.words),
  ) ===
    JSON.stringify([
      ["runs", "approve"],
      ["history", "${agent}"],
    ]),
  JSON.stringify(mentionsIn("or `pantheon runs approve ${agent} ${runId}` then pantheon history ${agent}")),
);

const where = ["workers", "core", "cli", "durable-objects", "adapters", "pwa/src"];
const problems = [];
let seen = 0;
for (const dir of where) {
  for (const file of sourceFiles(join(root, dir))) {
    const lines = readFileSync(file, "utf8").split("\n");
    for (const mention of mentionsIn(lines.join("\n"))) {
      // A comment may show a mistake on purpose (cli/main.ts: "`pantheon agents frobnicate` is a mistyped action").
      if (prose.has(mention.words[0]) || /mistyped/.test(lines[mention.line - 1])) continue;
      seen += 1;
      const problem = problemOf(mention.words);
      if (problem) problems.push(`${relative(root, file)}:${mention.line}: "${mention.text}": ${problem}`);
    }
  }
}
check(`the code mentions pantheon commands (${seen} found in ${where.join(", ")})`, seen >= 30, `only ${seen}`);
check(
  "every pantheon command the code mentions exists in the CLI under its current name",
  problems.length === 0,
  `\n  ${problems.join("\n  ")}`,
);
finish();

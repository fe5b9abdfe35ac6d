// The commands of the README and the docs/ pages, read as test/node/readme.check.mjs runs them.
// Not a *.check.mjs file.
//
// - Fenced blocks whose info string starts with `sh`, `bash` or `console` hold commands. In `sh`
//   and `bash` every line is a command (a line ending in `\` or an open quote goes on to the next);
//   in `console` the lines starting with `$ ` are, and the lines under one are its expected output.
// - A word after the language marks a block that is not run here, for the reason `skipTags` gives
//   (```sh cloudflare). Any other word is an error, so the list stays short and visible.
// - `curl` in an inline code span of the prose is a command too.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** The only marks a block may carry, and why such a block is not run by the check. */
export const skipTags = {
  cloudflare: "needs a Cloudflare account (not run locally)",
  interactive:
    "needs a person at a terminal (keys, a picker); `pantheon chat` is driven in tmux by test/node/cli-chat.check.mjs",
  internet:
    "reaches a service on the internet (github.com, api.githubcopilot.com), which this machine cannot; test/node/feature-cli.check.mjs and mcp-credentials.check.mjs run the same commands against loopback doubles",
  slow: "takes minutes (the memory eval with every stage or the USE-lite embedder over whole sets); test/node/memory-eval.check.mjs and memory-locomo.check.mjs run it on a few conversations, and the docs' --stages line on two",
};

/** Commands run by another check, or that cannot run inside the suite. */
export const runElsewhere = [
  [/^npm test\b/, "the whole suite, which this check is part of"],
  [/^npm start\b/, "run as written by test/node/start.check.mjs (in a fresh copy, two servers side by side)"],
];

/** A command is whole when it does not end in `\` and sh can parse it. */
function complete(text) {
  if (/\\$/.test(text)) return false;
  return spawnSync("sh", ["-n", "-c", text]).status === 0;
}

/**
 * Every command of the README, in order.
 * @returns {{ line: number, command: string, expected: string[], skip?: string, error?: string }[]}
 */
export function readmeCommands(readme) {
  const lines = readme.split("\n");
  const commands = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) {
      for (const span of lines[i].matchAll(/`(curl [^`]+)`/g))
        commands.push({ line: i + 1, command: span[1], expected: [] });
      continue;
    }
    const [, indent, language, rest] = open;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^${indent}\`\`\`\\s*$`).test(lines[j]))
      body.push(lines[j++].slice(indent.length));
    const start = i + 2;
    i = j;
    if (!["sh", "bash", "console"].includes(language)) continue;
    const tags = rest.split(/\s+/).filter(Boolean);
    const unknown = tags.find((tag) => !(tag in skipTags));
    const skip = tags.map((tag) => skipTags[tag]).find(Boolean);
    const add = (line, command, expected = []) =>
      commands.push({
        line,
        command,
        expected,
        ...(skip ? { skip } : {}),
        ...(unknown ? { error: `unknown mark '${unknown}' (known: ${Object.keys(skipTags).join(", ")})` } : {}),
      });
    if (language === "console") {
      let current;
      body.forEach((text, k) => {
        if (text.startsWith("$ ")) {
          current = { line: start + k, command: text.slice(2), expected: [] };
          add(current.line, current.command, current.expected);
        } else if (current && text.trim()) commands.at(-1).expected.push(text);
      });
    } else {
      let pending = "";
      let pendingLine = 0;
      body.forEach((text, k) => {
        if (!pending && !text.trim()) return;
        if (!pending) pendingLine = start + k;
        pending = pending ? `${pending}\n${text}` : text;
        if (complete(pending)) {
          add(pendingLine, pending);
          pending = "";
        }
      });
      if (pending)
        commands.push({
          line: pendingLine,
          command: pending,
          expected: [],
          error: "the command never ends (an open quote or a trailing \\)",
        });
    }
  }
  return commands.map((c) => {
    const elsewhere = runElsewhere.find(([pattern]) => pattern.test(c.command.trim()));
    return elsewhere && !c.skip ? { ...c, skip: elsewhere[1] } : c;
  });
}

/**
 * A line of expected output as a pattern that still holds when what changes from run to run
 * changes: numbers, hex ids (a run of 4 or more hex digits), absolute paths, and the width of the
 * spaces between columns.
 * @example
 * loosely("helper  idle  2026-11-25 07:52:20  Helps").test("helper idle 2026-11-26 15:01:02 Helps"); // true
 */
export function loosely(expected) {
  const volatile =
    /((?:~|\/[\w.-]+)(?:\/[\w.-]+)+)|(?<![0-9a-zA-Z])((?=[0-9a-f]*\d)[0-9a-f]{4,})(?![0-9a-zA-Z])|(\d+)|(\s+)/g;
  let pattern = "";
  let last = 0;
  const text = expected.trim();
  for (const match of text.matchAll(volatile)) {
    pattern += text.slice(last, match.index).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    pattern += match[1] ? "\\S+" : match[2] ? "[0-9a-f-]+" : match[3] ? "\\d+" : "\\s+";
    last = match.index + match[0].length;
  }
  pattern += text.slice(last).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${pattern}$`);
}

/**
 * Which expected lines the output does not have, in order (a line a terminal prompt drew, `? …`,
 * is not expected: the check gives the token in PANTHEON_TOKEN, so nothing is asked).
 */
export function missingLines(expected, output) {
  const got = output
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const missing = [];
  let at = 0;
  for (const line of expected) {
    if (/^\? /.test(line)) continue;
    const pattern = loosely(line);
    const found = got.findIndex((g, k) => k >= at && pattern.test(g));
    if (found < 0) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

/**
 * The files whose commands are run, in the order they run (paths relative to `root`): README.md,
 * docs/README.md, the pages that index links to in its order, then any other docs/*.md page. Later
 * pages may use what earlier ones made (the README creates the agents `scout` and `helper`).
 * `unlisted` names the docs pages the index does not link to.
 * @example
 * documentationFiles(root); // { files: ["README.md", "docs/README.md", "docs/architecture.md", …], unlisted: [] }
 */
export function documentationFiles(root) {
  const docs = join(root, "docs");
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith(".md") && f !== "README.md")
        .sort()
    : [];
  const index = join(docs, "README.md");
  const linked = existsSync(index)
    ? [...readFileSync(index, "utf8").matchAll(/\]\(([\w.-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1])
    : [];
  const ordered = [...new Set(linked)].filter((f) => pages.includes(f));
  const unlisted = pages.filter((f) => !ordered.includes(f));
  const files = [
    "README.md",
    ...(existsSync(index) ? ["docs/README.md"] : []),
    ...[...ordered, ...unlisted].map((f) => `docs/${f}`),
  ];
  return { files, unlisted: unlisted.map((f) => `docs/${f}`) };
}

/** The README and every docs page as one text, in the order of `documentationFiles` (for checks that look for a snippet wherever it lives). */
export function documentationText(root) {
  return documentationFiles(root)
    .files.map((file) => readFileSync(join(root, file), "utf8"))
    .join("\n");
}

/**
 * The anchors GitHub gives a markdown file's headings: lower case, punctuation dropped, spaces as
 * hyphens, a repeated one numbered (`-1`, `-2`). Headings inside fenced blocks are not headings.
 * @example
 * headingAnchors("## Tool secrets and outbound requests (what an agent may reach)"); // Set { "tool-secrets-and-outbound-requests-what-an-agent-may-reach" }
 */
export function headingAnchors(markdown) {
  const anchors = new Set();
  let fence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fence = !fence;
    const heading = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/**
 * The relative links of a markdown file (`[text](path#anchor)`, outside fenced blocks and code spans)
 * that lead nowhere: a file that does not exist, or an anchor the target's headings do not make.
 * @param {string} root the checkout
 * @param {string} file the file's path relative to root
 * @returns {string[]} each broken link as `file: target (why)`
 */
export function brokenLinks(root, file) {
  const text = readFileSync(join(root, file), "utf8");
  const prose = text.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, "").replace(/`[^`\n]*`/g, "");
  const broken = [];
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path, anchor] = target.split("#");
    const resolved = path ? normalize(join(dirname(file), path)) : file;
    if (!existsSync(join(root, resolved))) broken.push(`${file}: ${target} (no file ${resolved})`);
    else if (
      anchor &&
      resolved.endsWith(".md") &&
      !headingAnchors(readFileSync(join(root, resolved), "utf8")).has(anchor)
    )
      broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
  }
  return broken;
}

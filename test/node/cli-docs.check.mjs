// docs/cli.md's block of every command is `pantheon help` written out: the same commands in the
// same order, and under each every action its `--help` lists. The CLI is run as a user runs it
// (`node cli/pantheon.mjs help`, then `<command> --help` for each), so a command or action added to
// the CLI and not to the page, or one the page keeps after the CLI dropped it, fails here.
// No server needed. Prints `N passed, N failed`.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeChecks } from "./check-kit.mjs";
import { root } from "./memory-harness.mjs";

const { check, finish } = makeChecks();
const cli = join(root, "cli/pantheon.mjs");

/** The names a help text lists under `heading` (`Commands:`, `Actions:`): the first word of each indented line. */
const listed = (help, heading) => {
  const lines = help.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const names = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^ {2}(\S+)\s{2,}/.exec(line);
    if (!item) break;
    names.push(item[1]);
  }
  return names;
};

/** `pantheon <args>`'s stdout, run as its own process. */
const helpOf = (args) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("close", (code) => resolve({ code, out }));
  });

/** The fenced block under docs/cli.md's heading of the commands, split into one piece per `pantheon <command>`. */
function documented() {
  const page = readFileSync(join(root, "docs/cli.md"), "utf8");
  const heading = page.indexOf("## Where it connects, and the commands");
  const open = page.indexOf("\n```\n", heading);
  const close = page.indexOf("\n```\n", open + 4);
  if (heading < 0 || open < 0 || close < 0) return { order: [], text: new Map() };
  const order = [];
  const text = new Map();
  // A line's comment (after `#`) is prose, not a command.
  for (const line of page.slice(open + 5, close).split("\n"))
    for (const piece of line.replace(/\s#\s.*$/, "").split(/(?=\bpantheon )/)) {
      const command = /^pantheon (\S+)/.exec(piece)?.[1];
      if (!command) continue;
      if (!text.has(command)) order.push(command);
      text.set(command, `${text.get(command) ?? ""} ${piece}`);
    }
  return { order, text };
}

try {
  const general = spawnSync(process.execPath, [cli, "help"], { cwd: root, encoding: "utf8" });
  const commands = listed(general.stdout, "Commands:");
  check("pantheon help lists the commands", general.status === 0 && commands.length > 20, general.stderr);
  const docs = documented();
  const missing = commands.filter((c) => !docs.order.includes(c));
  const extra = docs.order.filter((c) => !commands.includes(c));
  check(
    "docs/cli.md's block names every command of pantheon help and no other",
    missing.length === 0 && extra.length === 0,
    `not in docs/cli.md: ${missing.join(", ") || "none"}; not in pantheon help: ${extra.join(", ") || "none"}`,
  );
  check(
    "and in the order pantheon help lists them",
    JSON.stringify(docs.order) === JSON.stringify(commands),
    `help: ${commands.join(" ")}\ndocs: ${docs.order.join(" ")}`,
  );
  // Each command's own help, a few at a time: every action it lists is on the command's lines.
  const unlisted = [];
  const queue = commands.filter((c) => c !== "help");
  const worker = async () => {
    for (let command = queue.shift(); command; command = queue.shift()) {
      const { out } = await helpOf([command, "--help"]);
      const words = docs.text.get(command) ?? "";
      for (const action of listed(out, "Actions:"))
        if (!new RegExp(`(?<![\\w-])${action}(?![\\w-])`).test(words)) unlisted.push(`${command} ${action}`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  check(
    "every action each command's --help lists is on that command's lines of the block",
    unlisted.length === 0,
    `missing from docs/cli.md: ${unlisted.sort().join(", ")}`,
  );
} catch (error) {
  check("the CLI docs check ran", false, error instanceof Error ? error.stack : String(error));
}
finish();

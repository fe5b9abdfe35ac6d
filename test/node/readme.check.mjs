// Every command the README and the docs/ pages show is run as written, so the documentation cannot
// drift from the program: their shell and console blocks (and `curl` in the prose) as
// test/node/readme-commands.mjs reads them, in a fresh copy of the checkout, against one `wrangler
// dev`: the README first, then docs/README.md and the pages in the order that index links them
// (a page may use what an earlier one made). Every docs page must be in the index, and every
// relative link of these files (and bench/README.md, pwa/README.md) must reach a file and heading.
//
// The README's convention, which this check sets up: `$PANTHEON_URL` and `$PANTHEON_TOKEN` are the
// URL and login token `npm start` prints (the CLI reads both, so `pantheon …` lines need no flags),
// and `http://127.0.0.1:8787` / `http://localhost:8787` stand for that server's URL; `pantheon` is
// the package's bin (cli/pantheon.mjs) on PATH; `$BOT_TOKEN` is a Telegram bot's token. Each command must exit 0; where a console block
// shows output, the output must have those lines in that order (loosely: numbers, ids, paths and
// column widths may differ); a `curl` must not get an HTML page (the PWA's, when a route does not
// reach the worker) or a JSON error. Skipped blocks and commands are listed with their reason.
// README_CHECK_FILE=<path> runs one file's commands alone.
// Prints `N passed, N failed, N skipped`.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks } from "./check-kit.mjs";
import { freshCopy } from "./fresh-copy.mjs";
import { brokenLinks, documentationFiles, missingLines, readmeCommands } from "./readme-commands.mjs";
import { root } from "./memory-harness.mjs";

const { check, skip, finish } = makeChecks();
const { files, unlisted } = process.env.README_CHECK_FILE
  ? { files: [process.env.README_CHECK_FILE], unlisted: [] }
  : documentationFiles(root);
const commands = files.flatMap((file) =>
  readmeCommands(readFileSync(resolve(root, file), "utf8")).map((c) => ({ ...c, file })),
);
check(
  "the README and docs have commands to run",
  commands.filter((c) => !c.skip).length >= 10,
  `${commands.length} found in ${files.join(", ")}`,
);
check(
  "every docs page is listed in docs/README.md (the order its commands run in)",
  unlisted.length === 0,
  `not in the index: ${unlisted.join(", ")}`,
);
if (!process.env.README_CHECK_FILE) {
  const broken = [...files, "bench/README.md", "pwa/README.md"].flatMap((file) => brokenLinks(root, file));
  check(
    "every relative link of the README, the docs, bench/README.md and pwa/README.md reaches its file and heading",
    broken.length === 0,
    broken.join("\n"),
  );
  // The link check can fail: a page with a link to a missing file and one to a missing heading.
  const sample = mkdtempSync(join(tmpdir(), "pantheon-links-"));
  writeFileSync(
    join(sample, "a.md"),
    "# A\n\n## Two words\n\n[ok](b.md#b) [ok](#two-words) [gone](c.md) [bad](b.md#nope) `[code](x.md)` [web](https://example.com)\n",
  );
  writeFileSync(join(sample, "b.md"), "# B\n");
  const found = brokenLinks(sample, "a.md");
  check(
    "the link check names a link to a missing file and one to a missing heading, and only those",
    found.length === 2 && found[0].includes("c.md") && found[1].includes("#nope"),
    found.join("\n"),
  );
  rmSync(sample, { recursive: true, force: true });
}

const copy = freshCopy("pantheon-readme-");
const scratch = join(copy.dir, ".readme-check");
mkdirSync(join(scratch, "bin"), { recursive: true });
mkdirSync(join(scratch, "config"), { recursive: true });
symlinkSync(join(copy.dir, "cli/pantheon.mjs"), join(scratch, "bin/pantheon"));
const token = `pa_${randomBytes(16).toString("hex")}`;

/** What the command's output says went wrong, for a curl: an HTML page, or a JSON error. */
function curlRefused(command, stdout) {
  if (!/^\s*curl\b/.test(command)) return "";
  if (/^\s*<(!doctype|html)/im.test(stdout))
    return "curl got an HTML page (the static assets answered, not the worker)";
  for (const line of stdout.split("\n").filter((l) => l.trim().startsWith("{"))) {
    try {
      const body = JSON.parse(line);
      if (body && typeof body === "object" && "error" in body)
        return `curl got an error: ${JSON.stringify(body.error).slice(0, 300)}`;
    } catch {}
  }
  return "";
}

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo: join(scratch, "state") });
  const env = {
    ...process.env,
    PATH: `${join(scratch, "bin")}:${process.env.PATH}`,
    PANTHEON_URL: server.url,
    PANTHEON_TOKEN: token,
    // The README's Telegram block reads the bot token BotFather gave from $BOT_TOKEN (a made-up one here).
    BOT_TOKEN: "123456789:readme-check-bot-token",
    // …and the secrets block pipes a tool's key from $AIRTABLE_KEY.
    AIRTABLE_KEY: "readme-check-airtable-key",
    XDG_CONFIG_HOME: join(scratch, "config"),
    NO_COLOR: "1",
  };
  const local = /http:\/\/(?:127\.0\.0\.1|localhost):8787/g;
  for (const { file, line, command, expected, skip: why, error } of commands) {
    const name = `${file}:${line}: ${command
      .split("\n")[0]
      .replace(/\s+#.*$/, "")
      .slice(0, 90)}`;
    if (error) {
      check(name, false, error);
      continue;
    }
    if (why) {
      skip(name, why);
      continue;
    }
    const started = Date.now();
    // Where the README shows output, stderr joins stdout in one pipe, so lines keep the order a terminal shows.
    const script = `${expected.length ? "exec 2>&1\n" : ""}${command.replace(local, server.url)}`;
    // 10 minutes a command: the memory eval takes about 30 s on an idle machine and over 4 minutes when the 2 cores are shared by several suites.
    const run = spawnSync("sh", ["-c", script], { cwd: copy.dir, env, encoding: "utf8", timeout: 600_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    const missing = missingLines(
      expected.map((e) => e.replace(local, server.url)),
      output,
    );
    const refused = curlRefused(command, run.stdout);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    check(
      `${name} (${seconds} s)`,
      run.status === 0 && missing.length === 0 && !refused,
      run.status !== 0
        ? `exit ${run.status ?? run.signal}:\n${output.slice(-2000)}`
        : refused || `the output lacks:\n  ${missing.join("\n  ")}\nit was:\n${output.slice(-2000)}`,
    );
  }
} catch (error) {
  check("the README check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  copy.remove();
}
finish();

// Every command the README shows is run as written, so the README cannot drift from the program:
// its shell and console blocks (and `curl` in the prose) as test/node/readme-commands.mjs reads
// them, in order, in a fresh copy of the checkout, against one `wrangler dev`.
//
// The README's convention, which this check sets up: `$PANTHEON_URL` and `$PANTHEON_TOKEN` are the
// URL and login token `npm start` prints (the CLI reads both, so `pantheon …` lines need no flags),
// and `http://127.0.0.1:8787` / `http://localhost:8787` stand for that server's URL; `pantheon` is
// the package's bin (cli/pantheon.mjs) on PATH; `$BOT_TOKEN` is a Telegram bot's token. Each command must exit 0; where a console block
// shows output, the output must have those lines in that order (loosely: numbers, ids, paths and
// column widths may differ); a `curl` must not get an HTML page (the PWA's, when a route does not
// reach the worker) or a JSON error. Skipped blocks and commands are listed with their reason.
// Prints `N passed, N failed, N skipped`.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks } from "./check-kit.mjs";
import { freshCopy } from "./fresh-copy.mjs";
import { missingLines, readmeCommands } from "./readme-commands.mjs";
import { root } from "./memory-harness.mjs";

const { check, skip, finish } = makeChecks();
const readmePath = process.env.README_CHECK_FILE ?? join(root, "README.md");
const commands = readmeCommands(readFileSync(readmePath, "utf8"));
check("the README has commands to run", commands.filter((c) => !c.skip).length >= 10, `${commands.length} found`);

const copy = freshCopy("pantheon-readme-");
const scratch = join(copy.dir, ".readme-check");
mkdirSync(join(scratch, "bin"), { recursive: true });
mkdirSync(join(scratch, "config"), { recursive: true });
symlinkSync(join(copy.dir, "cli/pantheon.mjs"), join(scratch, "bin/pantheon"));
const token = `pa_${randomBytes(16).toString("hex")}`;

/** What the command's output says went wrong, for a curl: an HTML page, or a JSON error. */
function curlRefused(command, stdout) {
  if (!/^\s*curl\b/.test(command)) return "";
  if (/^\s*<(!doctype|html)/im.test(stdout)) return "curl got an HTML page (the static assets answered, not the worker)";
  for (const line of stdout.split("\n").filter((l) => l.trim().startsWith("{"))) {
    try {
      const body = JSON.parse(line);
      if (body && typeof body === "object" && "error" in body) return `curl got an error: ${JSON.stringify(body.error).slice(0, 300)}`;
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
  for (const { line, command, expected, skip: why, error } of commands) {
    const name = `README:${line}: ${command.split("\n")[0].replace(/\s+#.*$/, "").slice(0, 90)}`;
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
    const run = spawnSync("sh", ["-c", script], { cwd: copy.dir, env, encoding: "utf8", timeout: 240_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    const missing = missingLines(expected.map((e) => e.replace(local, server.url)), output);
    const refused = curlRefused(command, run.stdout);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    check(
      `${name} (${seconds} s)`,
      run.status === 0 && missing.length === 0 && !refused,
      run.status !== 0 ? `exit ${run.status ?? run.signal}:\n${output.slice(-2000)}` : refused || `the output lacks:\n  ${missing.join("\n  ")}\nit was:\n${output.slice(-2000)}`,
    );
  }
} catch (error) {
  check("the README check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  copy.remove();
}
finish();

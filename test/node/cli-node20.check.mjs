// The `pantheon` bin (cli/pantheon.mjs) on the machine's own Node 20, which cannot run the CLI's
// TypeScript: it runs the CLI with the Node 22 that `npm start` installed (a cache folder here,
// holding this check's own Node 22), installs one there when none is (npm replaced by a stand-in:
// no registry here), passes on exit codes and signals, and drives a real server through
// `wrangler dev`. Skipped where the machine has no Node older than 22.18. Prints `N passed, N failed`.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks } from "./check-kit.mjs";
import { root } from "./memory-harness.mjs";

const { check, skip, finish } = makeChecks();
const bin = join(root, "cli/pantheon.mjs");

/** The machine's Nodes on PATH (and the usual places) that cannot strip types. */
function oldNode() {
  const found = spawnSync("sh", ["-c", "which -a node; ls /usr/bin/node /usr/local/bin/node 2>/dev/null"], {
    encoding: "utf8",
  })
    .stdout.split("\n")
    .filter(Boolean);
  for (const path of new Set(found)) {
    const version = spawnSync(path, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
    const [major, minor] = version.split(".").map(Number);
    if (major >= 18 && (major < 22 || (major === 22 && minor < 18))) return { path, version };
  }
  return undefined;
}

/** A cache folder laid out as `npm install --prefix <dir>/node22 node@22` leaves it, holding `node`. */
function cacheWith(nodePath, version) {
  const dir = mkdtempSync(join(tmpdir(), "pantheon-cache-"));
  mkdirSync(join(dir, "node22/node_modules/.bin"), { recursive: true });
  mkdirSync(join(dir, "node22/node_modules/node"), { recursive: true });
  symlinkSync(nodePath, join(dir, "node22/node_modules/.bin/node"));
  writeFileSync(join(dir, "node22/node_modules/node/package.json"), JSON.stringify({ name: "node", version }));
  return dir;
}

const old = oldNode();
if (!old) {
  skip("the pantheon bin on Node 20", "this machine has no Node older than 22.18 to run it with");
  finish();
}
const cache = cacheWith(process.execPath, process.versions.node);
const scratch = mkdtempSync(join(tmpdir(), "pantheon-node20-"));
const oldPath = `${dirname(old.path)}:/usr/bin:/bin`;
const envOld = { ...process.env, PATH: oldPath, PANTHEON_CACHE_DIR: cache, XDG_CONFIG_HOME: scratch };
const run = (args, env = envOld, cwd = scratch) =>
  spawnSync(old.path, [bin, ...args], { cwd, env, encoding: "utf8", timeout: 60_000 });

const direct = spawnSync(old.path, [join(root, "cli/pantheon.ts"), "help"], { encoding: "utf8", env: envOld });
check(
  `Node ${old.version} cannot run cli/pantheon.ts itself (why the bin exists)`,
  direct.status !== 0,
  `${direct.status} ${direct.stderr.slice(0, 300)}`,
);
const help = run(["help"]);
check(
  `the bin on Node ${old.version} (${old.path}) prints the help`,
  help.status === 0 &&
    help.stdout.includes("Usage: pantheon <command>") &&
    !help.stderr.includes("ERR_UNKNOWN_FILE_EXTENSION"),
  `${help.status} ${help.stderr.slice(0, 500)}`,
);
const npx = spawnSync("npx", ["pantheon", "help"], { cwd: root, env: envOld, encoding: "utf8", timeout: 120_000 });
check(
  `npx pantheon help works with Node ${old.version}'s npx in the checkout`,
  npx.status === 0 && npx.stdout.includes("Usage: pantheon <command>"),
  `${npx.status} ${npx.stderr.slice(0, 500)}`,
);
// npx links the checkout into its cache and checks the package's engines against the Node it runs on:
// engines that asked for Node 22 printed an EBADENGINE warning (five lines, twice) before the help.
check(
  `npx pantheon help on Node ${old.version} prints no warning before the help`,
  npx.status === 0 && !/warn|EBADENGINE/i.test(npx.stderr),
  npx.stderr.slice(0, 800),
);
const mistyped = run(["nosuch"]);
check("a mistyped command's exit code (2) comes through", mistyped.status === 2, `${mistyped.status}`);
const unreachable = run(["agents", "list", "--url", "http://127.0.0.1:1"]);
check(
  "an unreachable server's exit code (3) and message come through",
  unreachable.status === 3 && unreachable.stderr.includes("not reachable"),
  `${unreachable.status} ${unreachable.stderr}`,
);

// No Node 22 in the cache: the bin installs it (npm is a stand-in that lays out the same folder).
{
  const empty = mkdtempSync(join(tmpdir(), "pantheon-cache-empty-"));
  const fakeBin = mkdtempSync(join(tmpdir(), "pantheon-fake-npm-"));
  writeFileSync(
    join(fakeBin, "npm"),
    `#!/bin/sh\necho "$@" > "${fakeBin}/args"\nprefix="$3"\nmkdir -p "$prefix/node_modules/.bin" "$prefix/node_modules/node"\nln -s "${process.execPath}" "$prefix/node_modules/.bin/node"\necho '{"name":"node","version":"${process.versions.node}"}' > "$prefix/node_modules/node/package.json"\necho "added 2 packages"\n`,
  );
  chmodSync(join(fakeBin, "npm"), 0o755);
  const installing = run(["help"], { ...envOld, PATH: `${fakeBin}:${oldPath}`, PANTHEON_CACHE_DIR: empty });
  const args = readFileSync(join(fakeBin, "args"), "utf8").trim();
  check(
    "with no Node 22 cached, the bin says it installs one, where, and why",
    installing.stderr.includes(`cannot run the CLI (TypeScript, which Node runs from 22.18 on)`) &&
      installing.stderr.includes(`installing Node 22 into ${join(empty, "node22")}`),
    installing.stderr,
  );
  check(
    "it installs node@22 into the cache folder with npm, then runs the command",
    args === `install --prefix ${join(empty, "node22")} --no-save --no-audit --no-fund --loglevel=http node@22` &&
      installing.status === 0 &&
      installing.stdout.includes("Usage: pantheon <command>"),
    `${args} | ${installing.status} ${installing.stderr}`,
  );
  const again = run(["help"], { ...envOld, PATH: `${fakeBin}:${oldPath}`, PANTHEON_CACHE_DIR: empty });
  check(
    "the next run uses it without installing again",
    again.status === 0 && !again.stderr.includes("installing"),
    again.stderr,
  );
  rmSync(empty, { recursive: true, force: true });
  rmSync(fakeBin, { recursive: true, force: true });
}

const token = `pa_${randomBytes(12).toString("hex")}`;
let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo: join(scratch, "state") });
  const envServer = { ...envOld, PANTHEON_URL: server.url, PANTHEON_TOKEN: token };
  const created = run(
    ["agents", "create", "scout", "--description", "Finds things", "--system-prompt", "The code word is pineapple."],
    envServer,
  );
  check(
    "on Node 20 the bin creates an agent on the server",
    created.status === 0,
    `${created.status} ${created.stderr}`,
  );
  const told = run(["tell", "scout", "What is the code word?"], envServer);
  check(
    "and a turn streams the agent's reply",
    told.status === 0 && /pineapple/.test(told.stdout),
    `${told.status} ${told.stdout} ${told.stderr}`,
  );
  const login = spawnSync(old.path, [bin, "login", "--url", server.url], {
    cwd: scratch,
    env: { ...envOld },
    input: `${token}\n`,
    encoding: "utf8",
    timeout: 60_000,
  });
  check(
    "a token piped to login reaches the CLI through the bin (stdin passed on)",
    login.status === 0 && /Logged in to/.test(login.stdout + login.stderr),
    `${login.status} ${login.stdout} ${login.stderr}`,
  );

  // A signal sent to the bin alone reaches the CLI: `pantheon acp` waits on stdin until then.
  const acp = spawn(old.path, [bin, "acp", "scout"], { cwd: scratch, env: envServer, stdio: ["pipe", "pipe", "pipe"] });
  await new Promise((r) => setTimeout(r, 1500));
  const cliPid = Number(
    execFileSync("sh", ["-c", `pgrep -P ${acp.pid} || true`], { encoding: "utf8" })
      .trim()
      .split("\n")[0],
  );
  const ended = new Promise((resolve) => acp.once("exit", (code, signal) => resolve({ code, signal })));
  acp.kill("SIGTERM");
  const outcome = await ended;
  let cliGone = false;
  for (let i = 0; i < 30 && !cliGone; i++) {
    try {
      process.kill(cliPid, 0);
      await new Promise((r) => setTimeout(r, 100));
    } catch {
      cliGone = true;
    }
  }
  check(
    "SIGTERM to the bin ends the CLI under it and the bin with the same signal",
    cliPid > 0 && cliGone && outcome.signal === "SIGTERM",
    JSON.stringify({ cliPid, cliGone, outcome }),
  );
} catch (error) {
  check("the Node 20 check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
}
finish();

#!/usr/bin/env node
// The `pantheon` bin: plain JavaScript that any Node from 20 on can start, so `npx pantheon` and a
// linked `pantheon` work on the machine's Node 20 too. The CLI itself is TypeScript
// (cli/pantheon.ts) that Node runs by stripping its types, which needs Node >= 22.18:
//   - on such a Node it is imported here, in this process;
//   - otherwise the Node 22 that `npm start` installs (scripts/with-node22.sh) runs it, from
//     ${PANTHEON_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pantheon}/node22, installed there first
//     when it is missing, with stdio inherited and the exit code and signals passed on.
// Why not a prebuilt bundle: `script check` loads the server's own compiler (core/dsl) from the
// checkout, and a built file would go stale whenever the source changes.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as nodeModule from "node:module";

const entry = fileURLToPath(new URL("./pantheon.ts", import.meta.url));

/** This Node strips TypeScript types and has the resolve hooks cli/pantheon.ts registers. */
function runsTypeScript() {
  return typeof process.features?.typescript === "string" && typeof nodeModule.registerHooks === "function";
}

/**
 * The version of a Node installed from npm's `node` package (its package.json says it).
 * @param {string} prefix
 * @returns {string | undefined}
 */
function versionOf(prefix) {
  try {
    return JSON.parse(readFileSync(join(prefix, "node_modules/node/package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/**
 * 22.18 and later strip types without a flag (and have `registerHooks`, 22.15+).
 * @param {string | undefined} version
 */
function newEnough(version) {
  const [major = 0, minor = 0] = String(version).split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 18);
}

function cacheDir() {
  const base =
    process.env.PANTHEON_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "pantheon");
  return join(base, "node22");
}

/** The cached Node 22, installed the way scripts/with-node22.sh does when it is missing or too old. */
async function node22() {
  const prefix = cacheDir();
  const binary = join(prefix, "node_modules/.bin/node");
  if (existsSync(binary) && newEnough(versionOf(prefix))) return binary;
  process.stderr.write(
    `pantheon: Node ${process.version} cannot run the CLI (TypeScript, which Node runs from 22.18 on);\n` +
      `pantheon: installing Node 22 into ${prefix} (once, about 185 MB unpacked; \`npm start\` uses the same one)…\n`,
  );
  const { runWithProgress } = await import("../scripts/progress.mjs");
  const args = ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--loglevel=http", "node@22"];
  const installed = await runWithProgress("installing Node 22", "npm", args, {
    count: /^npm http (fetch|cache) /,
    prefix: "pantheon: ",
  });
  if (installed.code !== 0 || !existsSync(binary)) {
    process.stderr.write(
      `pantheon: installing Node 22 failed (npm exited with ${installed.code}). Install Node 22.18 or later, or run \`npm start\` once in the Pantheon checkout.\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`pantheon: Node ${versionOf(prefix)} installed at ${binary}\n`);
  return binary;
}

if (runsTypeScript()) {
  await import(entry);
} else {
  const child = spawn(await node22(), [entry, ...process.argv.slice(2)], { stdio: "inherit" });
  // Ctrl-C reaches the child from the terminal itself (same process group): this process only
  // waits for it. A signal sent to this process alone is passed on.
  process.on("SIGINT", () => {});
  for (const signal of /** @type {const} */ (["SIGTERM", "SIGHUP", "SIGQUIT"]))
    process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

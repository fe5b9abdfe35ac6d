// `npm test`: the whole suite.
//   0. type checks, the linter and the import rules (seconds): the worker, the Node-side configs, and the
//      PWA and the CLI against the worker's API types (test/contract/api-types.ts compiles in the worker's
//      and the PWA's program); Biome's formatter and linter over the whole tree; the import rules
//      (scripts/check-imports.mjs: no new runtime import cycle, the layers kept)
//   1. unit + integration tests inside workerd (vitest + @cloudflare/vitest-plugin)
//   1b. the fault-injection suite (npm run test:faults), also in workerd
//   2. Node-side checks (the embeddings sidecar with its real weights), when present
//   3. the PWA end to end in Debian's Chromium (playwright-core), against `wrangler dev`
// Prints one closing line "N passed, N failed" over all stages. `node scripts/test.mjs <stage>…`
// runs only those stages (typecheck, workerd, faults, node, browser); `npm run typecheck` is the first.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";

const only = process.argv.slice(2);
const totals = { passed: 0, failed: 0, skipped: 0 };
let exitCode = 0;

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) exitCode = 1;
  return result.status === 0;
}

function stage(name) {
  return only.length === 0 || only.includes(name);
}

/** The TypeScript projects `tsc` checks: a few seconds in all, so every run starts with them. */
const typeProjects = ["tsconfig.json", "tsconfig.node.json", "pwa/tsconfig.json", "cli/tsconfig.json"];
if (stage("typecheck")) {
  for (const project of typeProjects) {
    if (run(`typecheck ${project}`, "npx", ["tsc", "--noEmit", "-p", project])) totals.passed += 1;
    else totals.failed += 1;
  }
  // The formatter and the linter (Biome, biome.jsonc): a file not as `npm run format` leaves it fails, and
  // a lint warning too, so the tree stays formatted and at zero warnings.
  if (run("format and lint", "npx", ["biome", "ci", "--error-on-warnings", "."])) totals.passed += 1;
  else totals.failed += 1;
  // The import rules (seconds): no runtime import cycle beyond the named known ones, and the layers
  // (core/ pure, adapters leaves, DOs never import the worker, the clients only its types).
  if (run("import rules (dependency-cruiser)", process.execPath, ["scripts/check-imports.mjs"])) totals.passed += 1;
  else totals.failed += 1;
}

if (stage("workerd")) {
  mkdirSync("test-results", { recursive: true });
  const ok = run("workerd tests", "npx", [
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    "--outputFile.json=test-results/vitest.json",
  ]);
  if (existsSync("test-results/vitest.json")) {
    const report = JSON.parse(readFileSync("test-results/vitest.json", "utf8"));
    totals.passed += report.numPassedTests ?? 0;
    totals.failed += report.numFailedTests ?? 0;
    totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  } else if (!ok) totals.failed += 1;
}

// 1b. the fault-injection suite (`npm run test:faults`): 1,000 seeded runs under model errors, tool
//     timeouts, evictions, consumer throws and duplicate deliveries, in workerd (about a minute).
if (stage("faults")) {
  const ok = run("fault injection", "npx", ["vitest", "run", "--reporter=default"], { PANTHEON_FAULTS: "1" });
  if (ok) totals.passed += 1;
  else totals.failed += 1;
}

/** Node scripts that print `N passed, N failed` as their last line. */
function nodeStage(label, file) {
  if (!existsSync(file)) return;
  console.log(`\n=== ${label}: node ${file}`);
  const result = spawnSync(process.execPath, [file], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  process.stdout.write(result.stdout ?? "");
  const match = /(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/.exec(result.stdout ?? "");
  if (match) {
    totals.passed += Number(match[1]);
    totals.failed += Number(match[2]);
    totals.skipped += Number(match[3] ?? 0);
  } else if (result.status !== 0) totals.failed += 1;
  if (result.status !== 0) exitCode = 1;
}

/** The interactive CLI check (test/node/cli-chat.check.mjs) types into tmux; install Debian's when it is missing and we may (root). */
function ensureTmux() {
  if (spawnSync("tmux", ["-V"]).status === 0) return;
  if (process.getuid?.() !== 0) {
    console.error(
      "tmux is missing: install Debian's 'tmux' package to run the interactive CLI check (it fails without it).",
    );
    return;
  }
  console.log("\n=== installing Debian's tmux for the interactive CLI check (apt-get)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  spawnSync("apt-get", ["install", "-y", "-qq", "tmux"], { stdio: "inherit", env });
}

if (stage("node")) {
  ensureTmux();
  nodeStage("node-side checks", "test/node/run.mjs");
}
/** The browser tests drive Debian's Chromium; install it when it is missing and we may (root). */
function ensureChromium() {
  const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (existsSync(path)) return true;
  if (process.getuid?.() !== 0) {
    console.error(
      `Chromium is not at ${path}: install Debian's 'chromium' package (or set CHROMIUM_PATH) to run the browser tests.`,
    );
    return false;
  }
  console.log("\n=== installing Debian's chromium for the browser tests (apt-get)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  return (
    spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env }).status === 0 &&
    existsSync(path)
  );
}

if (stage("browser")) {
  if (ensureChromium()) nodeStage("browser tests (Chromium)", "test/browser/run.mjs");
  else {
    totals.failed += 1;
    exitCode = 1;
  }
}

console.log(`\n${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}`);
process.exit(exitCode || (totals.failed > 0 ? 1 : 0));

// Runs every benchmark module (bench/*.bench.mjs that exports `run`) against ONE local stack and
// prints each module's figures as a table, then a summary. Benchmarks print; they never assert.
//   npm run bench                      every module
//   npm run bench -- chat-turn run-loop   only the modules whose file name contains one of the words
//
// A module's contract:
//   export async function run(server) → { title?, rows: Row[], notes?: string[] } | Row[]
//   Row = { name, figure, unit, baseline?, ratio?, target?, ok? }   (target and ok judge `ratio` when
//         there is one, else `figure`; ok is left out for rows that are only information)
//   server = { url, token, modelDouble: { url, server }, inspectorPort } | null (null when wrangler dev failed to start; inspectorPort: its CDP inspector, for bench/cpu-profile.mjs)
// A module written as a plain script (no `run` export) is listed and skipped, not imported: importing
// it would run it.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");

/**
 * Starts the scripted OpenAI-compatible model double (test/doubles, bundled from TypeScript with
 * esbuild so any Node ≥ 22.12 runs it) on loopback.
 * @returns {Promise<{ url: string, server: import("node:http").Server }>}
 */
async function startModelDouble(scratch) {
  const outfile = join(scratch, "scripted-model-server.mjs");
  await build({
    entryPoints: [join(root, "test/doubles/scripted-model-server.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
  });
  const { startScriptedModelServer } = await import(pathToFileURL(outfile).href);
  return startScriptedModelServer();
}

/**
 * One local stack for the server benchmarks: `wrangler dev` on a free port with a throw-away
 * persistence folder and admin token, and the scripted model double reachable as provider "openai".
 * @example
 * const stack = await startBenchServer();
 * try { await fetch(`${stack.url}/api/health`); } finally { await stack.stop(); }
 */
export async function startBenchServer() {
  const scratch = await mkdtemp(join(tmpdir(), "pantheon-bench-"));
  const token = `bench-${randomBytes(18).toString("hex")}`;
  const modelDouble = await startModelDouble(scratch);
  const dev = await startDevServer({
    port: await freePort(),
    token,
    persistTo: join(scratch, "state"),
    // Loopback outbound: the telemetry module's OTLP receiver listens on 127.0.0.1 (as in test/node/otel.check.mjs).
    vars: {
      OPENAI_API_KEY: "sk-bench-double",
      OPENAI_BASE_URL: `${modelDouble.url}/v1`,
      PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
    },
  }).catch(async (error) => {
    modelDouble.server.close();
    await rm(scratch, { recursive: true, force: true });
    throw error;
  });
  return {
    url: dev.url,
    token,
    modelDouble,
    inspectorPort: dev.inspectorPort,
    async stop() {
      await dev.stop();
      modelDouble.server.closeAllConnections?.();
      modelDouble.server.close();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** A module that hangs must not hold up the others (BENCH_TIMEOUT_MS, default 15 minutes). */
const moduleTimeoutMs = Number(process.env.BENCH_TIMEOUT_MS ?? 15 * 60_000);

function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const exportsRun = (source) =>
  /export\s+(async\s+)?function\s+run\s*\(/.test(source) ||
  /export\s+(const|let)\s+run\s*=/.test(source) ||
  /export\s*\{[^}]*\brun\b[^}]*\}/.test(source);

function cell(value, digits = 2) {
  if (value === undefined || value === null || value === "") return "-";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return String(value);
    if (Number.isInteger(value) && Math.abs(value) >= 1000) return String(value);
    return value.toFixed(Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 100 ? 1 : digits);
  }
  if (typeof value === "boolean") return value ? "yes" : "NO";
  return String(value);
}

/** Prints rows as an aligned text table. */
function printTable(rows) {
  const head = ["name", "figure", "unit", "baseline", "ratio", "target", "ok?"];
  const body = rows.map((r) => [
    cell(r.name),
    cell(r.figure),
    cell(r.unit),
    cell(r.baseline),
    cell(r.ratio),
    cell(r.target),
    r.ok === undefined ? "-" : cell(r.ok),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((line) => line[i].length)));
  const line = (cells) =>
    "  " +
    cells.map((c, i) => (i === 0 || i === 2 || i === 5 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  console.log(line(head));
  console.log("  " + widths.map((w) => "-".repeat(w)).join("  "));
  for (const cells of body) console.log(line(cells));
}

const resultsJson = join(here, "results.json");
const resultsMd = join(here, "results.md");

async function readResults() {
  try {
    return JSON.parse(await readFile(resultsJson, "utf8")).modules ?? {};
  } catch {
    return {};
  }
}

const mdCell = (value) =>
  value === undefined || value === null
    ? ""
    : typeof value === "number"
      ? String(Number(value.toFixed(value >= 100 ? 0 : 2)))
      : String(value).replace(/\|/g, "\\|");

/**
 * bench/results.md: one table of every benchmark's figures and ratios, with the date and the
 * machine; bench/results.json keeps each module's last rows, so a run of some modules updates
 * theirs and keeps the others (each with the date it was measured).
 */
async function writeResults(modules) {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
  await writeFile(resultsJson, `${JSON.stringify({ machine, modules }, null, 2)}\n`);
  const lines = [
    "# Benchmark results",
    "",
    `Regenerated by \`npm run bench\` (a run of some modules updates their rows). Machine: ${machine}.`,
    "Each ratio is to a baseline measured in the same run; a target judges the ratio when there is one.",
    "",
    "| benchmark | figure | value | unit | baseline | ratio | target | met | measured |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const [name, result] of Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))) {
    for (const row of result.rows) {
      lines.push(
        `| ${name} | ${mdCell(row.name)} | ${mdCell(row.figure)} | ${mdCell(row.unit)} | ${mdCell(row.baseline)} | ${mdCell(row.ratio)} | ${mdCell(row.target)} | ${typeof row.ok === "boolean" ? (row.ok ? "yes" : "no") : ""} | ${result.at.slice(0, 10)} |`,
      );
    }
  }
  await writeFile(resultsMd, `${lines.join("\n")}\n`);
  console.log(`\nwrote ${resultsMd}`);
}

async function main(filters) {
  const files = (await readdir(here)).filter((f) => f.endsWith(".bench.mjs")).sort();
  const chosen = files.filter((f) => !filters.length || filters.some((word) => f.includes(word)));
  const modules = [];
  for (const file of chosen) {
    const source = await readFile(join(here, file), "utf8");
    if (exportsRun(source)) modules.push(file);
    else console.log(`skip ${file}: it does not export run() (a standalone script: node bench/${file})`);
  }
  if (!modules.length) {
    console.log("no benchmark modules to run");
    return;
  }

  console.log(`starting wrangler dev for ${modules.length} module(s) …`);
  const startedAt = performance.now();
  let stack = null;
  try {
    stack = await startBenchServer();
    console.log(
      `wrangler dev up at ${stack.url} in ${((performance.now() - startedAt) / 1000).toFixed(1)} s; model double at ${stack.modelDouble.url}`,
    );
  } catch (error) {
    console.log(
      `wrangler dev did not start; server benchmarks will fail: ${error instanceof Error ? error.message : error}`,
    );
  }

  // wrangler dev runs in its own process group: on Ctrl-C or a kill, stop it rather than orphan it.
  const onSignal = (signal) => {
    console.log(`\n${signal}: stopping wrangler dev`);
    void Promise.resolve(stack?.stop()).finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  const summary = [];
  const results = await readResults();
  try {
    for (const file of modules) {
      const name = basename(file, ".bench.mjs");
      console.log(`\n== ${name} ==`);
      const t0 = performance.now();
      try {
        const mod = await import(pathToFileURL(join(here, file)).href);
        if (typeof mod.run !== "function") throw new Error("the module has no run() export");
        const server = stack
          ? { url: stack.url, token: stack.token, modelDouble: stack.modelDouble, inspectorPort: stack.inspectorPort }
          : null;
        const result = await withTimeout(
          mod.run(server),
          moduleTimeoutMs,
          `${name} did not finish within ${moduleTimeoutMs / 1000} s`,
        );
        const rows = Array.isArray(result) ? result : (result?.rows ?? []);
        if (!Array.isArray(result) && result?.title) console.log(result.title);
        printTable(rows);
        for (const note of (!Array.isArray(result) && result?.notes) || []) console.log(`  · ${note}`);
        results[name] = {
          title: (!Array.isArray(result) && result?.title) || name,
          at: new Date().toISOString(),
          rows,
        };
        const judged = rows.filter((r) => typeof r.ok === "boolean");
        summary.push({
          name,
          seconds: (performance.now() - t0) / 1000,
          judged: judged.length,
          met: judged.filter((r) => r.ok).length,
          missed: judged.filter((r) => !r.ok).map((r) => r.name),
        });
      } catch (error) {
        console.log(`  ERROR: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
        summary.push({
          name,
          seconds: (performance.now() - t0) / 1000,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  } finally {
    await stack?.stop();
  }

  await writeResults(results);
  console.log("\n== summary ==");
  for (const s of summary) {
    const what = s.error
      ? `error: ${s.error.split("\n")[0]}`
      : `${s.met}/${s.judged} targets met${s.missed.length ? ` (missed: ${s.missed.join(", ")})` : ""}`;
    console.log(`  ${s.name.padEnd(14)} ${s.seconds.toFixed(1).padStart(6)} s  ${what}`);
  }
  const missed = summary.flatMap((s) => s.missed ?? []);
  const errors = summary.filter((s) => s.error).length;
  console.log(
    `  ${summary.length} module(s), ${errors} error(s), ${missed.length} target(s) missed. Figures are for comparison on this machine, not pass/fail.`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.slice(2));
}

// PWA budget: gzip bytes of all JavaScript shipped, and time to interactive on the local server.
// `npm run bench` calls run(server) with its wrangler dev; alone:
//        node bench/pwa.bench.mjs            (builds the PWA, serves pwa/dist itself)
//        PANTHEON_BASE_URL=http://127.0.0.1:8787 node bench/pwa.bench.mjs   (measure a running server)
import { readdir, readFile, rm, mkdtemp } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { buildPwa } from "../pwa/build.mjs";

const JS_BUDGET_BYTES = 80 * 1024;
/** A first render on a local server within a second is the bar for "feels instant" on a phone. */
const TTI_BUDGET_MS = 1000;
const RUNS = 5;
const dist = resolve("pwa/dist");

/** @param {{ url: string } | null} [shared] the bench runner's wrangler dev, when there is one */
export async function run(shared = null) {
  await buildPwa();
  let jsGzip = 0;
  const perFile = [];
  for (const f of await readdir(dist)) {
    if (extname(f) !== ".js") continue;
    const bytes = gzipSync(await readFile(join(dist, f)), { level: 9 }).length;
    perFile.push({ file: f, bytes });
    jsGzip += bytes;
  }

  // Serve pwa/dist statically unless a server was named: time to interactive is the PWA's own cost.
  const types = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".webmanifest": "application/manifest+json",
    ".png": "image/png",
    ".svg": "image/svg+xml",
  };
  let server = null;
  let base = shared?.url ?? process.env.PANTHEON_BASE_URL;
  if (!base) {
    server = createServer(async (req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      const file = join(dist, path === "/" ? "index.html" : path);
      try {
        const body = await readFile(file);
        res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${server.address().port}`;
  }

  const profile = await mkdtemp(join(tmpdir(), "pantheon-bench-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 390, height: 844 },
  });
  const samples = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await context.newPage();
      // A cold load each time: no service worker, no HTTP cache.
      await page.route("**/sw.js", (route) => route.abort());
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
      await page.goto(`${base}/#/agents`);
      const ms = await page.evaluate(async () => {
        for (;;) {
          const mark = performance.getEntriesByName("pantheon:first-render")[0];
          if (mark) return mark.startTime;
          await new Promise((r) => setTimeout(r, 10));
        }
      });
      samples.push(ms);
      await page.close();
    }
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    server?.close();
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];

  return {
    title: `PWA budget (served by ${base})`,
    rows: [
      {
        name: "JS shipped (gzip)",
        figure: +(jsGzip / 1024).toFixed(1),
        unit: "KiB",
        baseline: JS_BUDGET_BYTES / 1024,
        ratio: +(jsGzip / JS_BUDGET_BYTES).toFixed(2),
        target: "<= 1x budget",
        ok: jsGzip <= JS_BUDGET_BYTES,
      },
      ...perFile.map((f) => ({ name: `  ${f.file}`, figure: +(f.bytes / 1024).toFixed(1), unit: "KiB" })),
      {
        name: `time to interactive (median of ${RUNS})`,
        figure: Math.round(median),
        unit: "ms",
        baseline: TTI_BUDGET_MS,
        ratio: +(median / TTI_BUDGET_MS).toFixed(2),
        target: "<= 1x budget",
        ok: median <= TTI_BUDGET_MS,
      },
    ],
    notes: ["cold loads (no service worker, no HTTP cache) at 390x844; time to the app's first-render mark"],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await run();
  console.log(result.title);
  console.table(result.rows);
  if (result.rows[0].ok === false) process.exitCode = 1;
}

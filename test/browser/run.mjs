// Builds the PWA, starts `wrangler dev` on a free port, runs every *.spec.mjs here in Chromium,
// stops the server, and prints `N passed, N failed` as its last line.
// Usage: node test/browser/run.mjs [spec-name-filter]
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPwa } from "../../pwa/build.mjs";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const token = `browser-${Math.random().toString(36).slice(2)}`;

await buildPwa();
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-wrangler-"));
let server;
let counts = { pass: 0, fail: 0 };
let code = 1;
try {
  // Loopback passes the outbound guard: a spec's git server and forge stand-in listen there (work-phone-ship).
  server = await startDevServer({
    port: Number(process.env.CHECK_PORT) || (await freePort()),
    token,
    persistTo,
    timeoutMs: 180_000,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const filter = process.argv[2] ?? "";
  const specs = (await readdir(here))
    .filter((f) => f.endsWith(".spec.mjs") && f.includes(filter))
    .sort()
    .map((f) => join(here, f));
  const child = spawn(process.execPath, ["--test", "--test-concurrency=1", ...specs], {
    cwd: repo,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PANTHEON_BASE_URL: server.url, PANTHEON_TOKEN: token },
  });
  let tap = "";
  child.stdout.on("data", (chunk) => {
    tap += chunk;
    process.stdout.write(chunk);
  });
  code = await new Promise((r) => child.on("exit", (c) => r(c ?? 1)));
  counts = {
    pass: Number(/^# pass (\d+)/m.exec(tap)?.[1] ?? 0),
    fail: Number(/^# fail (\d+)/m.exec(tap)?.[1] ?? (code ? 1 : 0)),
  };
} catch (error) {
  console.error(String(error));
  counts.fail += 1;
} finally {
  if (process.env.PANTHEON_SERVER_LOG && server) console.error(server.output().slice(-8000));
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}
console.log(`${counts.pass} passed, ${counts.fail} failed`);
process.exit(code);

// Builds the PWA, starts `wrangler dev` on a free port, runs every *.spec.mjs here, stops the server.
// Usage: node test/browser/run.mjs [spec-name-filter]
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPwa } from "../../pwa/build.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const token = `browser-${Math.random().toString(36).slice(2)}`;

const freePort = () =>
  new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

async function waitForHealth(url, server, limitMs = 180_000) {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (server.exitCode !== null) throw new Error(`wrangler dev exited with ${server.exitCode}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url}/api/health did not answer`);
}

await buildPwa();
const port = await freePort();
const inspector = await freePort();
const persist = await mkdtemp(join(tmpdir(), "pantheon-wrangler-"));
const base = `http://127.0.0.1:${port}`;
const log = [];
const server = spawn(
  "npx",
  ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector),
    "--var", `PANTHEON_ADMIN_TOKEN:${token}`, "--persist-to", persist, "--show-interactive-dev-session=false", "--log-level", "warn"],
  { cwd: repo, env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
);
server.stdout.on("data", (d) => log.push(String(d)));
server.stderr.on("data", (d) => log.push(String(d)));

const stop = async () => {
  if (server.exitCode === null) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {}
    await new Promise((r) => {
      const t = setTimeout(() => {
        try {
          process.kill(-server.pid, "SIGKILL");
        } catch {}
        r();
      }, 5000);
      server.once("exit", () => {
        clearTimeout(t);
        r();
      });
    });
  }
  await rm(persist, { recursive: true, force: true });
};

let code = 1;
try {
  await waitForHealth(base, server);
  const filter = process.argv[2] ?? "";
  const specs = (await readdir(here)).filter((f) => f.endsWith(".spec.mjs") && f.includes(filter)).sort().map((f) => join(here, f));
  const child = spawn(process.execPath, ["--test", "--test-concurrency=1", ...specs], {
    cwd: repo,
    stdio: "inherit",
    env: { ...process.env, PANTHEON_BASE_URL: base, PANTHEON_TOKEN: token },
  });
  code = await new Promise((r) => child.on("exit", (c) => r(c ?? 1)));
} catch (error) {
  console.error(String(error));
  console.error(log.join("").slice(-4000));
} finally {
  if (process.env.PANTHEON_SERVER_LOG) console.error(log.join("").slice(-8000));
  await stop();
}
process.exit(code);

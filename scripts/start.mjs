// `npm start`: serves the API and the PWA locally on the offline defaults, then prints the URL
// and a login token. Dependencies and Node 22 were ensured by scripts/with-node22.sh.
// Every step that can take more than a moment shows a progress line (scripts/progress.mjs), and
// the banner comes only once the server has answered real requests: the first ones after
// wrangler's "Ready" load the worker and wake the Durable Objects, which takes seconds (over half a
// minute on a busy machine), so they are made here, before the banner, not by the person's browser.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { freePort, startDevServer } from "./dev-server.mjs";
import { runWithProgress, startProgress } from "./progress.mjs";
import { startOwnSidecar } from "../sidecar/ensure-sidecar.mjs";
import { vapidKeyJson } from "./vapid-key.mjs";

const began = Date.now();
const port = Number(process.env.PORT ?? 8787);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a TCP port number (1-65535), got '${process.env.PORT}'`);
  process.exit(2);
}

/** The dev admin token lives in .dev.vars (git-ignored): generated once, reused, and kept as written. */
function ensureAdminToken() {
  const file = ".dev.vars";
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const match = /^PANTHEON_ADMIN_TOKEN\s*=\s*"?([^"\n]+)"?\s*$/m.exec(text);
  if (match) return match[1].trim();
  const token = `pa_${randomBytes(24).toString("base64url")}`;
  writeFileSync(file, `${text}${text && !text.endsWith("\n") ? "\n" : ""}PANTHEON_ADMIN_TOKEN="${token}"\n`, {
    mode: 0o600,
  });
  return token;
}

/** Something listens on the port: refused now, rather than after wrangler's slow start. */
function portTaken() {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.setTimeout(2000);
    const inUse = () => {
      socket.destroy();
      resolve(true);
    };
    socket.once("connect", inUse);
    socket.once("timeout", inUse);
    socket.once("error", (error) => resolve(/** @type {NodeJS.ErrnoException} */ (error).code !== "ECONNREFUSED"));
  });
}

/**
 * The deployment key project secrets are sealed with, in .dev.vars beside the token: generated once
 * and kept, since a new key would leave every stored secret unreadable.
 */
function ensureSecretsKey() {
  const file = ".dev.vars";
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (/^PANTHEON_SECRETS_KEY\s*=/m.test(text)) return;
  writeFileSync(
    file,
    `${text}${text && !text.endsWith("\n") ? "\n" : ""}PANTHEON_SECRETS_KEY="${randomBytes(32).toString("base64")}"\n`,
    { mode: 0o600 },
  );
}

/** The Web Push (VAPID) key, in .dev.vars too: kept, since a new one would end every device's subscription. */
function ensureVapidKey() {
  const file = ".dev.vars";
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (/^PANTHEON_VAPID_KEY\s*=/m.test(text)) return;
  writeFileSync(file, `${text}${text && !text.endsWith("\n") ? "\n" : ""}PANTHEON_VAPID_KEY='${vapidKeyJson()}'\n`, {
    mode: 0o600,
  });
}

const token = ensureAdminToken();
ensureSecretsKey();
ensureVapidKey();
const say = (line) => process.stderr.write(`pantheon: ${line}\n`);
if (await portTaken()) {
  console.error(
    `Port ${port} is in use (another \`npm start\`?). Start this one on another: PORT=${await freePort()} npm start`,
  );
  process.exit(2);
}

// Real embeddings with no network and no key: the sidecar serves USE-lite weights on loopback and
// the worker reaches it through EMBEDDINGS_BASE_URL (unset, agents fall back to the hashed
// embedder). Each server has its own, on a free port: one shared on a fixed port would be stopped
// with the first server while a second still uses it. It loads its weights while the PWA builds.
const sidecarStarting = startOwnSidecar({ timeoutMs: 120_000 }).then(
  (started) => ({ started }),
  (error) => ({ error }),
);

if (existsSync("pwa/build.mjs")) {
  const build = await runWithProgress("building the PWA", process.execPath, ["pwa/build.mjs"], {
    prefix: "pantheon: ",
  });
  if (build.code !== 0) {
    await (await sidecarStarting).started?.stop();
    process.exit(build.code);
  }
}

let sidecar = null;
const loading = startProgress("starting the embeddings sidecar (USE-lite weights)", { prefix: "pantheon: " });
const outcome = await sidecarStarting;
if (outcome.started) {
  sidecar = outcome.started;
  loading.done(`embeddings sidecar on ${sidecar.url} (this server's own; it stops with it)`);
} else {
  loading.done(
    `the embeddings sidecar did not start, memory uses the hashed embedder: ${outcome.error instanceof Error ? outcome.error.message : outcome.error}`,
  );
}

say("starting wrangler dev (database migrations are bundled and applied when each Durable Object starts)");
const starting = startProgress("starting wrangler dev", { prefix: "pantheon: " });
let pending = "";
let following = false;
/** wrangler's lines go above the progress line; "Ready" means it listens, not that the worker answers. */
const onOutput = (text) => {
  // After the banner: passed on as they come (each request wrangler serves), with no progress line.
  if (following) return void process.stderr.write(text);
  const lines = (pending + text).split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    if (line.trim()) starting.log(line);
    if (/Ready on http/.test(line))
      starting.relabel("waiting for the server to answer (the first request loads the worker)");
  }
};
let server;
try {
  server = await startDevServer({
    port,
    quiet: false,
    onOutput,
    timeoutMs: 300_000,
    vars: sidecar ? { EMBEDDINGS_BASE_URL: sidecar.url } : {},
  });
} catch (error) {
  starting.done(error instanceof Error ? error.message : String(error));
  await sidecar?.stop();
  process.exit(1);
}
starting.relabel("waking the project's registry and agents");
const api = (path) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
const agents = await api("/api/agents")
  .then((res) => res.json())
  .catch(() => ({ agents: [] }));
const first = agents.agents?.[0]?.name;
if (first) await api(`/api/agents/${encodeURIComponent(first)}`).catch(() => {});
starting.done(`the server answers (/api/health, /api/agents) after ${starting.seconds()} s`);

const loadExamples = process.argv.includes("--examples");
if (loadExamples && existsSync("scripts/load-examples.mjs")) {
  const { loadExamples: load } = await import("./load-examples.mjs");
  const examples = startProgress("loading the example agents", { prefix: "pantheon: " });
  await load({ url: server.url, token, log: (line) => examples.log(line) });
  // An example agent's own path, so its Durable Object is awake before anyone opens it.
  await api("/api/agents/main").catch(() => {});
  examples.done(`examples loaded in ${examples.seconds()} s`);
}

following = true;
if (pending) process.stderr.write(`${pending}\n`);

console.log(`
  Pantheon is running (offline defaults: offline model, local vector index, local queues), ready in ${Math.round((Date.now() - began) / 1000)} s

    URL:          ${server.url}
    Login token:  ${token}

  Open the URL in a browser and sign in with the token, or:
    curl -H "Authorization: Bearer ${token}" ${server.url}/api/agents

  Press Ctrl+C to stop.
`);

const shutdown = async () => {
  await server.stop();
  await sidecar?.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
server.child.on("exit", async (code) => {
  await sidecar?.stop();
  process.exit(code ?? 0);
});

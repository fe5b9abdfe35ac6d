// `npm start`: serves the API and the PWA locally on the offline defaults, then prints the URL
// and a login token. Dependencies and Node 22 were ensured by scripts/with-node22.sh.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { startDevServer } from "./dev-server.mjs";
import { ensureSidecar } from "../sidecar/ensure-sidecar.mjs";

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
  writeFileSync(file, `${text}${text && !text.endsWith("\n") ? "\n" : ""}PANTHEON_ADMIN_TOKEN="${token}"\n`, { mode: 0o600 });
  return token;
}

/**
 * The deployment key project secrets are sealed with, in .dev.vars beside the token: generated once
 * and kept, since a new key would leave every stored secret unreadable.
 */
function ensureSecretsKey() {
  const file = ".dev.vars";
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (/^PANTHEON_SECRETS_KEY\s*=/m.test(text)) return;
  writeFileSync(file, `${text}${text && !text.endsWith("\n") ? "\n" : ""}PANTHEON_SECRETS_KEY="${randomBytes(32).toString("base64")}"\n`, { mode: 0o600 });
}

const token = ensureAdminToken();
ensureSecretsKey();

if (existsSync("pwa/build.mjs")) {
  const build = spawnSync(process.execPath, ["pwa/build.mjs"], { stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

console.log("Starting wrangler dev (database migrations are bundled and applied when each Durable Object starts)…");
// Real embeddings with no network and no key: the sidecar serves USE-lite weights on loopback and
// the worker reaches it through EMBEDDINGS_BASE_URL (unset, agents fall back to the hashed embedder).
let sidecar = null;
try {
  sidecar = await ensureSidecar({ timeoutMs: 60_000 });
  console.log(`Embeddings sidecar on ${sidecar.url}${sidecar.started ? "" : " (already running)"}`);
} catch (error) {
  console.warn(`The embeddings sidecar did not start, memory uses the hashed embedder: ${error instanceof Error ? error.message : error}`);
}
const server = await startDevServer({ port, quiet: false, timeoutMs: 180_000, vars: sidecar ? { EMBEDDINGS_BASE_URL: sidecar.url } : {} });

const loadExamples = process.argv.includes("--examples");
if (loadExamples && existsSync("scripts/load-examples.mjs")) {
  const { loadExamples: load } = await import("./load-examples.mjs");
  await load({ url: server.url, token });
}

console.log(`
  Pantheon is running (offline defaults: offline model, local vector index, local queues)

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

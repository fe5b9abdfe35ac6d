// Starts `wrangler dev` on loopback and waits until the API answers. Used by `npm start`,
// the browser tests and the benchmarks, so all three run the same local stack.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { vapidKeyJson } from "./vapid-key.mjs";

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * `onOutput` gets wrangler's output as it comes (`npm start` prints it above its progress line);
 * without it, `quiet: false` passes the output straight through and `quiet` keeps it for errors.
 * @param {{ port: number, token?: string, persistTo?: string, vars?: Record<string,string>, quiet?: boolean, onOutput?: (text: string) => void, timeoutMs?: number }} options
 * @returns {Promise<{ url: string, stop: () => Promise<void>, child: import("node:child_process").ChildProcess, inspectorPort: number }>}
 */
export async function startDevServer({
  port,
  token,
  persistTo,
  vars = {},
  quiet = true,
  onOutput,
  timeoutMs = 120_000,
}) {
  // wrangler refuses to start without the static assets directory: build the PWA on a fresh clone.
  if (!existsSync(new URL("../pwa/dist/index.html", import.meta.url))) {
    const { buildPwa } = await import("../pwa/build.mjs");
    await buildPwa();
  }
  // Its own inspector port, so several servers (tests, benches, `npm start`) can run side by side.
  const inspector = await freePort();
  const args = [
    "wrangler",
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspector),
    "--test-scheduled",
    "--show-interactive-dev-session=false",
  ];
  if (persistTo) args.push("--persist-to", persistTo);
  // A server started with a token (tests, benches) gets a deployment key for project secrets made
  // from it, so the same token and --persist-to open the same secrets after a restart.
  if (token)
    vars = {
      PANTHEON_ADMIN_TOKEN: token,
      PANTHEON_SECRETS_KEY: createHash("sha256").update(`pantheon-dev-secrets-key:${token}`).digest("base64"),
      PANTHEON_VAPID_KEY: vapidKeyJson(token),
      ...vars,
    };
  for (const [key, value] of Object.entries(vars)) args.push("--var", `${key}:${value}`);
  // wrangler's own bin run by this Node when it is installed: `npx` first starts npm to find it,
  // a second or more of a start on a busy machine.
  const bin = fileURLToPath(new URL("../node_modules/wrangler/bin/wrangler.js", import.meta.url));
  const [command, commandArgs] = existsSync(bin) ? [process.execPath, [bin, ...args.slice(1)]] : ["npx", args];
  const child = spawn(command, commandArgs, {
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    stdio: quiet || onOutput ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    detached: true,
  });
  let output = "";
  const collect = (d) => {
    output = (output + d).slice(-16_000);
    onOutput?.(String(d));
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
        resolve();
      }, 5000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}:\n${output.slice(-4000)}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return { url, stop, child, inspectorPort: inspector, output: () => output };
    } catch {}
    await new Promise((r) => setTimeout(r, 300));
  }
  await stop();
  throw new Error(`wrangler dev did not answer on ${url} within ${timeoutMs} ms:\n${output.slice(-4000)}`);
}

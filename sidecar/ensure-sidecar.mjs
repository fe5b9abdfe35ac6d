// Makes sure the embeddings sidecar answers on `port`, starting it as a child process when it does
// not. Used by the tests and benches:
//   const sidecar = await ensureSidecar({ port: 8790 });  // → { url: "http://127.0.0.1:8790/v1", stop }
// `stop()` ends only a sidecar this call started; one that was already running is left alone.
// `npm start` uses `startOwnSidecar()`: a sidecar of its own on a port the system picks, so two
// local servers never share one (stopping the first would take the second's embedder with it).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const serverPath = fileURLToPath(new URL("./embeddings-server.mjs", import.meta.url));

async function healthy(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
    return response.ok && (await response.json()).ok === true;
  } catch {
    return false;
  }
}

/**
 * @param {{ port?: number, timeoutMs?: number, log?: (line: string) => void }} [options]
 * @returns {Promise<{ url: string, started: boolean, stop(): Promise<void> }>}
 */
export async function ensureSidecar({
  port = Number(process.env.EMBEDDINGS_PORT ?? 8790),
  timeoutMs = 30_000,
  log = () => {},
} = {}) {
  const url = `http://127.0.0.1:${port}/v1`;
  if (await healthy(port)) return { url, started: false, stop: async () => {} };

  return startSidecar({ port, timeoutMs, log });
}

/**
 * Starts a sidecar of the caller's own on a free port and resolves once it answers. It also ends
 * when the caller's process does (its stdin closes), so a killed `npm start` leaves none behind.
 * @example
 * const sidecar = await startOwnSidecar(); // { url: "http://127.0.0.1:41873/v1", started: true, stop }
 */
export function startOwnSidecar({ timeoutMs = 60_000, log = () => {} } = {}) {
  return startSidecar({ port: 0, timeoutMs, log });
}

async function startSidecar({ port, timeoutMs, log }) {
  const child = spawn(process.execPath, [serverPath], {
    env: { ...process.env, EMBEDDINGS_PORT: String(port), EMBEDDINGS_EXIT_WITH_PARENT: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk) => {
    output += chunk;
    for (const line of String(chunk).split("\n")) if (line.trim()) log(line);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 200))]);
    if (code !== undefined)
      throw new Error(`the embeddings sidecar exited with code ${code} before it was ready:\n${output.trim()}`);
    // Port 0: the sidecar says which port it took ("embeddings sidecar ready on http://127.0.0.1:<port>/v1").
    if (port === 0) port = Number(/ready on http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)?.[1] ?? 0);
    if (port !== 0 && (await healthy(port))) break;
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(
        `the embeddings sidecar did not answer /health on port ${port} within ${timeoutMs} ms:\n${output.trim()}`,
      );
    }
  }

  return {
    url: `http://127.0.0.1:${port}/v1`,
    started: true,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}

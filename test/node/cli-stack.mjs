// What cli.check.mjs and cli-admin.check.mjs share: a fresh local stack (wrangler dev with its own
// state and admin token) and the real CLI pointed at it from a directory without .dev.vars, with its
// own config directory, so only what a check gives decides the server and token. Not a *.check.mjs
// file, so test/node/run.mjs does not run it.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, makeCli } from "./check-kit.mjs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** A CLI result for a failed check's detail. */
export const shown = (r) =>
  JSON.stringify({ code: r.code, stdout: r.stdout.slice(0, 800), stderr: r.stderr.slice(0, 800) });

/** The CLI's stdout as JSON (--json), or undefined. */
export const parsed = (r) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    return undefined;
  }
};

/** A contract route this server does not have yet: 404 "no route for …" (exit 1). */
const missingRoute = (r) => r.code === 1 && /no route for|does not convert tools/.test(r.stderr);

/**
 * Starts the stack, hands `checks` what they need, and always stops it and prints the summary line
 * (`N passed, N failed`): a check file's whole body. A throw is one failed check named
 * `the <what> ran`.
 * @example
 * await runCliChecks("CLI check", async ({ check, run }) => {
 *   const health = await run("health");
 *   check("health says the server is up", health.code === 0, shown(health));
 * });
 */
export async function runCliChecks(what, checks) {
  const token = `pa_${randomBytes(12).toString("hex")}`;
  const persistTo = await mkdtemp(join(tmpdir(), "pantheon-cli-"));
  const configHome = join(persistTo, "config");
  const { check, skip, finish } = makeChecks();
  const call = makeCall(token);
  const cli = makeCli({ url: "", token: "", project: "", cwd: persistTo, configHome, input: "" });
  /** A contract check that prints `skip` with the reason where the server has no such route yet. */
  const checkOrSkip = (name, r, ok, detail) => {
    if (missingRoute(r))
      skip(
        name,
        "the server has no such route yet (shared contract of issue 15; turns on when the server side is merged)",
      );
    else check(name, ok, detail ?? shown(r));
  };
  let server;
  try {
    server = await startDevServer({ port: await freePort(), token, persistTo });
    const env = { PANTHEON_URL: server.url, PANTHEON_TOKEN: token };
    const run = (...args) => cli(args, { env });
    const api = async (path, init) => (await call(server.url, path, init)).body;
    await checks({ check, checkOrSkip, cli, run, api, call, env, server, token, persistTo, configHome });
  } catch (error) {
    check(`the ${what} ran`, false, error instanceof Error ? error.stack : String(error));
  } finally {
    await server?.stop();
    await rm(persistTo, { recursive: true, force: true });
  }
  finish();
}

// The `pantheon` CLI against a real local stack (wrangler dev): each check runs the command as an
// operator would, in a child process, and reads its stdout, stderr and exit code.
// Prints `N passed, N failed` as the last line.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const cliPath = join(root, "cli/pantheon.mjs");
const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-cli-"));
const { check, finish } = makeChecks();
const call = makeCall(token);

/** Runs `pantheon <args>` in a directory without .dev.vars, so only the env decides the server and token. */
function cli(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args], { cwd: persistTo, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
const shown = (r) => JSON.stringify({ code: r.code, stdout: r.stdout.slice(0, 800), stderr: r.stderr.slice(0, 800) });

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  const env = { PANTHEON_URL: server.url, PANTHEON_TOKEN: token };
  const run = (...args) => cli(args, env);
  const api = async (path) => (await call(server.url, path)).body;

  const health = await run("health");
  check("health says the server is up", health.code === 0 && health.stdout.includes("ok: Pantheon"), shown(health));

  const created = await run("agents", "create", "scout", "--description", "Finds things", "--system-prompt", "You are Scout. The launch code word is pineapple.");
  check("agents create makes the agent", created.code === 0 && created.stdout.includes("Created agent scout"), shown(created));

  const listed = await run("agents", "list");
  check("agents list shows it with its status and description", listed.code === 0 && /scout\s+idle\s+offline:offline/.test(listed.stdout) && listed.stdout.includes("Finds things"), shown(listed));

  const raw = await run("agents", "list", "--json");
  let names = [];
  try {
    names = JSON.parse(raw.stdout).agents.map((a) => a.name);
  } catch {}
  check("--json prints the API's JSON", names.includes("scout"), shown(raw));

  const chat = await run("chat", "scout", "What is the launch code word?");
  const stored = await api("/api/agents/scout/messages");
  const reply = stored.messages?.[0];
  check(
    "chat streams the agent's reply to stdout",
    chat.code === 0 && reply?.role === "assistant" && reply.content.length > 0 && chat.stdout.trim() === reply.content.trim() && /pineapple/i.test(chat.stdout),
    `${shown(chat)} stored=${JSON.stringify(reply)}`,
  );

  const history = await run("history", "scout", "--limit", "10");
  const lines = history.stdout.trim().split("\n");
  check(
    "history shows the turn oldest first",
    history.code === 0 && lines.length === 2 && /\buser\s+What is the launch code word\?/.test(lines[0]) && lines[1].includes("assistant") && lines[1].includes(reply?.content.slice(0, 20)),
    shown(history),
  );

  const runId = (await api("/api/agents/scout/runs")).runs?.[0]?.id;
  const runs = await run("runs", "scout");
  check("runs lists the run with its status", runs.code === 0 && Boolean(runId) && new RegExp(`${runId}\\s+completed\\s+message`).test(runs.stdout), shown(runs));

  const trace = await run("trace", "scout", runId ?? "missing");
  check(
    "trace shows each step with kind, name and duration",
    trace.code === 0 && /\bstate\s+run_started\s+\d+(\.\d)? m?s/.test(trace.stdout) && /\bmodel\s+model_result\s+\d/.test(trace.stdout) && trace.stdout.includes("run_finished"),
    shown(trace),
  );

  const invalid = await run("agents", "create", "Not_A_Slug");
  check(
    "a validation error exits 1 and names the field",
    invalid.code === 1 && invalid.stderr.includes("Error:") && /-\s+name: must be a lower-case slug/.test(invalid.stderr) && invalid.stdout === "",
    shown(invalid),
  );

  const missing = await run("history", "nobody");
  check("an unknown agent exits 1 with the API's message", missing.code === 1 && /nobody/.test(missing.stderr), shown(missing));

  const refused = await cli(["agents", "list"], { PANTHEON_URL: server.url, PANTHEON_TOKEN: "wrong" });
  check("a wrong token exits 1 and says the token was refused", refused.code === 1 && refused.stderr.includes("token was refused"), shown(refused));

  const scriptFile = join(persistTo, "scout.json");
  await writeFile(scriptFile, JSON.stringify({ name: "scout", description: "Finds things fast", model: { provider: "offline", name: "offline" } }));
  const put = await run("script", "put", "scout", scriptFile);
  const got = await run("script", "get", "scout");
  check("script put sends a JSON script and script get prints its source", put.code === 0 && got.code === 0 && got.stdout.includes("Finds things fast"), `${shown(put)} ${shown(got)}`);

  const token2 = await run("tokens", "create", "ci");
  const issued = /\n\s+(pt_\S+)/.exec(token2.stdout)?.[1];
  const withIssued = issued ? await cli(["agents", "list"], { PANTHEON_URL: server.url, PANTHEON_TOKEN: issued }) : { code: -1, stdout: "", stderr: "" };
  check("tokens create prints a token that works", token2.code === 0 && withIssued.code === 0 && withIssued.stdout.includes("scout"), `${shown(token2)} ${shown(withIssued)}`);

  const chatOnly = issued ? await cli(["agents", "create", "intruder"], { PANTHEON_URL: server.url, PANTHEON_TOKEN: issued }) : { code: -1, stdout: "", stderr: "" };
  check("a chat-scoped token (the default) cannot create agents: exit 1 naming the scope needed", chatOnly.code === 1 && chatOnly.stderr.includes("'admin' scope"), shown(chatOnly));
  const adminToken = await run("tokens", "create", "ops", "--scope", "admin");
  const listedScopes = await run("tokens", "list");
  check("tokens create --scope admin makes an admin token; tokens list shows each scope", adminToken.stdout.includes("scope admin") && /ci\s+chat/.test(listedScopes.stdout) && /ops\s+admin/.test(listedScopes.stdout), `${shown(adminToken)} ${shown(listedScopes)}`);

  const closed = await freePort();
  const unreachable = await cli(["agents", "list"], { PANTHEON_URL: `http://127.0.0.1:${closed}`, PANTHEON_TOKEN: token });
  check(
    "an unreachable URL exits 1 saying so and how to start the server",
    unreachable.code === 1 && unreachable.stderr.includes(`not reachable at http://127.0.0.1:${closed}`) && unreachable.stderr.includes("npm start"),
    shown(unreachable),
  );
} catch (error) {
  check("the CLI check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();

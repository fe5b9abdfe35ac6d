// No silent stand-in, end to end: `wrangler dev` with PANTHEON_ENV=production and no model key.
// An agent whose provider has no key fails its run naming the secret and the command that sets it;
// its detail says so; `pantheon doctor` exits 1 with the same fix. Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, makeCli } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-prod-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const fix = "npx wrangler secret put OPENAI_API_KEY --env production";
const expected = `provider 'openai' needs the secret OPENAI_API_KEY: ${fix}`;

let server;
try {
  // Empty values override whatever a developer's .dev.vars holds: no key, no local model server.
  server = await startDevServer({
    port: await freePort(),
    token,
    persistTo,
    vars: { PANTHEON_ENV: "production", OPENAI_API_KEY: "", OPENAI_BASE_URL: "" },
  });
  const created = await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "scout", model: { provider: "openai", name: "gpt-4o-mini" } }),
  });
  check("the agent is created", created.status === 201, JSON.stringify(created));
  check(
    "its detail says the model is unavailable and why",
    created.body?.resolvedModel?.status === "unavailable" && created.body.resolvedModel.reason === expected,
    JSON.stringify(created.body?.resolvedModel),
  );

  const sent = await call(server.url, "/api/agents/scout/messages", {
    method: "POST",
    body: JSON.stringify({ content: "hello" }),
  });
  check(
    "its run fails instead of answering with a stand-in",
    sent.status === 200 && sent.body?.status === "failed" && sent.body?.reply === null,
    JSON.stringify(sent),
  );
  check(
    "the run's error names the missing secret and the command",
    typeof sent.body?.error === "string" && sent.body.error.includes(expected),
    JSON.stringify(sent.body?.error),
  );

  const doctor = await makeCli({ url: server.url, token, cwd: persistTo })(["doctor"]);
  check(
    "pantheon doctor exits 1 and prints the fix",
    doctor.code === 1 && doctor.stdout.includes(`fix: ${fix}`) && doctor.stdout.includes("(production)"),
    JSON.stringify(doctor).slice(0, 1500),
  );
  check(
    "pantheon doctor never prints the admin token",
    !doctor.stdout.includes(token) && !doctor.stderr.includes(token),
    "token printed",
  );
} catch (error) {
  check(
    "the production-mode server runs",
    false,
    error instanceof Error ? error.message.slice(0, 2000) : String(error),
  );
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}
finish();

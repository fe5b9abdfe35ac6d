// Daily caps on one real local stack (wrangler dev), with an OpenAI-compatible double outside workerd
// (node:http on a free loopback port) that reports usage: every call of gpt-4o is 1000 input and 500
// output tokens, so $0.0075 at the published price. An operator sets caps with the real `pantheon`
// CLI; people chat over fetch. A project cap stops the next model call across two agents with a
// clear answer (not a 500), `pantheon usage` and the doctor show the spend, the project's admin can
// neither raise the deployment's ceiling nor move the clock, and the cap lifts the next UTC day once
// the deployment's admin moves the test clock (PANTHEON_TEST_CLOCK=1). Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";

const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-quotas-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 700);
const day = 86_400_000;

/** The model double: counts calls by model and answers each with real usage figures. */
const calls = [];
const model = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : {};
  const side =
    typeof parsed.messages?.[0]?.content === "string" &&
    /long-term memory|running summary/.test(parsed.messages[0].content);
  if (!side) calls.push(parsed.model);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: `c${calls.length}`,
      object: "chat.completion",
      created: 0,
      model: parsed.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: side ? '{"memories":[]}' : "noted" },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
    }),
  );
});
await new Promise((resolve) => model.listen(0, "127.0.0.1", resolve));
const modelUrl = `http://127.0.0.1:${model.address().port}`;

/** `pantheon <args>` (the real CLI in a child process, stdin ended empty); token and project per call. */
const cli = makeCli({ url: () => server.url, cwd: persistTo, configHome: join(persistTo, "config"), input: "" });
const parsed = (r) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    return undefined;
  }
};

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token: deploymentToken,
    persistTo,
    vars: {
      PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
      OPENAI_API_KEY: "sk-quota-double",
      OPENAI_BASE_URL: `${modelUrl}/v1`,
      PANTHEON_TEST_CLOCK: "1",
    },
  });
  const call = makeProjectCall(server.url);
  const acme = await makeTenant(call, deploymentToken, "acme");
  const beta = await makeTenant(call, deploymentToken, "beta");
  const acmeCli = (...args) => cli(args, { token: acme.token, project: "acme" });
  const deploymentCli = (...args) => cli(args, { token: deploymentToken, project: "acme" });
  const say = async (tenant, agent, content) =>
    (await tenant.call(`/api/agents/${agent}/messages`, { method: "POST", body: JSON.stringify({ content }) })).body;

  for (const name of ["scout", "scribe"]) await acmeCli("agents", "create", name, "--model", "openai:gpt-4o");
  await beta.call("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "free", model: { provider: "openai", name: "gpt-4o" } }),
  });

  // --- a project cap across two agents ----------------------------------------------------------
  const set = await acmeCli("quotas", "set", "--usd-per-day", "0.02");
  check(
    "the project's admin sets a $0.02 daily cap with pantheon quotas set",
    set.code === 0 && set.stdout.includes("project acme") && set.stdout.includes("$0 / $0.02"),
    shown(set),
  );
  const replies = [
    await say(acme, "scout", "one"),
    await say(acme, "scribe", "two"),
    await say(acme, "scout", "three"),
  ];
  check(
    "three calls of two agents go through ($0.0225 spent, the last one crossing the cap)",
    replies.every((r) => r?.status === "completed") && calls.length === 3,
    shown({ replies, calls: calls.length }),
  );
  const refused = await say(acme, "scribe", "four");
  check(
    "the next call of either agent is not made: the person gets the run's clear error (which cap, used/limit, the reset), not a 500",
    refused?.status === "failed" &&
      /^daily cap reached: project 'acme' has used \$0\.0225 of its \$0\.02 per day \(UTC\); the cap resets at \d{4}-\d\d-\d\dT00:00:00\.000Z$/.test(
        refused.error,
      ) &&
      calls.length === 3,
    shown({ refused, calls: calls.length }),
  );
  const trace = (await acme.call(`/api/agents/scribe/runs/${refused?.runId}`)).body;
  const step = (trace?.trace ?? []).find((s) => s.name === "quota_exceeded");
  check(
    "the run's trace has a quota_exceeded step naming the cap",
    step?.data?.scope === "project" && step.data.limit === "usdPerDay" && step.data.cap === 0.02,
    shown(trace?.trace?.map((s) => s.name)),
  );

  const usage = await acmeCli("usage", "--json");
  const report = parsed(usage);
  check(
    "pantheon usage shows today's spend: 4500 tokens, $0.0225, per agent and for the project",
    report?.project?.used?.tokens === 4500 &&
      Math.abs(report.project.used.usd - 0.0225) < 1e-9 &&
      report.agents.find((a) => a.name === "scout")?.used.tokens === 3000,
    shown(report),
  );
  const table = await acmeCli("usage");
  check(
    "pantheon usage as a table",
    table.code === 0 &&
      /project acme\s+4500\s+\$0\.0225 \/ \$0\.02/.test(table.stdout) &&
      /scout\s+3000/.test(table.stdout),
    shown(table),
  );
  const doctor = parsed(await acmeCli("doctor", "--json"));
  const line = doctor?.checks?.find((c) => c.id === "quota:project");
  check(
    "the doctor's quota line says the cap is reached",
    line?.status === "warn" &&
      line.message.includes("project 'acme' spent 4500 tokens, $0.0225 today (UTC) of its daily cap of $0.02") &&
      line.message.includes("the cap is reached"),
    shown(line),
  );

  // --- what a tenant cannot do ------------------------------------------------------------------------
  const ceiling = await acmeCli("quotas", "ceiling", "acme", "--usd-per-day", "100");
  check(
    "the project's admin cannot set the deployment's ceiling (exit 1, the server's reason)",
    ceiling.code === 1 && ceiling.stderr.includes("only the deployment's admin token"),
    shown(ceiling),
  );
  const clock = await acme.call("/api/projects/acme/test-clock", {
    method: "PUT",
    body: JSON.stringify({ offsetMs: day }),
  });
  check("the project's admin cannot move the quota clock (403)", clock.status === 403, shown(clock));
  check(
    "…and the cap still holds after the attempt",
    (await say(acme, "scout", "five"))?.status === "failed" && calls.length === 3,
    shown(calls.length),
  );
  const freeTurns = [
    await say(beta, "free", "a"),
    await say(beta, "free", "b"),
    await say(beta, "free", "c"),
    await say(beta, "free", "d"),
  ];
  check(
    "another project without caps is not held back (positive control)",
    freeTurns.every((r) => r?.status === "completed") && calls.length === 7,
    shown({ freeTurns, calls: calls.length }),
  );

  // --- the next day ---------------------------------------------------------------------------------------
  const moved = await call(deploymentToken, "acme", "/api/projects/acme/test-clock", {
    method: "PUT",
    body: JSON.stringify({ offsetMs: day }),
  });
  const tomorrow = await say(acme, "scout", "six");
  check(
    "the deployment's admin moves acme's clock a day on: the cap lifts and the call is made",
    moved.status === 200 && tomorrow?.status === "completed" && calls.length === 8,
    shown({ moved, tomorrow, calls: calls.length }),
  );
  const fresh = parsed(await acmeCli("usage", "--json"));
  check(
    "the new day's spend starts from that one call",
    fresh?.project?.used?.tokens === 1500 && fresh.project.day !== report.project.day,
    shown(fresh?.project),
  );

  // --- an agent's own cap, and the ceiling -----------------------------------------------------------
  const agentCap = await acmeCli("quotas", "set", "--agent", "scribe", "--tokens-per-day", "1500");
  const first = await say(acme, "scribe", "seven");
  const second = await say(acme, "scribe", "eight");
  check(
    "an agent's own token cap stops its second call",
    agentCap.code === 0 &&
      first?.status === "completed" &&
      second?.status === "failed" &&
      second.error.includes("agent 'scribe' has used 1500 tokens of its 1500 tokens per day"),
    shown({ agentCap, first, second }),
  );
  const setCeiling = await deploymentCli("quotas", "ceiling", "acme", "--usd-per-day", "0.05");
  const above = await acmeCli("quotas", "set", "--usd-per-day", "5");
  check(
    "the deployment's admin sets a ceiling; the project's admin cannot go above it (exit 1 naming the field and the ceiling)",
    setCeiling.code === 0 &&
      above.code === 1 &&
      above.stderr.includes("usdPerDay is above the deployment's ceiling for this project: at most 0.05"),
    shown({ setCeiling, above }),
  );
  const within = parsed(await acmeCli("quotas", "set", "--usd-per-day", "0.04", "--json"));
  check(
    "…and within it, the project's admin sets its own (positive control)",
    within?.project?.effective?.usdPerDay === 0.04,
    shown(within?.project),
  );
} catch (error) {
  check("the check ran to the end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  model.close();
  await rm(persistTo, { recursive: true, force: true });
}
finish();

// A workflow's tool step runs its tool once across a kill of the whole served stack. A ledger double
// here on loopback (node:http, outside workerd) applies a change once per Idempotency-Key, as a
// service that deduplicates by key does, and holds the first call open. While it is held, the whole
// `wrangler dev` process group is SIGKILLed; wrangler dev starts again on the same persisted state
// and nothing is asked of it: the agent's alarm must wake it. The run the step wrote before its call
// is carried on (the same key again, answered from the ledger) and the workflow goes on to its next
// step, which tells the double. Only then is the workflow read: it completed, one key was applied.
// Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, until } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-workflow-kill-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const shown = (value) => JSON.stringify(value).slice(0, 800);
/** wrangler dev's port, both times (the range this check owns); the ledger's is any free one. */
const port = Number(process.env.WORKFLOW_KILL_PORT ?? 8820);

// --- the ledger double -------------------------------------------------------------------------
/** Every call as it arrived: path and Idempotency-Key. */
const calls = [];
/** What each key applied: applied once, answered the same to every repeat. */
const applied = new Map();
let firstArrived;
const arrived = new Promise((resolve) => (firstArrived = resolve));

const ledger = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const key = req.headers["idempotency-key"] ?? "";
  const { text } = body ? JSON.parse(body) : {};
  calls.push({ path: req.url, key, text });
  const answer = (value) => {
    if (res.destroyed) return;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  if (req.url === "/notify") return answer({ told: text });
  if (!applied.has(key)) applied.set(key, { entry: applied.size + 1, text });
  // The first call stays open: the server is killed while the tool step waits on it.
  if (calls.filter((c) => c.path === "/apply").length === 1) return firstArrived();
  answer(applied.get(key));
});
await new Promise((resolve) => ledger.listen(0, "127.0.0.1", resolve));
const ledgerUrl = `http://127.0.0.1:${ledger.address().port}`;

const tool = (name, path, description) => ({
  name,
  description,
  parameters: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  endpoint: `${ledgerUrl}${path}`,
  // The ledger applies a call once per Idempotency-Key: a call cut off by a restart may be sent again.
  idempotent: true,
});

const vars = { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" };
const start = () => startDevServer({ port, token, persistTo, vars });

/** SIGKILL of wrangler dev's whole process group (wrangler, workerd, esbuild): nothing gets to shut down. */
async function killGroup(server) {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  process.kill(-server.child.pid, "SIGKILL");
  await exited;
  // The group's other processes (workerd) die with it; the port is free again once nothing answers.
  await until(
    "the killed server's port to close",
    () =>
      fetch(`http://127.0.0.1:${port}/api/health`).then(
        () => false,
        () => true,
      ),
    { ms: 20_000 },
  );
}

let server;
try {
  server = await start();
  await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({
      name: "clerk",
      systemPrompt: "You keep the ledger.",
      runtime: {
        tools: [],
        allowHosts: ["127.0.0.1"],
        httpTools: [
          tool("ledger.apply", "/apply", "Applies one entry to the ledger (once per Idempotency-Key)."),
          tool("ledger.notify", "/notify", "Tells the ledger's owner what was applied."),
        ],
      },
    }),
  });
  const workflow = {
    name: "post",
    steps: [
      { id: "apply", kind: "tool", tool: "ledger.apply", args: { text: "{{input}}" } },
      { id: "notify", kind: "tool", tool: "ledger.notify", args: { text: "posted: {{apply}}" }, after: ["apply"] },
    ],
  };
  const started = await call(server.url, "/api/agents/clerk/workflows", {
    method: "POST",
    body: JSON.stringify({ workflow, input: "credit 5 to Ada", id: "wf-kill" }),
  });
  check("the workflow starts (202)", started.status === 202, shown(started));
  const runId = started.body?.steps?.[0]?.ref;
  check("the tool step's run id is written with its start, before its call", typeof runId === "string", shown(started));

  await arrived;
  check(
    "the first call reached the ledger under the run's key, and is held open",
    calls.length === 1 && calls[0].key === `${runId}:manual-call`,
    shown(calls),
  );
  await killGroup(server);
  server = undefined;

  // Started again on the same state; from here on nothing is asked of the agent until the ledger
  // has seen the workflow go on (startDevServer's own health probe does not reach the agent).
  server = await start();
  await until(
    "the workflow's next step to reach the ledger, woken by the agent's alarm alone",
    async () => calls.some((c) => c.path === "/notify"),
    { ms: 120_000, every: 500 },
  );
  const applies = calls.filter((c) => c.path === "/apply");
  check(
    "the interrupted call was sent again under its own key, and no other key reached the ledger",
    applies.length >= 2 && applies.every((c) => c.key === `${runId}:manual-call`),
    shown(calls),
  );
  check("the ledger applied the entry exactly once", applied.size === 1, shown([...applied]));
  const notify = calls.find((c) => c.path === "/notify");
  check(
    "the next step got the one applied entry",
    notify?.text === `posted: ${JSON.stringify({ entry: 1, text: "credit 5 to Ada" })}`,
    shown(notify),
  );

  const view = await call(server.url, "/api/agents/clerk/workflows/wf-kill");
  check(
    "the workflow completed, its tool step adopting the run it wrote before the kill",
    view.body?.status === "completed" && view.body.steps[0].state === "done" && view.body.steps[0].ref === runId,
    shown(view),
  );
  const runs = await call(server.url, "/api/agents/clerk/runs");
  const manual = (runs.body?.runs ?? []).filter((r) => r.trigger === "manual");
  check(
    "one run per tool step: the interrupted one carried on, none started beside it",
    manual.length === 2,
    shown(runs),
  );
} catch (error) {
  check("the workflow kill check ran", false, error instanceof Error ? error.message : String(error));
} finally {
  await server?.stop();
  ledger.close();
  await rm(persistTo, { recursive: true, force: true });
}

finish();

// Fan-outs and workflows on the served stack (wrangler dev), with an OpenAI-compatible double run
// here on loopback (node:http, outside workerd): every agent's model is the double, which answers by
// model name, records each request, and holds a judge's answer until this check releases it.
// - a three-judge critique: the critics' requests contain the proposal, the proposer's second request
//   the critiques, and the decision is the revision;
// - `first` decides while the two slow judges are still held, and their runs are cancelled;
// - a four-step workflow (three asks, a majority join) through a restart of wrangler dev (every
//   object evicted) at each step: it completes, and each judge was asked once.
// Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, until } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-fanout-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const shown = (value) => JSON.stringify(value).slice(0, 800);

// --- the model double --------------------------------------------------------------------------
/** Requests per model name (the conversation's, not memory extraction or summaries). */
const requests = new Map();
/** Held models: their answers wait until `release(model)`. */
const holds = new Map();
const hold = (model) => {
  let open;
  const gate = new Promise((r) => (open = r));
  holds.set(model, { gate, open, waiting: 0 });
};
const release = (model) => holds.get(model)?.open();
const lastUser = (messages) => [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
const text = (content) => (typeof content === "string" ? content : JSON.stringify(content));

/** What each model answers, from the request it got. */
function answerOf(model, messages) {
  const asked = text(lastUser(messages));
  if (model === "proposer")
    return asked.includes("Revise your answer") ? "Ship on Friday after a QA pass on Thursday." : "Ship on Friday.";
  if (model.startsWith("critic")) return "Add a QA pass before shipping.";
  if (model === "fast") return "Approved.";
  if (model.startsWith("slow")) return "Rejected.";
  return { "judge-a": "Yes.", "judge-b": "no", "judge-c": "yes" }[model] ?? "(no answer scripted)";
}

const double = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : {};
  const messages = parsed.messages ?? [];
  const system = text(messages[0]?.content ?? "");
  const side = system.includes("long-term memory")
    ? '{"memories":[]}'
    : system.includes("running summary of a conversation")
      ? "(summary)"
      : null;
  if (side === null) requests.set(parsed.model, [...(requests.get(parsed.model) ?? []), messages]);
  const held = side === null ? holds.get(parsed.model) : undefined;
  if (held) {
    held.waiting += 1;
    await held.gate;
    held.waiting -= 1;
  }
  const content = side ?? answerOf(parsed.model, messages);
  const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
  if (res.destroyed) return;
  if (!parsed.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(
      JSON.stringify({
        id: "c",
        object: "chat.completion",
        created: 0,
        model: parsed.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage,
      }),
    );
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta, finish_reason = null, extra = {}) =>
    res.write(
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: parsed.model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
    );
  chunk({ role: "assistant", content });
  chunk({}, "stop");
  res.write(
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: parsed.model, choices: [], usage })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
});
await new Promise((resolve) => double.listen(0, "127.0.0.1", resolve));
const modelUrl = `http://127.0.0.1:${double.address().port}/v1`;

// --- the stack -----------------------------------------------------------------------------------
const vars = { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true", OPENAI_API_KEY: "sk-double", OPENAI_BASE_URL: modelUrl };
const start = async () => startDevServer({ port: await freePort(), token, persistTo, vars });
let server;
const api = (path, init) => call(server.url, path, init);
const agent = (name, extra = {}) =>
  api("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name, description: `${name} agent`, model: { provider: "openai", name }, ...extra }),
  });
/** `until`, polling through errors too: the server restarts under it. */
const untilThroughRestarts = (what, probe, ms = 120_000) => until(what, () => probe().catch(() => null), { ms });
const decided = (id) =>
  untilThroughRestarts(`fan-out ${id}`, async () => {
    const got = await api(`/api/agents/main/fanouts/${id}`);
    return got.body?.status === "decided" ? got.body : null;
  });

try {
  server = await start();
  for (const name of ["proposer", "critic-a", "critic-b", "fast", "slow-a", "slow-b", "judge-a", "judge-b", "judge-c"])
    await agent(name);
  const script = `(actor "main" (description "Chairs the launch review.") (connections "proposer" "critic-a" "critic-b" "fast" "slow-a" "slow-b" "judge-a" "judge-b" "judge-c")
    (workflow "verdict"
      (step "a" :ask "judge-a" :input "Approve {{input}}? yes or no.")
      (step "b" :ask "judge-b" :input "Approve {{input}}? yes or no.")
      (step "c" :ask "judge-c" :input "Approve {{input}}? yes or no.")
      (step "vote" :join ("a" "b" "c") :policy :majority)))`;
  const put = await fetch(`${server.url}/api/agents/main/script`, {
    method: "PUT",
    body: script,
    headers: { authorization: `Bearer ${token}`, "content-type": "text/x-pantheon" },
  });
  check("main is created from a script with a workflow", put.status === 201, String(put.status));

  // --- critique: the critics see the proposal, the proposer revises ------------------------------
  const critique = await api("/api/agents/main/fanouts", {
    method: "POST",
    body: JSON.stringify({
      targets: ["proposer", "critic-a", "critic-b"],
      question: "When do we ship?",
      policy: "critique",
    }),
  });
  check(
    "POST /fanouts (critique) answers 202 with the proposer asked first",
    critique.status === 202 && critique.body.asks.length === 1 && critique.body.asks[0].target === "proposer",
    shown(critique),
  );
  const critiqued = await decided(critique.body.id);
  const criticAsked = ["critic-a", "critic-b"].map((c) => text(lastUser(requests.get(c)?.[0] ?? [])));
  check(
    "each critic's model request contains the proposal",
    criticAsked.every((q) => q.includes("Ship on Friday.") && q.includes("Critique this answer from 'proposer'")),
    shown(criticAsked),
  );
  const revise = text(lastUser(requests.get("proposer")?.[1] ?? []));
  check(
    "the proposer's second request holds both critiques",
    revise.includes("critic-a: Add a QA pass before shipping.") &&
      revise.includes("critic-b: Add a QA pass before shipping."),
    revise.slice(0, 400),
  );
  check(
    "the decision is the proposer's revision, after one round",
    critiqued.result?.ok === true &&
      critiqued.result.answer === "Ship on Friday after a QA pass on Thursday." &&
      critiqued.result.rounds === 1,
    shown(critiqued.result),
  );

  // --- first: decided while the slow judges are held -----------------------------------------------
  hold("slow-a");
  hold("slow-b");
  const first = await api("/api/agents/main/fanouts", {
    method: "POST",
    body: JSON.stringify({ targets: ["slow-a", "slow-b", "fast"], question: "Launch?", policy: "first" }),
  });
  const firstDecided = await decided(first.body.id);
  const stillHeld = holds.get("slow-a").waiting + holds.get("slow-b").waiting;
  check(
    "`first` decides with the fast judge's answer while both slow judges are still held by the double",
    firstDecided.result?.answer === "Approved." && firstDecided.result.decidedBy === "fast" && stillHeld === 2,
    shown({ result: firstDecided.result, stillHeld }),
  );
  const cancelled = await untilThroughRestarts(
    "the slow judges' runs to be cancelled",
    async () => {
      const runs = await Promise.all(
        ["slow-a", "slow-b"].map(async (n) => (await api(`/api/agents/${n}/runs`)).body?.runs?.[0]?.status),
      );
      return runs.every((s) => s === "cancelled") ? runs : null;
    },
    30_000,
  ).catch(() => null);
  check("the slow judges' runs were cancelled (the bus `cancel`)", cancelled !== null, shown(cancelled));
  release("slow-a");
  release("slow-b");

  // --- a four-step workflow through an eviction (restart) at each step ---------------------------
  for (const judge of ["judge-a", "judge-b", "judge-c"]) hold(judge);
  const wf = await api("/api/agents/main/workflows", {
    method: "POST",
    body: JSON.stringify({ workflow: "verdict", input: "v2.0", id: "wf-node" }),
  });
  check(
    "POST /workflows starts the three asks at once (202)",
    wf.status === 202 && wf.body.steps.filter((s) => s.state === "running").length === 3,
    shown(wf),
  );
  for (const step of ["a", "b", "c"]) {
    await server.stop();
    server = await start();
    release(`judge-${step}`);
    const done = await untilThroughRestarts(`step ${step} after the restart`, async () => {
      const got = await api("/api/agents/main/workflows/wf-node");
      return got.body?.steps?.find((s) => s.id === step)?.state === "done" ? got.body : null;
    }).catch((error) => ({ error: String(error) }));
    check(`restarted with step '${step}' under way: the step finishes after the restart`, !done.error, shown(done));
  }
  await server.stop();
  server = await start();
  const finished = await untilThroughRestarts("the workflow to complete", async () => {
    const got = await api("/api/agents/main/workflows/wf-node");
    return got.body?.status === "completed" ? got.body : null;
  }).catch((error) => ({ error: String(error) }));
  check(
    "the workflow completes with the majority's answer through the join",
    finished.output === "Yes." && finished.steps?.find((s) => s.id === "vote")?.output === "Yes.",
    shown(finished),
  );
  const runs = await Promise.all(
    ["judge-a", "judge-b", "judge-c"].map(async (n) => (await api(`/api/agents/${n}/runs`)).body?.runs?.length),
  );
  check(
    "each judge was asked once through four restarts (one run each)",
    runs.every((n) => n === 1),
    shown(runs),
  );
} catch (error) {
  check("the fan-out check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  for (const h of holds.values()) h.open();
  await server?.stop();
  double.close();
  await rm(persistTo, { recursive: true, force: true });
}
finish();

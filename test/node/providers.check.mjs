// Named model providers, a cascade and the circuit breaker on one real local stack (wrangler dev),
// against two OpenAI-compatible servers run here (node:http on free loopback ports) that record the
// model and Authorization header of every call. Project a names provider `flaky` (server one, whose
// model `down` always answers 503) and `steady` (server two), each with a key from a's own secrets;
// a's agent `relay` runs the cascade flaky/down → steady/backup: each run finishes on steady with a
// `model_hop` trace step, and after two failures the breaker opens, so the next run passes flaky over
// without calling it. Two agents of two projects on the two servers with different keys, at once,
// each server seeing only its own key. Refusals with their positive controls: another project's
// provider or secret, a provider URL at the metadata address, a tool naming a provider's key, a
// model override outside the agent's allowed list, a session narrowing to a tool the agent lacks.
// `pantheon providers set|list` through the real CLI. Prints `N passed, N failed` last.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";

const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const keys = {
  aFlaky: `gsk-a-${randomBytes(8).toString("hex")}`,
  aSteady: `sk-a-${randomBytes(8).toString("hex")}`,
  bSteady: `sk-b-${randomBytes(8).toString("hex")}`,
};
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-providers-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 700);

/** An OpenAI-compatible server: records each call; the model `down` answers 503, any other answers its own name. */
function modelServer(label) {
  const calls = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const parsed = body ? JSON.parse(body) : {};
    calls.push({
      path: req.url,
      model: parsed.model,
      topP: parsed.top_p,
      tools: (parsed.tools ?? []).map((t) => t.function?.name),
      authorization: req.headers.authorization ?? null,
    });
    if (parsed.model === "down") {
      res.writeHead(503, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { message: `${label} is overloaded`, type: "server_error" } }));
    }
    // A little wait, so two agents' calls overlap in time.
    await new Promise((resolve) => setTimeout(resolve, 150));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "c1",
        object: "chat.completion",
        created: 0,
        model: parsed.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: `${label} answers as ${parsed.model}` },
            finish_reason: "stop",
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      }),
    );
  });
  return { calls, server, label };
}
const one = modelServer("server-one");
const two = modelServer("server-two");
for (const s of [one, two]) await new Promise((resolve) => s.server.listen(0, "127.0.0.1", resolve));
const urlOf = (s) => `http://127.0.0.1:${s.server.address().port}/v1`;
const completions = (s) => s.calls.filter((c) => c.path?.endsWith("/chat/completions"));

/** `pantheon <args>` as an operator runs it (the real CLI in a child process); the token per call. */
const cli = makeCli({ url: () => server.url, project: "", cwd: persistTo, configHome: join(persistTo, "config") });

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token: deploymentToken,
    persistTo,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const call = makeProjectCall(server.url);
  const a = await makeTenant(call, deploymentToken, "a");
  const b = await makeTenant(call, deploymentToken, "b");
  const put = (tenant, path, body) => tenant.call(path, { method: "PUT", body: JSON.stringify(body) });
  const post = (tenant, path, body) => tenant.call(path, { method: "POST", body: JSON.stringify(body) });

  // --- providers, each with a key from its project's own secrets -------------------------------
  await put(a, "/api/projects/a/secrets/FLAKY_KEY", { value: keys.aFlaky });
  await put(a, "/api/projects/a/secrets/STEADY_KEY", { value: keys.aSteady });
  await put(b, "/api/projects/b/secrets/STEADY_KEY", { value: keys.bSteady });
  const setFlaky = await cli(
    ["providers", "set", "flaky", "--base-url", urlOf(one), "--key-secret", "FLAKY_KEY", "--project", "a"],
    { token: a.token },
  );
  check(
    "pantheon providers set flaky in project a: set, naming its key's secret and never a value",
    setFlaky.code === 0 &&
      setFlaky.stdout.includes("Set provider flaky in project a") &&
      setFlaky.stdout.includes("FLAKY_KEY") &&
      !setFlaky.stdout.includes(keys.aFlaky),
    shown(setFlaky),
  );
  const steadyA = await put(a, "/api/projects/a/providers/steady", { baseUrl: urlOf(two), keySecret: "STEADY_KEY" });
  const steadyB = await put(b, "/api/projects/b/providers/steady", { baseUrl: urlOf(two), keySecret: "STEADY_KEY" });
  check(
    "PUT …/providers/steady in a and in b, each naming its own project's STEADY_KEY",
    steadyA.status === 200 && steadyB.status === 200 && steadyA.body?.provider?.keySecret === "STEADY_KEY",
    shown({ steadyA, steadyB }),
  );
  const list = await cli(["providers", "list", "--project", "a"], { token: a.token });
  check(
    "pantheon providers list shows flaky and steady with their URLs and secret names, no key",
    list.code === 0 &&
      /flaky\s+openai-compatible/.test(list.stdout) &&
      list.stdout.includes("STEADY_KEY") &&
      !Object.values(keys).some((k) => list.stdout.includes(k)),
    shown(list),
  );

  // --- refusals, each beside its positive control ----------------------------------------------
  const metadata = await put(a, "/api/projects/a/providers/meta", { baseUrl: "http://169.254.169.254/v1" });
  check(
    "a provider URL at the metadata address is a 400 at baseUrl (the outbound guard)",
    metadata.status === 400 &&
      metadata.body?.error?.details?.issues?.[0]?.path?.[0] === "baseUrl" &&
      metadata.text.includes("link-local"),
    shown(metadata.body),
  );
  const otherSecret = await put(b, "/api/projects/b/providers/thief", { baseUrl: urlOf(one), keySecret: "FLAKY_KEY" });
  check(
    "b cannot name a's secret FLAKY_KEY as its provider's key (400 at keySecret, b has no such secret)",
    otherSecret.status === 400 &&
      otherSecret.body?.error?.details?.issues?.[0]?.path?.[0] === "keySecret" &&
      otherSecret.text.includes("no secret 'FLAKY_KEY' in project 'b'"),
    shown(otherSecret.body),
  );
  const reach = await b.call("/api/projects/a/providers", { method: "PUT" });
  const reachList = await call(b.token, "b", "/api/projects/a/providers");
  check(
    "b's admin token cannot list or change a's providers (403); a's own list works (positive control)",
    reachList.status === 403 && (await a.call("/api/projects/a/providers")).status === 200,
    shown({ reach: reach.status, reachList }),
  );
  const crossModel = await post(b, "/api/agents", { name: "borrower", model: "flaky/any" });
  check(
    "an agent of b naming a's provider flaky is a 400 at model.provider naming b's providers",
    crossModel.status === 400 &&
      crossModel.body?.error?.details?.issues?.[0]?.path?.join(".") === "model.provider" &&
      crossModel.text.includes("its providers: steady"),
    shown(crossModel.body),
  );
  const keyTool = await post(a, "/api/agents", {
    name: "leaker",
    runtime: {
      allowHosts: ["127.0.0.1"],
      httpTools: [
        {
          name: "notes.add",
          description: "Adds a note",
          endpoint: `${urlOf(one)}/hook`,
          headers: { "X-Key": { secret: "FLAKY_KEY" } },
        },
      ],
    },
  });
  await put(a, "/api/projects/a/secrets/NOTES_KEY", { value: "notes-value" });
  const notesTool = await post(a, "/api/agents", {
    name: "noter",
    runtime: {
      allowHosts: ["127.0.0.1"],
      httpTools: [
        {
          name: "notes.add",
          description: "Adds a note",
          endpoint: `${urlOf(one)}/hook`,
          headers: { "X-Key": { secret: "NOTES_KEY" } },
        },
      ],
    },
  });
  check(
    "a tool naming a provider's key secret is refused (400); the same tool naming NOTES_KEY is created (201)",
    keyTool.status === 400 && notesTool.status === 201,
    shown({ keyTool: keyTool.body, notes: notesTool.status }),
  );

  // --- the cascade and the breaker ----------------------------------------------------------------
  const relay = await post(a, "/api/agents", {
    name: "relay",
    model: {
      provider: "flaky",
      name: "down",
      topP: 0.8,
      cascade: ["steady/backup"],
      breaker: { threshold: 2, cooldownMs: 600_000 },
    },
  });
  check(
    "agent relay in a: flaky/down → steady/backup (201)",
    relay.status === 201 && relay.body?.resolvedModel?.reason?.includes("flaky/down → steady/backup"),
    shown(relay.body),
  );
  const hopsOf = async (runId) =>
    ((await a.call(`/api/agents/relay/runs/${runId}`)).body?.trace ?? [])
      .filter((s) => s.name === "model_hop")
      .map((s) => s.data);
  const first = await post(a, "/api/agents/relay/messages", { content: "first" });
  const firstHops = await hopsOf(first.body?.runId);
  check(
    "the first run finishes on steady/backup after flaky's 503s (its retries included)",
    first.status === 200 &&
      first.body?.status === "completed" &&
      first.body?.reply?.content === "server-two answers as backup",
    shown(first.body),
  );
  check(
    "its trace has a model_hop step: flaky/down → steady/backup, reason error, kind server_error",
    firstHops.length === 1 &&
      firstHops[0].reason === "error" &&
      firstHops[0].kind === "server_error" &&
      firstHops[0].from?.provider === "flaky" &&
      firstHops[0].to?.model === "backup",
    shown(firstHops),
  );
  check(
    "top_p reached the provider as top_p",
    completions(one).some((c) => c.model === "down" && c.topP === 0.8) &&
      completions(two).some((c) => c.model === "backup" && c.topP === 0.8),
    shown(completions(one).slice(0, 2)),
  );
  await post(a, "/api/agents/relay/messages", { content: "second" });
  const flakyCalls = completions(one).filter((c) => c.model === "down").length;
  const third = await post(a, "/api/agents/relay/messages", { content: "third" });
  const thirdHops = await hopsOf(third.body?.runId);
  check(
    "after two failed runs the breaker is open: the third run does not call flaky at all",
    third.body?.status === "completed" && completions(one).filter((c) => c.model === "down").length === flakyCalls,
    shown({ before: flakyCalls, after: completions(one).length }),
  );
  check(
    "the third run's hop says why: breaker_open, with the failures that opened it",
    thirdHops.length === 1 &&
      thirdHops[0].reason === "breaker_open" &&
      thirdHops[0].message.includes("open after 2 consecutive failures"),
    shown(thirdHops),
  );

  // --- two agents on two providers with different keys, at once -----------------------------------
  await post(a, "/api/agents", { name: "left", model: "flaky/left-model" });
  await post(b, "/api/agents", { name: "right", model: "steady/right-model" });
  const [left, right] = await Promise.all([
    post(a, "/api/agents/left/messages", { content: "hi" }),
    post(b, "/api/agents/right/messages", { content: "hi" }),
  ]);
  const authOn = (s, model) =>
    completions(s)
      .filter((c) => c.model === model)
      .map((c) => c.authorization);
  check(
    "a's left answers through server one, b's right through server two, at the same time",
    left.body?.reply?.content === "server-one answers as left-model" &&
      right.body?.reply?.content === "server-two answers as right-model",
    shown({ left: left.body, right: right.body }),
  );
  check(
    "server one saw only a's flaky key; server two saw a's and b's steady keys, each on its own agent's calls",
    authOn(one, "left-model")[0] === `Bearer ${keys.aFlaky}` &&
      authOn(two, "right-model")[0] === `Bearer ${keys.bSteady}` &&
      authOn(two, "backup").every((h) => h === `Bearer ${keys.aSteady}`),
    shown({ left: authOn(one, "left-model"), right: authOn(two, "right-model") }),
  );
  check(
    "no server ever saw a key of another provider or project",
    completions(one).every((c) => c.authorization === `Bearer ${keys.aFlaky}`) &&
      completions(two).every((c) => c.authorization !== `Bearer ${keys.aFlaky}`),
    shown({
      one: [...new Set(completions(one).map((c) => c.authorization))],
      two: [...new Set(completions(two).map((c) => c.authorization))],
    }),
  );

  // --- per-request model override and per-session tools --------------------------------------------
  await post(a, "/api/agents", {
    name: "picker",
    model: { provider: "steady", name: "default-model", allowed: ["steady/big-model"] },
    runtime: { tools: ["clock.now", "http.fetch"], allowHosts: ["example.com"] },
  });
  const notAllowed = await post(a, "/api/agents/picker/messages", { content: "hi", model: "flaky/left-model" });
  check(
    "a model override outside the agent's allowed list is a 400 at model naming the allowed ones",
    notAllowed.status === 400 &&
      notAllowed.body?.error?.details?.issues?.[0]?.path?.[0] === "model" &&
      notAllowed.text.includes("steady/default-model, steady/big-model"),
    shown(notAllowed.body),
  );
  const allowed = await post(a, "/api/agents/picker/messages", { content: "hi", model: "steady/big-model" });
  check(
    "an allowed override is used for that request (positive control)",
    allowed.status === 200 && allowed.body?.reply?.content === "server-two answers as big-model",
    shown(allowed.body),
  );
  const v1 = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json", "x-pantheon-project": "a" },
    body: JSON.stringify({
      model: "picker",
      messages: [{ role: "user", content: "hi" }],
      model_override: "flaky/left-model",
    }),
  });
  const v1Stream = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json", "x-pantheon-project": "a" },
    body: JSON.stringify({
      model: "picker",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
      model_override: "flaky/left-model",
    }),
  });
  const v1Allowed = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json", "x-pantheon-project": "a" },
    body: JSON.stringify({
      model: "picker",
      messages: [{ role: "user", content: "hi" }],
      model_override: "steady/big-model",
    }),
  });
  const v1AllowedBody = await v1Allowed.json().catch(() => null);
  check(
    "/v1 with a model_override outside the allowed list is a 400 too, streamed or not; an allowed one answers with it",
    v1.status === 400 &&
      v1Stream.status === 400 &&
      v1Allowed.status === 200 &&
      v1AllowedBody?.choices?.[0]?.message?.content === "server-two answers as big-model",
    shown({ v1: v1.status, stream: v1Stream.status, allowed: v1AllowedBody }),
  );
  const wider = await post(a, "/api/agents/picker/messages", { content: "hi", tools: ["clock.now", "git.push"] });
  check(
    "a session narrowing to a tool the agent lacks is a 400 naming the agent's tools",
    wider.status === 400 &&
      wider.body?.error?.details?.issues?.[0]?.path?.[0] === "tools" &&
      wider.text.includes("'git.push'"),
    shown(wider.body),
  );
  const narrow = await post(a, "/api/agents/picker/messages", { content: "hi", tools: ["clock.now"] });
  const later = await post(a, "/api/agents/picker/messages", { content: "again", session: narrow.body?.sessionId });
  const runTools = async (runId) =>
    (await a.call(`/api/agents/picker/runs/${runId}`)).body?.trace?.find((s) => s.name === "run_started");
  const toolsSent = completions(two)
    .filter((c) => c.model === "default-model")
    .map((c) => c.tools.join(","));
  const bigTools = completions(two).find((c) => c.model === "big-model")?.tools ?? [];
  check(
    "narrowing to clock.now is accepted, and the session's later turn keeps it (positive control)",
    narrow.status === 200 && later.status === 200 && later.body?.sessionId === narrow.body?.sessionId,
    shown({ narrow: narrow.status, later: later.body, started: await runTools(later.body?.runId) }),
  );
  check(
    "the provider was offered only clock.now on the narrowed session's turns; both tools before (positive control)",
    toolsSent.length === 2 &&
      toolsSent.every((t) => t === "clock__now") &&
      bigTools.includes("clock__now") &&
      bigTools.includes("http__fetch"),
    shown({ toolsSent, bigTools }),
  );
} catch (error) {
  check("the check ran to its end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  for (const s of [one, two]) await new Promise((resolve) => s.server.close(resolve));
  await rm(persistTo, { recursive: true, force: true });
}
finish();

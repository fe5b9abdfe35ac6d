// Chat turn vs bare Durable Object round trip (issue 4 item 9), measured in one run on one stack:
//   (a) GET  /api/health/echo               worker → RegistryDO.echo → back (the baseline)
//   (b) POST /api/agents/:name/messages     a full chat turn with the offline model on a fresh agent
// 300 sequential requests each (alternating a, b), after 30 warm-up pairs. Target: p50(b) / p50(a) ≤ 3.
// Then a breakdown that says where a turn's time goes (always printed; it is cheap):
//   HTTP only        GET /api/health (no auth, no DO): the HTTP path through wrangler dev alone
//   agent RPC floor  GET /api/agents/:name/runs?limit=1 (agentStub's init RPC + one AgentDO method)
//   context preview  GET /api/agents/:name/context?q=… (the memory feature's context compile, no run)
//   no history       the same turn on an agent with maxHistory 0
//   trace            the DO's own trace durations of sampled runs (GET /api/agents/:name/runs/:id)
// And (c): one long session (60 turns) with the openai adapter against the zero-delay scripted
// double, interleaved with echo: its p50, and the model calls per turn the double counted on the
// response path (chat) and off it (summary folds, batched memory extraction; target ≤ 0.2).
// (d), the issue 18 figures: a turn on the openai adapter against the zero-delay double interleaved
// with echo (p50 target ≤ 2×); throughput at 20 concurrent clients (echo req/s ÷ turns/s, target ≤ 5×,
// each client its own agent); and where the CPU of a turn and of an echo goes, from a CPU profile of
// the local workerd taken through wrangler dev's inspector (bench/cpu-profile.mjs), by package or file.
// Run it with `npm run bench -- chat-turn`.
import { devBundleSourceMap, profileWhile, summarise } from "./cpu-profile.mjs";
import { client, stats, timed } from "./measure.mjs";

const SAMPLES = 300;
const WARMUP = 30;
const BREAKDOWN_SAMPLES = 100;
const BREAKDOWN_WARMUP = 10;
const TARGET_RATIO = 3;
const SESSION_TURNS = 60;
const TARGET_BACKGROUND_CALLS = 0.2;
const OPENAI_SAMPLES = 200;
const TARGET_OPENAI_RATIO = 2;
const CLIENTS = 20;
const THROUGHPUT_PHASE_MS = 4000;
const TARGET_THROUGHPUT_RATIO = 5;
const PROFILE_REQUESTS = 60;

/** Requests per second that `clients` concurrent loops of `fn(client, i)` complete in `ms`. */
async function throughput(clients, ms, fn) {
  const until = performance.now() + ms;
  let done = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < until; i++) {
        try {
          await fn(c, i);
          done += 1;
        } catch {
          failed += 1;
        }
      }
    }),
  );
  return { perSecond: done / ((performance.now() - started) / 1000), failed };
}

/**
 * (d): the openai turn against echo, one after the other; then 20 clients at once, echo phases and
 * turn phases alternating; then a CPU profile of each.
 */
async function openaiFigures(request, server, stamp, restarts) {
  const model = `bench-turn-${stamp}`;
  const make = (i) =>
    request("/api/agents", {
      method: "POST",
      json: {
        name: `bench-oa-${stamp}-${i}`,
        description: "benchmark agent",
        systemPrompt: "You are a benchmark agent. Answer briefly.",
        model: { provider: "openai", name: model },
      },
    });
  const agents = [];
  for (let i = 0; i < CLIENTS; i++) {
    await make(i);
    agents.push(`bench-oa-${stamp}-${i}`);
  }
  const turnOn = async (agent, i) => {
    const outcome = await request(`/api/agents/${agent}/messages`, {
      method: "POST",
      json: { content: `hello, this is benchmark message ${i}` },
    });
    if (outcome.status !== "completed")
      throw new Error(`openai turn ${i} ended ${outcome.status}: ${outcome.error ?? ""}`);
  };
  const echoOnce = (i) => request(`/api/health/echo?x=oa-${i}`);
  for (let i = 0; i < WARMUP; i++) {
    await timed(() => echoOnce(i), restarts);
    await timed(() => turnOn(agents[0], i), restarts);
  }
  const echoSamples = [];
  const turnSamples = [];
  for (let i = 0; i < OPENAI_SAMPLES; i++) {
    echoSamples.push(await timed(() => echoOnce(i), restarts));
    turnSamples.push(await timed(() => turnOn(agents[0], i), restarts));
  }
  const phases = { echo: [], turn: [] };
  for (let round = 0; round < 2; round++) {
    phases.echo.push(await throughput(CLIENTS, THROUGHPUT_PHASE_MS, (c, i) => echoOnce(`${c}-${i}`)));
    phases.turn.push(await throughput(CLIENTS, THROUGHPUT_PHASE_MS, (c, i) => turnOn(agents[c], i)));
  }
  const mean = (xs) => xs.reduce((sum, x) => sum + x.perSecond, 0) / xs.length;
  const failed = [...phases.echo, ...phases.turn].reduce((sum, x) => sum + x.failed, 0);
  let profile = null;
  if (server.inspectorPort) {
    try {
      const map = await devBundleSourceMap();
      const echoProfile = await profileWhile(server.inspectorPort, async () => {
        for (let i = 0; i < PROFILE_REQUESTS; i++) await echoOnce(`p-${i}`);
      });
      const turnProfile = await profileWhile(server.inspectorPort, async () => {
        for (let i = 0; i < PROFILE_REQUESTS; i++) await turnOn(agents[0], 1000 + i);
      });
      profile = { echo: await summarise(echoProfile, map), turn: await summarise(turnProfile, map) };
    } catch (error) {
      profile = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  return {
    echo: stats(echoSamples),
    turn: stats(turnSamples),
    echoPerSecond: mean(phases.echo),
    turnsPerSecond: mean(phases.turn),
    failed,
    profile,
  };
}

/**
 * (c): a long session on the openai adapter; the double counts what the agent asked it, by kind.
 * @param {(path: string, init?: object) => Promise<any>} request
 */
async function openaiSession(request, server, stamp, restarts) {
  const model = `bench-session-${stamp}`;
  const agent = `bench-chat-openai-${stamp}`;
  await request("/api/agents", {
    method: "POST",
    json: {
      name: agent,
      description: "benchmark agent",
      systemPrompt: "You are a benchmark agent. Answer briefly.",
      model: { provider: "openai", name: model },
    },
  });
  const calls = async (key) =>
    (await (await fetch(`${server.modelDouble.url}/__calls/${encodeURIComponent(key)}`)).json()).length;
  const echoSamples = [];
  const turnSamples = [];
  let session;
  for (let i = 0; i < SESSION_TURNS; i++) {
    echoSamples.push(await timed(() => request(`/api/health/echo?x=session-${i}`), restarts));
    turnSamples.push(
      await timed(async () => {
        const outcome = await request(`/api/agents/${agent}/messages`, {
          method: "POST",
          json: { content: `question ${i} of a long session`, ...(session ? { session } : {}) },
        });
        if (outcome.status !== "completed")
          throw new Error(`openai turn ${i} ended ${outcome.status}: ${outcome.error ?? ""}`);
        session = outcome.sessionId;
      }, restarts),
    );
  }
  // Background work lands after the last replies: wait until the counts stop moving (bounded).
  let last = -1;
  for (let i = 0; i < 20; i++) {
    const now = (await calls(`${model}:summary`)) + (await calls(`${model}:extraction`));
    if (now === last) break;
    last = now;
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    echo: stats(echoSamples),
    turn: stats(turnSamples),
    chat: await calls(model),
    summary: await calls(`${model}:summary`),
    extraction: await calls(`${model}:extraction`),
  };
}

async function createAgent(request, name, runtime = {}) {
  await request("/api/agents", {
    method: "POST",
    json: { name, description: "benchmark agent", systemPrompt: "You are a benchmark agent. Answer briefly.", runtime },
  });
  return name;
}

/** Mean trace duration by step name over the given runs, and the DO's own wall time per run. */
async function traceBreakdown(request, agent, runIds) {
  const byName = new Map();
  let wall = 0;
  for (const id of runIds) {
    const { run, trace } = await request(`/api/agents/${agent}/runs/${id}`);
    wall += (run.finishedAt ?? run.startedAt) - run.startedAt;
    for (const step of trace) byName.set(step.name, (byName.get(step.name) ?? 0) + step.durationMs);
  }
  return { wall: wall / runIds.length, byName: [...byName].map(([name, ms]) => ({ name, ms: ms / runIds.length })) };
}

/** @param {{ url: string, token: string } | null} server */
export async function run(server) {
  if (!server) throw new Error("chat-turn needs the local stack (run it through bench/run.mjs)");
  const request = client(server);
  const stamp = Date.now().toString(36);
  const agent = await createAgent(request, `bench-chat-${stamp}`);
  const runIds = [];

  const echoOnce = (i) => request(`/api/health/echo?x=ping-${i}`);
  const turnOnce = async (i) => {
    const outcome = await request(`/api/agents/${agent}/messages`, {
      method: "POST",
      json: { content: `hello, this is benchmark message ${i}` },
    });
    if (outcome.status !== "completed") throw new Error(`turn ${i} ended ${outcome.status}: ${outcome.error ?? ""}`);
    runIds.push(outcome.runId);
  };
  // Echo and turn alternate, so both see the same load on a shared 2-core machine.
  const restarts = { count: 0 };
  for (let i = 0; i < WARMUP; i++) {
    await timed(() => echoOnce(i), restarts);
    await timed(() => turnOnce(i), restarts);
  }
  const echoSamples = [];
  const turnSamples = [];
  for (let i = 0; i < SAMPLES; i++) {
    echoSamples.push(await timed(() => echoOnce(i), restarts));
    turnSamples.push(await timed(() => turnOnce(i), restarts));
  }
  const echo = stats(echoSamples);
  const turn = stats(turnSamples);
  const ratio = turn.p50 / echo.p50;
  // Does a turn get dearer as the agent accumulates history and memories? Each half against its own echoes.
  const half = SAMPLES / 2;
  const drift =
    stats(turnSamples.slice(half)).p50 /
    stats(echoSamples.slice(half)).p50 /
    (stats(turnSamples.slice(0, half)).p50 / stats(echoSamples.slice(0, half)).p50);
  const memoryStatus = await request(`/api/agents/${agent}/memories/status`).catch(() => null);

  // Breakdown: the floor of any agent call and a turn without history, interleaved with echo and
  // the turn itself so the four are compared under the same load.
  const bare = await createAgent(request, `bench-chat-nohist-${stamp}`, { limits: { maxHistory: 0 } });
  const kinds = {
    http: () => request("/api/health"),
    echo: (i) => request(`/api/health/echo?x=again-${i}`),
    floor: () => request(`/api/agents/${agent}/runs?limit=1`),
    context: (i) =>
      request(`/api/agents/${agent}/context?q=${encodeURIComponent(`hello, this is benchmark message ${i}`)}`),
    noHistory: (i) => request(`/api/agents/${bare}/messages`, { method: "POST", json: { content: `hello ${i}` } }),
    turn: turnOnce,
  };
  // The context preview belongs to the memory feature; without it the breakdown goes on without that row.
  const hasPreview = await kinds.context(0).then(
    () => true,
    () => false,
  );
  if (!hasPreview) delete kinds.context;
  const split = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let i = 0; i < BREAKDOWN_WARMUP + BREAKDOWN_SAMPLES; i++) {
    for (const [kind, fn] of Object.entries(kinds)) {
      const ms = await timed(() => fn(SAMPLES + i), restarts);
      if (i >= BREAKDOWN_WARMUP) split[kind].push(ms);
    }
  }
  const http = stats(split.http);
  const echoAfter = stats(split.echo);
  const floor = stats(split.floor);
  const context = hasPreview ? stats(split.context) : null;
  const noHistory = stats(split.noHistory);
  const turnAfter = stats(split.turn);
  const trace = await traceBreakdown(request, agent, runIds.slice(-50));
  const session = await openaiSession(request, server, stamp, restarts);
  const background = (session.summary + session.extraction) / SESSION_TURNS;
  const oa = await openaiFigures(request, server, stamp, restarts);
  const oaRatio = oa.turn.p50 / oa.echo.p50;
  const throughputRatio = oa.echoPerSecond / oa.turnsPerSecond;

  const ms = (name, s, key, baseline, extra = {}) => ({
    name,
    figure: s[key],
    unit: "ms",
    ...(baseline ? { baseline, ratio: s[key] / baseline } : {}),
    ...extra,
  });
  const rows = [
    ms("(a) DO echo round trip p50", echo, "p50"),
    ms("(a) DO echo round trip p95", echo, "p95"),
    ms("(b) chat turn (offline) p50", turn, "p50", echo.p50, {
      target: `<= ${TARGET_RATIO}x`,
      ok: ratio <= TARGET_RATIO,
    }),
    ms("(b) chat turn (offline) p95", turn, "p95", echo.p95),
    { name: "b/a 2nd half over 1st half", figure: drift, unit: "x" },
    ms("breakdown: HTTP only, no DO p50", http, "p50", echoAfter.p50),
    ms("breakdown: echo p50", echoAfter, "p50"),
    ms("breakdown: agent RPC floor p50", floor, "p50", echoAfter.p50),
    ...(context ? [ms("breakdown: context preview p50", context, "p50", echoAfter.p50)] : []),
    ms("breakdown: turn, no history p50", noHistory, "p50", echoAfter.p50),
    ms("breakdown: turn, 20 history p50", turnAfter, "p50", echoAfter.p50),
    { name: "breakdown: DO run wall (trace)", figure: trace.wall, unit: "ms/run" },
    ...trace.byName
      .filter((s) => s.ms > 0)
      .map((s) => ({ name: `breakdown: trace ${s.name}`, figure: s.ms, unit: "ms/run" })),
    ms("(c) chat turn (openai, long session) p50", session.turn, "p50", session.echo.p50),
    {
      name: "(c) model calls/turn on the response path",
      figure: session.chat / SESSION_TURNS,
      unit: "calls",
      target: "<= 1",
      ok: session.chat / SESSION_TURNS <= 1,
    },
    {
      name: "(c) model calls/turn in the background",
      figure: background,
      unit: "calls",
      target: `<= ${TARGET_BACKGROUND_CALLS}`,
      ok: background <= TARGET_BACKGROUND_CALLS,
    },
    ms("(d) DO echo round trip p50", oa.echo, "p50"),
    ms("(d) chat turn (openai, zero-delay double) p50", oa.turn, "p50", oa.echo.p50, {
      target: `<= ${TARGET_OPENAI_RATIO}x`,
      ok: oaRatio <= TARGET_OPENAI_RATIO,
    }),
    ms("(d) chat turn (openai, zero-delay double) p95", oa.turn, "p95", oa.echo.p95),
    { name: `(d) echo throughput, ${CLIENTS} clients`, figure: oa.echoPerSecond, unit: "req/s" },
    {
      name: `(d) turn throughput, ${CLIENTS} clients (openai)`,
      figure: oa.turnsPerSecond,
      unit: "turns/s",
      baseline: oa.echoPerSecond,
      ratio: throughputRatio,
      target: `<= ${TARGET_THROUGHPUT_RATIO}x (echo ÷ turns)`,
      ok: throughputRatio <= TARGET_THROUGHPUT_RATIO,
    },
    ...(oa.profile && !oa.profile.error
      ? [
          { name: "(d) workerd CPU per echo (profile)", figure: oa.profile.echo.busyMs / PROFILE_REQUESTS, unit: "ms" },
          {
            name: "(d) workerd CPU per turn (profile)",
            figure: oa.profile.turn.busyMs / PROFILE_REQUESTS,
            unit: "ms",
            baseline: oa.profile.echo.busyMs / PROFILE_REQUESTS,
            ratio: oa.profile.turn.busyMs / oa.profile.echo.busyMs,
          },
          ...oa.profile.turn.byOwner.slice(0, 8).map(([owner, total]) => ({
            name: `(d) turn CPU: ${owner}`,
            figure: total / PROFILE_REQUESTS,
            unit: "ms",
          })),
        ]
      : []),
  ];

  const routing = floor.p50 - echoAfter.p50;
  const runWork = turnAfter.p50 - floor.p50;
  const history = turnAfter.p50 - noHistory.p50;
  const notes = [
    `${SAMPLES} samples each, alternating echo and turn, after ${WARMUP} warm-up pairs; agent '${agent}' (history capped at maxHistory=20 messages).`,
    `breakdown (its own interleaved samples): of a turn's p50 ${turnAfter.p50.toFixed(2)} ms, ${echoAfter.p50.toFixed(2)} ms is one DO round trip (${http.p50.toFixed(2)} ms of it the HTTP path alone, GET /api/health; so the RPC itself is ~${(echoAfter.p50 - http.p50).toFixed(2)} ms), +${routing.toFixed(2)} ms reaching an AgentDO (a plain stub: one cheap method and its profile read), +${runWork.toFixed(2)} ms the run itself (run row, user message, model, trace and persist writes, reply, live state).`,
    `history (20 messages) costs ${history.toFixed(2)} ms at p50 compared with an agent whose history is empty.`,
    `inside the DO the run takes ${trace.wall.toFixed(2)} ms (run row → finish, from the trace; model ${(trace.byName.find((s) => s.name === "model_result")?.ms ?? 0).toFixed(2)} ms of it); the other ${(runWork - trace.wall).toFixed(2)} ms of the run's share is before and after it: compiling the context${context ? ` (GET …/context, the same compile as a preview, costs ~${(context.p50 - floor.p50).toFixed(2)} ms over the floor)` : ""}, memory after the turn (extraction, idle alarm), the outcome crossing RPC, live-state writes and the output gate.`,
    `trace durations use Date.now() in the DO; local workerd lets it move during compute (production clamps it to I/O), so locally they include CPU time.`,
  ];
  notes.push(
    `(c) ${SESSION_TURNS} turns in one session on the openai adapter (maxHistory 20): ${session.chat} chat calls, ${session.summary} summary folds and ${session.extraction} batched extractions after the replies.`,
  );
  notes.push(
    `(d) ${OPENAI_SAMPLES} openai turns alternating with echo after ${WARMUP} warm-up pairs; then ${CLIENTS} concurrent clients (each its own agent) for ${THROUGHPUT_PHASE_MS / 1000} s phases, echo and turns alternating twice: ${oa.echoPerSecond.toFixed(1)} echo req/s, ${oa.turnsPerSecond.toFixed(1)} turns/s${oa.failed ? `, ${oa.failed} failed requests` : ""}.`,
  );
  if (oa.profile?.error) notes.push(`(d) no CPU profile: ${oa.profile.error}`);
  else if (oa.profile) {
    const top = (summary) =>
      summary.byOwner
        .slice(0, 10)
        .map(([owner, total]) => `${owner} ${(total / PROFILE_REQUESTS).toFixed(2)}`)
        .join(", ");
    notes.push(
      `(d) where the CPU goes (workerd's sampling profiler over ${PROFILE_REQUESTS} requests each, self time in ms per request, by package or Pantheon file; the profiler itself adds some): a turn ${top(oa.profile.turn)}; an echo ${top(oa.profile.echo)}.`,
    );
  }
  if (memoryStatus) notes.push(`memory after the main phase: ${JSON.stringify(memoryStatus).slice(0, 240)}`);
  if (restarts.count)
    notes.push(
      `wrangler dev restarted the worker ${restarts.count} time(s) during the run (a source file changed); those attempts were retried, not sampled.`,
    );
  if (ratio > TARGET_RATIO)
    notes.push(
      `above target: the largest share is ${runWork >= routing ? "the run itself" : "reaching the AgentDO"}; see the breakdown rows.`,
    );
  return { title: `chat turn vs DO echo, ${SAMPLES} sequential requests each`, rows, notes };
}

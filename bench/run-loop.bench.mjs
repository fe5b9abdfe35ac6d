// Run-loop overhead per step (issue 5 item 8): what the loop itself costs per step of a 10-step run
// (model and tool time excluded), as a ratio to one bare Durable Object round trip measured in the
// same run (GET /api/health/echo). Target: ≤ 2 round trips per step.
//
// The run: an agent on provider "openai" talks to the scripted model double (bench/run.mjs starts it
// and points OPENAI_BASE_URL at it). Each run is scripted as 9 replies proposing `clock.now` and a
// final answer: 10 model steps, 9 tool calls. Two views of the same runs:
//   trace  (the target) the DO's run wall time (run row → finished) minus every model_result and
//          tool_result duration of its trace, divided by its steps. Model time here is the whole
//          model call as the DO sees it (SDK, loopback, the double), so what is left is the loop:
//          advance, gates, trace and state writes, building the next request.
//   gaps   (cross-check, finer-grained) on the double's clock: from the moment it finished sending
//          reply k to the moment request k+1 arrived, minus that step's tool time. This also holds
//          the openai SDK's parsing and request building and two loopback hops, so it is an upper bound.
// Run it with `npm run bench -- run-loop`.
import { WorkerRestarted, client, stats, timed } from "./measure.mjs";

const RUNS = 30;
const WARMUP_RUNS = 3;
const STEPS = 10;
const ECHO_SAMPLES = 210;
const ECHO_WARMUP = 30;
const TARGET_RATIO = 2;

const sum = (xs) => xs.reduce((s, x) => s + x, 0);

/** Records, on the double's own clock, when each chat-completions request arrived and when its reply was sent. */
function recordModelCalls(server) {
  const calls = [];
  const listener = (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return;
    const call = { arrived: performance.now(), sent: NaN, model: "", side: false };
    calls.push(call);
    // A second reader of the body beside the double's own: both see every chunk.
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.once("end", () => {
      try {
        const parsed = JSON.parse(body);
        call.model = parsed.model;
        // Memory extraction and summary folds, told apart by their system prompts as the double does.
        const system = parsed.messages?.[0]?.role === "system" ? String(parsed.messages[0].content) : "";
        call.side = system.includes("long-term memory") || system.includes("running summary of a conversation");
      } catch {}
    });
    res.once("finish", () => (call.sent = performance.now()));
  };
  server.on("request", listener);
  return { calls, stop: () => server.off("request", listener) };
}

/** @param {{ url: string, token: string, modelDouble?: { url: string, server: import("node:http").Server } } | null} server */
export async function run(server) {
  if (!server?.modelDouble)
    throw new Error("run-loop needs the local stack and the scripted model double (run it through bench/run.mjs)");
  const request = client(server);
  const double = server.modelDouble;
  const stamp = Date.now().toString(36);
  const modelPrefix = `bench-loop-${stamp}`;
  const agent = `bench-loop-${stamp}`;
  await request("/api/agents", {
    method: "POST",
    json: {
      name: agent,
      description: "run-loop benchmark agent",
      systemPrompt: "You are a benchmark agent.",
      model: { provider: "openai", name: `${modelPrefix}-setup` },
      runtime: { tools: ["clock.now"], limits: { maxSteps: STEPS + 2 } },
    },
  });

  // The baseline, in the same run on the same stack, interleaved with the runs so that both see
  // the same machine load (2 cores shared with wrangler, workerd and this process).
  const restarts = { count: 0 };
  for (let i = 0; i < ECHO_WARMUP; i++) await timed(() => request(`/api/health/echo?x=w${i}`), restarts);
  const echoSamples = [];
  const httpSamples = [];
  const timeEchoes = async (n) => {
    for (let i = 0; i < n; i++) {
      echoSamples.push(await timed(() => request(`/api/health/echo?x=e${echoSamples.length}`), restarts));
      httpSamples.push(await timed(() => request("/api/health"), restarts));
    }
  };

  const script = [
    ...Array.from({ length: STEPS - 1 }, () => ({ toolCalls: [{ name: "clock.now", arguments: {} }] })),
    { content: "It is now; done." },
  ];
  const discarded = [];
  const extraCalls = [];
  const extraMs = [];
  const perRunTrace = [];
  const gapSamples = [];
  const perRunWhole = [];
  const heads = [];
  const tails = [];
  const modelMs = [];
  const toolMs = [];
  const recorder = recordModelCalls(double.server);
  try {
    for (let r = 0; perRunTrace.length < RUNS; r++) {
      // A model name per run: a reply lost on the way cannot shift the next run's script.
      const model = `${modelPrefix}-${r}`;
      await timed(
        () =>
          request(`/api/agents/${agent}`, { method: "PATCH", json: { model: { provider: "openai", name: model } } }),
        restarts,
      );
      // A fresh session per run: no history to fold into a summary (which would ask the model too).
      let session;
      await timed(
        async () =>
          (session = await request(`/api/agents/${agent}/sessions`, { method: "POST", json: { title: `run ${r}` } })),
        restarts,
      );
      const scripted = await fetch(`${double.url}/__script/${encodeURIComponent(model)}`, {
        method: "POST",
        body: JSON.stringify(script),
      });
      if (!scripted.ok) throw new Error(`scripting the model double failed: ${scripted.status}`);
      const first = recorder.calls.length;
      const t0 = performance.now();
      let outcome;
      try {
        outcome = await request(`/api/agents/${agent}/messages`, {
          method: "POST",
          json: { content: `run ${r}: what time is it? check ${STEPS - 1} times`, session: session.id },
        });
      } catch (error) {
        if (!(error instanceof WorkerRestarted) || restarts.count >= 5) throw error;
        restarts.count += 1;
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      const t1 = performance.now();
      // The run's own steps; anything else on this model (memory extraction, a summary fold) is a
      // separate call, reported on its own.
      const seen = recorder.calls.slice(first).filter((c) => c.model === model);
      const calls = seen.filter((c) => !c.side);
      const extra = seen.filter((c) => c.side);
      let detail;
      await timed(async () => (detail = await request(`/api/agents/${agent}/runs/${outcome.runId}`)), restarts);
      const { run: summary, trace } = detail;
      if (outcome.status !== "completed" || summary.steps !== STEPS || calls.length !== STEPS) {
        const counts = {};
        for (const step of trace) counts[step.name] = (counts[step.name] ?? 0) + 1;
        const errors = trace.map((step) => step.data?.error).filter(Boolean);
        discarded.push(
          `run ${r}: ${outcome.status}, ${summary.steps} steps, ${calls.length} model requests at the double; trace ${JSON.stringify(counts)}${outcome.error ? `; error: ${outcome.error}` : ""}${errors.length ? `; step errors: ${errors.slice(0, 2).join(" | ")}` : ""}`,
        );
        if (discarded.length > 5) throw new Error(`too many runs went wrong:\n${discarded.join("\n")}`);
        continue;
      }
      if (r < WARMUP_RUNS) continue;
      await timeEchoes(Math.ceil(ECHO_SAMPLES / RUNS));

      const models = trace.filter((s) => s.name === "model_result").map((s) => s.durationMs);
      const tools = trace.filter((s) => s.name === "tool_result").map((s) => s.durationMs);
      const wall = summary.finishedAt - summary.startedAt;
      perRunTrace.push((wall - sum(models) - sum(tools)) / summary.steps);
      modelMs.push(sum(models) / models.length);
      toolMs.push(tools.length ? sum(tools) / tools.length : 0);
      for (let k = 0; k + 1 < calls.length; k++)
        gapSamples.push(calls[k + 1].arrived - calls[k].sent - (tools[k] ?? 0));
      const atDouble = sum(seen.filter((c) => c.sent <= t1).map((c) => c.sent - c.arrived));
      perRunWhole.push((t1 - t0 - atDouble - sum(tools)) / STEPS);
      heads.push(calls[0].arrived - t0);
      tails.push(t1 - calls[calls.length - 1].sent);
      extraCalls.push(extra.length);
      for (const c of extra) if (c.arrived < t1) extraMs.push(c.sent - calls[calls.length - 1].sent);
    }
  } finally {
    recorder.stop();
  }

  const echo = stats(echoSamples);
  const http = stats(httpSamples);
  // The echo is measured from outside, so most of it is the HTTP path; its DO RPC alone is about echo − http.
  const rpc = Math.max(echo.p50 - http.p50, 0.01);
  const traceStats = stats(perRunTrace);
  const gaps = stats(gapSamples);
  const whole = stats(perRunWhole);
  const ratio = traceStats.p50 / echo.p50;
  const ms = (name, figure, extra = {}) => ({ name, figure, unit: "ms", ...extra });
  const vsEcho = (figure) => ({ baseline: echo.p50, ratio: figure / echo.p50 });
  const rows = [
    ms("DO echo round trip p50", echo.p50),
    ms("DO echo round trip p95", echo.p95),
    ms("loop overhead/step (trace) p50", traceStats.p50, {
      ...vsEcho(traceStats.p50),
      target: `<= ${TARGET_RATIO}x`,
      ok: ratio <= TARGET_RATIO,
    }),
    ms("loop overhead/step (trace) p95", traceStats.p95, vsEcho(traceStats.p95)),
    ms("HTTP only, no DO (GET /api/health) p50", http.p50),
    ms("loop/step (trace) vs RPC alone p50", traceStats.p50, { baseline: rpc, ratio: traceStats.p50 / rpc }),
    ms("loop overhead/step (gaps) p50", gaps.p50, vsEcho(gaps.p50)),
    ms("loop overhead/step (gaps) p95", gaps.p95, vsEcho(gaps.p95)),
    ms("whole turn, non-model/step p50", whole.p50, vsEcho(whole.p50)),
    ms("model call as the DO sees it p50", stats(modelMs).p50),
    ms("clock.now tool call p50", stats(toolMs).p50),
    ms("request in → 1st model call p50", stats(heads).p50),
    ms("last model reply → response p50", stats(tails).p50),
    ...(extraMs.length ? [ms("tail: reply → post-turn model call done p50", stats(extraMs).p50)] : []),
  ];
  const notes = [
    `${perRunTrace.length} runs of ${STEPS} steps (9 × clock.now + a final answer) after ${WARMUP_RUNS} warm-up runs; echo: ${echoSamples.length} samples after ${ECHO_WARMUP}, taken between the runs.`,
    `trace: per run, (finishedAt − startedAt − Σ model_result − Σ tool_result) / steps; DO timestamps are whole milliseconds, so single runs are ±0.2 ms/step.`,
    `gaps: ${gapSamples.length} samples on the double's clock, reply k sent → request k+1 arrived, minus tool k; includes the openai SDK and two loopback hops.`,
    `the baseline is the echo as a client sees it (HTTP + one RPC), as the target defines it; "vs RPC alone" divides by echo − HTTP-only (${rpc.toFixed(2)} ms), an estimate of the DO hop by itself.`,
    `whole turn: (client wall − time spent inside the double − tools) / ${STEPS}: also pays the HTTP request, routing, context compile, memory work, and the SDK per model call.`,
  ];
  if (sum(extraCalls))
    notes.push(
      `after each turn the agent made ${(sum(extraCalls) / extraCalls.length).toFixed(1)} more model call(s) (memory extraction or a summary fold), ${extraMs.length} of them before the turn's HTTP response: they are not loop steps and are left out of every per-step figure.`,
    );
  if (restarts.count)
    notes.push(
      `wrangler dev restarted the worker ${restarts.count} time(s) during the run (a source file changed); those runs and samples were dropped.`,
    );
  for (const line of discarded) notes.push(`discarded ${line}`);
  if (ratio > TARGET_RATIO)
    notes.push(`above target by ${(traceStats.p50 - TARGET_RATIO * echo.p50).toFixed(2)} ms/step.`);
  return { title: `run-loop overhead per step, ${STEPS}-step runs, scripted model double`, rows, notes };
}

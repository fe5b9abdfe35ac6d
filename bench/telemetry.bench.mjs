// What an OTLP export costs a chat turn (issue 31: "an exported trace adds no measurable time to a
// chat turn"), and what one small image costs, measured on one local stack:
//   (a) two projects, each with one agent on the offline model: project "export" has the OTLP
//       secrets (OTEL_EXPORTER_OTLP_ENDPOINT → a loopback receiver in this process that counts the
//       spans it gets and answers 200), project "plain" has none. Turns alternate on the two agents
//       (the order flips every iteration, so neither always follows the other's background work),
//       with a DO echo in the same loop so the noise of the shared machine is visible beside the ratio.
//       Target: p50(export) ÷ p50(plain) ≤ 1.05, or within noise (its bootstrap 95% interval holds 1).
//       Afterwards the receiver must hold the `invoke_agent` span of every measured run, else the
//       figure means nothing and the module fails.
//   (b) a turn with one small image (a 2x2 PNG uploaded once: POST /api/agents/:name/images, then
//       messages with `images: [id]`) vs a text turn, same loop, for the record; the upload itself is
//       timed in the same loop too.
//   (c) for the record, what the export costs the worker in CPU at all (on the response path or after
//       it): a workerd CPU profile of 60 exported turns (until their spans arrived) and 60 plain ones,
//       in four windows ordered export, plain, plain, export.
// Run it with `npm run bench -- telemetry`, or `node bench/telemetry.bench.mjs` (starts its own stack).
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { devBundleSourceMap, profileWhile, summarise } from "./cpu-profile.mjs";
import { client, stats, timed } from "./measure.mjs";
import { png } from "../test/node/png.mjs";

const SAMPLES = Number(process.env.BENCH_TELEMETRY_SAMPLES ?? 200);
const WARMUP = 30;
const TARGET_RATIO = 1.05;
const IMAGE_SAMPLES = Number(process.env.BENCH_TELEMETRY_IMAGE_SAMPLES ?? 100);
const RESAMPLES = 2000;
const PROFILE_TURNS = 60;

/**
 * A loopback OTLP/HTTP receiver: answers 200 to every export and keeps the run ids of the
 * `invoke_agent` spans it got (one per run) and the number of spans.
 */
function startReceiver() {
  const runIds = new Set();
  let spans = 0;
  let exports = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      exports += 1;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const span of ss.spans ?? []) {
              spans += 1;
              const runId = span.attributes?.find((a) => a.key === "pantheon.run.id")?.value?.stringValue;
              if (span.name?.startsWith("invoke_agent ") && runId) runIds.add(runId);
            }
      } catch {}
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        runIds,
        counts: () => ({ spans, exports }),
        close: () => (server.closeAllConnections?.(), server.close()),
      }),
    ),
  );
}

/**
 * The ratio of medians p50(b) ÷ p50(a) and its 95% bootstrap interval (the pairs of one iteration
 * resampled together, since they saw the same load): how far the ratio moves by chance alone.
 */
function ratioInterval(a, b) {
  const median = (xs) => {
    const s = [...xs].sort((x, y) => x - y);
    return s[Math.floor((s.length - 1) / 2)];
  };
  const ratios = [];
  const ra = new Array(a.length);
  const rb = new Array(b.length);
  for (let r = 0; r < RESAMPLES; r++) {
    for (let i = 0; i < a.length; i++) {
      const k = Math.floor(Math.random() * a.length);
      ra[i] = a[k];
      rb[i] = b[k];
    }
    ratios.push(median(rb) / median(ra));
  }
  ratios.sort((x, y) => x - y);
  return {
    ratio: median(b) / median(a),
    low: ratios[Math.floor(0.025 * RESAMPLES)],
    high: ratios[Math.ceil(0.975 * RESAMPLES) - 1],
  };
}

async function until(_what, test, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await test()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** @param {{ url: string, token: string } | null} server */
export async function run(server) {
  if (!server) throw new Error("telemetry needs the local stack (run it through bench/run.mjs)");
  const stamp = randomBytes(3).toString("hex");
  const admin = client(server);
  const receiver = await startReceiver();
  try {
    const exported = `bench-otel-${stamp}`;
    const plain = `bench-plain-${stamp}`;
    for (const slug of [exported, plain]) await admin("/api/projects", { method: "POST", json: { slug } });
    await admin(`/api/projects/${exported}/secrets/OTEL_EXPORTER_OTLP_ENDPOINT`, {
      method: "PUT",
      json: { value: receiver.url },
    });
    await admin(`/api/projects/${exported}/secrets/OTEL_EXPORTER_OTLP_HEADERS`, {
      method: "PUT",
      json: { value: "x-bench=otel" },
    });
    const inExported = client({ ...server, project: exported });
    const inPlain = client({ ...server, project: plain });
    const agent = {
      name: "turns",
      description: "benchmark agent",
      systemPrompt: "You are a benchmark agent. Answer briefly.",
    };
    await inExported("/api/agents", { method: "POST", json: agent });
    await inPlain("/api/agents", { method: "POST", json: agent });

    const restarts = { count: 0 };
    const exportedRuns = [];
    const turnOn = (request, runs) => async (i) => {
      const outcome = await request("/api/agents/turns/messages", {
        method: "POST",
        json: { content: `hello, this is benchmark message ${i}` },
      });
      if (outcome.status !== "completed") throw new Error(`turn ${i} ended ${outcome.status}: ${outcome.error ?? ""}`);
      runs?.push(outcome.runId);
    };
    const kinds = {
      echo: (i) => admin(`/api/health/echo?x=otel-${i}`),
      exported: turnOn(inExported, exportedRuns),
      plain: turnOn(inPlain),
    };
    const samples = { echo: [], exported: [], plain: [] };
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      // echo, then the two turns in an order that flips every iteration.
      const order = i % 2 ? ["echo", "plain", "exported"] : ["echo", "exported", "plain"];
      for (const kind of order) {
        const ms = await timed(() => kinds[kind](i), restarts);
        if (i >= WARMUP) samples[kind].push(ms);
      }
    }
    const measuredRuns = exportedRuns.slice(WARMUP);
    // The export runs after each reply: give the last ones time to arrive, then count.
    await until(
      "every exported run at the receiver",
      () => exportedRuns.every((id) => receiver.runIds.has(id)),
      60_000,
    );
    const arrived = measuredRuns.filter((id) => receiver.runIds.has(id)).length;
    const counts = receiver.counts();

    // (c) what the export costs the worker in CPU at all (after the reply or not): workerd's sampling
    // profile over PROFILE_TURNS turns of each agent, the exported ones until their spans arrived.
    let cpu = null;
    if (server.inspectorPort) {
      try {
        const map = await devBundleSourceMap();
        // Four windows in the order export, plain, plain, export (so background work left over from
        // earlier phases falls on both alike), each after a quiet second and ending half a second
        // after its last turn (the exported ones once their spans are at the receiver).
        const profiles = { exported: [], plain: [] };
        for (const [w, kind] of ["exported", "plain", "plain", "exported"].entries()) {
          await new Promise((r) => setTimeout(r, 1000));
          const runs = [];
          profiles[kind].push(
            await profileWhile(server.inspectorPort, async () => {
              for (let i = 0; i < PROFILE_TURNS / 2; i++)
                await turnOn(kind === "exported" ? inExported : inPlain, runs)(10_000 + w * 1000 + i);
              if (kind === "exported")
                await until(
                  "the profiled runs at the receiver",
                  () => runs.every((id) => receiver.runIds.has(id)),
                  60_000,
                );
              await new Promise((r) => setTimeout(r, 500));
            }),
          );
        }
        const merged = async (list) => {
          const parts = await Promise.all(list.map((profile) => summarise(profile, map)));
          const byOwner = new Map();
          for (const part of parts)
            for (const [owner, ms] of part.byOwner) byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
          return {
            busyMs: parts.reduce((sum, part) => sum + part.busyMs, 0),
            byOwner: [...byOwner].sort((a, b) => b[1] - a[1]),
          };
        };
        const e = await merged(profiles.exported);
        const p = await merged(profiles.plain);
        const telemetryMs = e.byOwner.filter(([owner]) => /telemetry/.test(owner)).reduce((sum, [, ms]) => sum + ms, 0);
        // Where the difference goes: each owner's CPU with the export less without it.
        const plainBy = new Map(p.byOwner);
        const extra = e.byOwner
          .map(([owner, ms]) => [owner, ms - (plainBy.get(owner) ?? 0)])
          .sort((x, y) => y[1] - x[1]);
        cpu = {
          exported: e.busyMs / PROFILE_TURNS,
          plain: p.busyMs / PROFILE_TURNS,
          telemetry: telemetryMs / PROFILE_TURNS,
          top: extra.slice(0, 8),
        };
      } catch (error) {
        cpu = { error: error instanceof Error ? error.message : String(error) };
      }
    }

    // (b) one small image vs text, both in the plain project (nothing exported), same loop.
    const imageAgent = { ...agent, name: "eye" };
    const textAgent = { ...agent, name: "text" };
    await inPlain("/api/agents", { method: "POST", json: imageAgent });
    await inPlain("/api/agents", { method: "POST", json: textAgent });
    const picture = png(2, 2);
    const upload = async () => {
      const res = await fetch(`${server.url}/api/agents/eye/images`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.token}`, "x-pantheon-project": plain, "content-type": "image/png" },
        body: picture,
      });
      if (res.status !== 201)
        throw new Error(`image upload answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return (await res.json()).id;
    };
    const imageId = await upload();
    let imageReply = "";
    const imageKinds = {
      echo: (i) => admin(`/api/health/echo?x=img-${i}`),
      text: async (i) => {
        const outcome = await inPlain("/api/agents/text/messages", {
          method: "POST",
          json: { content: `what is in this picture? ${i}` },
        });
        if (outcome.status !== "completed") throw new Error(`text turn ${i} ended ${outcome.status}`);
      },
      image: async (i) => {
        const outcome = await inPlain("/api/agents/eye/messages", {
          method: "POST",
          json: { content: `what is in this picture? ${i}`, images: [imageId] },
        });
        if (outcome.status !== "completed")
          throw new Error(`image turn ${i} ended ${outcome.status}: ${outcome.error ?? ""}`);
        imageReply = outcome.reply?.content ?? imageReply;
      },
      upload,
    };
    const imageSamples = { echo: [], text: [], image: [], upload: [] };
    for (let i = 0; i < WARMUP + IMAGE_SAMPLES; i++) {
      const order = i % 2 ? ["echo", "upload", "image", "text"] : ["echo", "upload", "text", "image"];
      for (const kind of order) {
        const ms = await timed(() => imageKinds[kind](i), restarts);
        if (i >= WARMUP) imageSamples[kind].push(ms);
      }
    }

    const echo = stats(samples.echo);
    const ex = stats(samples.exported);
    const pl = stats(samples.plain);
    const cost = ratioInterval(samples.plain, samples.exported);
    const echoHalves = stats(samples.echo.slice(SAMPLES / 2)).p50 / stats(samples.echo.slice(0, SAMPLES / 2)).p50;
    const withinNoise = cost.low <= 1 && cost.high >= 1;
    const img = {
      echo: stats(imageSamples.echo),
      text: stats(imageSamples.text),
      image: stats(imageSamples.image),
      upload: stats(imageSamples.upload),
    };
    const imageCost = ratioInterval(imageSamples.text, imageSamples.image);

    const rows = [
      { name: "(a) DO echo round trip p50", figure: echo.p50, unit: "ms" },
      { name: "(a) DO echo round trip p95", figure: echo.p95, unit: "ms" },
      { name: "(a) echo p50, 2nd half ÷ 1st half (noise)", figure: echoHalves, unit: "x" },
      { name: "(a) turn, no export p50", figure: pl.p50, unit: "ms", baseline: echo.p50, ratio: pl.p50 / echo.p50 },
      { name: "(a) turn, no export p95", figure: pl.p95, unit: "ms", baseline: echo.p95, ratio: pl.p95 / echo.p95 },
      {
        name: "(a) turn, OTLP export p50",
        figure: ex.p50,
        unit: "ms",
        baseline: pl.p50,
        ratio: cost.ratio,
        target: `<= ${TARGET_RATIO}x or within noise`,
        ok: cost.ratio <= TARGET_RATIO || withinNoise,
      },
      { name: "(a) turn, OTLP export p95", figure: ex.p95, unit: "ms", baseline: pl.p95, ratio: ex.p95 / pl.p95 },
      {
        name: "(a) export ÷ no export p50, 95% interval",
        figure: `${cost.low.toFixed(3)}–${cost.high.toFixed(3)}`,
        unit: "x",
      },
      {
        name: "(a) measured runs whose spans arrived",
        figure: arrived,
        unit: "runs",
        baseline: measuredRuns.length,
        target: `>= ${measuredRuns.length}`,
        ok: arrived >= measuredRuns.length,
      },
      ...(cpu && !cpu.error
        ? [
            { name: "(c) workerd CPU per turn, no export (profile)", figure: cpu.plain, unit: "ms" },
            {
              name: "(c) workerd CPU per turn, OTLP export (profile)",
              figure: cpu.exported,
              unit: "ms",
              baseline: cpu.plain,
              ratio: cpu.exported / cpu.plain,
            },
            { name: "(c) of it in telemetry/ files (self time)", figure: cpu.telemetry, unit: "ms" },
          ]
        : []),
      { name: "(b) DO echo round trip p50", figure: img.echo.p50, unit: "ms" },
      {
        name: "(b) text turn p50",
        figure: img.text.p50,
        unit: "ms",
        baseline: img.echo.p50,
        ratio: img.text.p50 / img.echo.p50,
      },
      {
        name: "(b) turn with one 2x2 PNG p50",
        figure: img.image.p50,
        unit: "ms",
        baseline: img.text.p50,
        ratio: imageCost.ratio,
      },
      {
        name: "(b) turn with one 2x2 PNG p95",
        figure: img.image.p95,
        unit: "ms",
        baseline: img.text.p95,
        ratio: img.image.p95 / img.text.p95,
      },
      {
        name: "(b) image ÷ text p50, 95% interval",
        figure: `${imageCost.low.toFixed(3)}–${imageCost.high.toFixed(3)}`,
        unit: "x",
      },
      {
        name: "(b) image upload (POST …/images) p50",
        figure: img.upload.p50,
        unit: "ms",
        baseline: img.echo.p50,
        ratio: img.upload.p50 / img.echo.p50,
      },
    ];
    const notes = [
      `(a) ${SAMPLES} samples of each after ${WARMUP} warm-up iterations; each iteration an echo, then the two turns (order flipped every iteration). Projects '${exported}' (OTLP to ${receiver.url}) and '${plain}' (none).`,
      `(a) the receiver got ${counts.exports} exports holding ${counts.spans} spans; ${arrived} of ${measuredRuns.length} measured runs (and ${exportedRuns.filter((id) => receiver.runIds.has(id)).length} of ${exportedRuns.length} with warm-up) arrived as invoke_agent spans.`,
      `(a) the interval is a bootstrap (${RESAMPLES} resamples of the iterations) of p50(export) ÷ p50(no export): what the ratio does by chance on this machine; "within noise" when it holds 1.`,
      `(b) ${IMAGE_SAMPLES} samples each after ${WARMUP} warm-up iterations, agents on the offline model (it answers that it cannot see, naming what it got); the image was uploaded once and referenced by id; the upload row re-sends the same PNG each iteration (content-addressed: same id). Last image reply: ${JSON.stringify(String(imageReply).slice(0, 160))}.`,
    ];
    if (cpu?.error) notes.push(`(c) no CPU profile: ${cpu.error}`);
    else if (cpu)
      notes.push(
        `(c) ${PROFILE_TURNS} turns of each under workerd's sampling profiler, in four windows (export, plain, plain, export; the exported ones until their spans arrived, so the send is counted); CPU of everything the worker ran in that window, self time per turn; what the export adds, by owner (with export less without): ${cpu.top.map(([owner, ms]) => `${owner} ${(ms / PROFILE_TURNS).toFixed(2)}`).join(", ")}.`,
      );
    if (restarts.count)
      notes.push(
        `wrangler dev restarted the worker ${restarts.count} time(s); those attempts were retried, not sampled.`,
      );
    if (arrived < measuredRuns.length) {
      throw new Error(
        `the OTLP receiver got the spans of only ${arrived} of ${measuredRuns.length} measured runs: the export figure means nothing. ${notes.join(" ")}`,
      );
    }
    return { title: `OTLP export and image turns, each against a baseline in the same loop`, rows, notes };
  } finally {
    receiver.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { startBenchServer } = await import("./run.mjs");
  const stack = await startBenchServer();
  try {
    const result = await run({
      url: stack.url,
      token: stack.token,
      modelDouble: stack.modelDouble,
      inspectorPort: stack.inspectorPort,
    });
    for (const row of result.rows)
      console.log(
        `${row.name.padEnd(48)} ${typeof row.figure === "number" ? row.figure.toFixed(2) : row.figure} ${row.unit}${row.ratio !== undefined ? `  ratio ${row.ratio.toFixed(3)}` : ""}${row.ok !== undefined ? `  ${row.ok ? "ok" : "MISSED"}` : ""}`,
      );
    for (const note of result.notes) console.log(`· ${note}`);
  } finally {
    await stack.stop();
  }
}

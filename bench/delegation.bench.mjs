// Delegation over the bus (issue 8 item 7). Two figures, measured against one local stack:
//   round trip  main asks `echo` with the offline model's `/ask echo ping`; the figure is main's run
//               wall time from the DO's own clock (run row start → finish): the request handed
//               straight to echo's object (the queue only when that fails), echo's own connection
//               check, echo's run, the answer handed back the same way. Offline model steps cost well under a millisecond, so this is the bus.
//               Baseline: one bare Durable Object round trip in the same run (GET /api/health/echo,
//               worker → RegistryDO → back, timed by the client, so it also holds the HTTP hop).
//   throughput  10, 50 and 200 agents in a ring, each asking the next one at the same time, for several
//               rounds; messages (requests + answers) per second of wall time until every run has
//               finished. With no object every message passes through, it should grow with the agents.
// Run it with `npm run bench -- delegation`, or `node bench/delegation.bench.mjs` (starts its own stack).
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { client, stats } from "./measure.mjs";

const ROUND_TRIPS = 40;
const WARMUP = 5;
const ECHO_SAMPLES = 200;
const RINGS = (process.env.BENCH_DELEGATION_RINGS ?? "10,50,200").split(",").map(Number);
const ROUNDS = 4;

async function settled(request, agent, runId) {
  for (let i = 0; i < 20_000; i++) {
    const { run } = await request(`/api/agents/${agent}/runs/${runId}`);
    if (["completed", "failed", "cancelled"].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`run ${runId} of ${agent} did not finish`);
}

async function roundTrips(server) {
  const project = `bench-rt-${randomBytes(3).toString("hex")}`;
  await client(server)("/api/projects", { method: "POST", json: { slug: project } });
  const request = client({ ...server, project });
  await request("/api/agents", { method: "POST", json: { name: "echo", systemPrompt: "Pong." } });
  await request("/api/agents", { method: "POST", json: { name: "main" } });
  await request("/api/agents/main/connections", { method: "PUT", json: { connections: ["echo"] } });
  const samples = [];
  for (let i = 0; i < WARMUP + ROUND_TRIPS; i++) {
    const started = await request("/api/agents/main/messages", { method: "POST", json: { content: "/ask echo ping" } });
    const run = await settled(request, "main", started.runId);
    if (run.status !== "completed") throw new Error(`delegation run ${run.id} ${run.status}: ${run.error}`);
    if (i >= WARMUP) samples.push(run.finishedAt - run.startedAt);
  }
  const echo = [];
  for (let i = 0; i < ECHO_SAMPLES; i++) {
    const t0 = performance.now();
    await request(`/api/health/echo?x=${i}`);
    echo.push(performance.now() - t0);
  }
  return { bus: stats(samples), rpc: stats(echo) };
}

async function throughput(server, RING) {
  const project = `bench-ring-${RING}-${randomBytes(3).toString("hex")}`;
  await client(server)("/api/projects", { method: "POST", json: { slug: project } });
  const request = client({ ...server, project });
  const names = Array.from({ length: RING }, (_, i) => `ring-${i}`);
  for (const name of names) await request("/api/agents", { method: "POST", json: { name, systemPrompt: `I am ${name}.` } });
  for (const [i, name] of names.entries()) await request(`/api/agents/${name}/connections`, { method: "PUT", json: { connections: [names[(i + 1) % RING]] } });
  const t0 = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const started = await Promise.all(names.map((name, i) => request(`/api/agents/${name}/messages`, { method: "POST", json: { content: `/ask ${names[(i + 1) % RING]} round ${round}` } })));
    const runs = await Promise.all(started.map((s, i) => settled(request, names[i], s.runId)));
    const failed = runs.filter((r) => r.status !== "completed");
    if (failed.length) throw new Error(`${failed.length} ring runs failed, e.g. ${failed[0].error}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const messages = RING * ROUNDS * 2;
  return { messages, seconds, perSecond: messages / seconds };
}

/** @param {{ url: string, token: string } | null} server */
export async function run(server) {
  if (!server) return { title: "Delegation over the bus (direct, Queues as fallback)", rows: [], notes: ["no server: wrangler dev did not start"] };
  const rt = await roundTrips(server);
  const tps = [];
  for (const ring of RINGS) tps.push({ ring, ...(await throughput(server, ring)) });
  const r = (x) => Math.round(x * 10) / 10;
  return {
    title: "Delegation over the bus (direct, Queues as fallback)",
    rows: [
      { name: "delegation round trip p50 (bus)", figure: r(rt.bus.p50), unit: "ms", baseline: r(rt.rpc.p50), ratio: r(rt.bus.p50 / rt.rpc.p50), target: "<= 3x", ok: rt.bus.p50 / rt.rpc.p50 <= 3 },
      { name: "delegation round trip p95 (bus)", figure: r(rt.bus.p95), unit: "ms", baseline: r(rt.rpc.p95), ratio: r(rt.bus.p95 / rt.rpc.p95) },
      { name: "direct DO RPC round trip p50", figure: r(rt.rpc.p50), unit: "ms" },
      ...tps.map((tp) => ({ name: `throughput, ${tp.ring} agents asking each other`, figure: r(tp.perSecond), unit: "msg/s" })),
    ],
    notes: [
      `round trip: ${ROUND_TRIPS} delegations (after ${WARMUP} warm-up), baseline ${ECHO_SAMPLES} GET /api/health/echo`,
      ...tps.map((tp) => `throughput: ${tp.messages} messages (requests + answers) in ${r(tp.seconds)} s, ${ROUNDS} rounds of ${tp.ring} concurrent asks`),
      "messages go straight to the target Durable Object and through the local Miniflare queue (wrangler dev) only when that fails",
    ],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const token = `bench-${randomBytes(8).toString("hex")}`;
  const stack = await startDevServer({ port: await freePort(), token });
  try {
    const result = await run({ url: stack.url, token });
    console.log(result.title);
    console.table(result.rows);
    for (const note of result.notes) console.log(`- ${note}`);
  } finally {
    await stack.stop();
  }
}

// Delegation over the bus (issue 8 item 7). Two figures, measured against one local stack:
//   round trip  main asks `echo` with the offline model's `/ask echo ping`; the figure is main's run
//               wall time from the DO's own clock (run row start → finish): the request handed
//               straight to echo's object (the queue only when that fails), echo's own connection
//               check, echo's run, the answer handed back the same way. Offline model steps cost well under a millisecond, so this is the bus.
//               Baseline: one bare Durable Object round trip in the same run (GET /api/health/echo,
//               worker → RegistryDO → back, timed by the client, so it also holds the HTTP hop).
//   throughput  10, 50 and 200 agents in a ring, each asking the next one at the same time, for several
//               rounds; messages (requests + answers) per second of wall time until every run has
//               finished. Beside it, what says whether anything shared bounds it: the CPU the workerd
//               running the Durable Objects used per message and in cores (/proc; locally every object
//               shares that one process, so at 1.0 core the figure is bounded by the machine), msg per
//               CPU-second (flat or growing when nothing shared grows with the agents), the registry's
//               calls per message (V8 call counts) and its share of the CPU (a sampling profile), each
//               from one more round after the timed ones (bench/workerd-probe.mjs).
// Run it with `npm run bench -- delegation`, or `node bench/delegation.bench.mjs` (starts its own stack).
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../scripts/dev-server.mjs";
import { client, stats } from "./measure.mjs";
import { attributeProfile, cpuSnapshot, findWorkerd, inspect } from "./workerd-probe.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

const ROUND_TRIPS = 40;
const WARMUP = 5;
const ECHO_SAMPLES = 200;
const RINGS = (process.env.BENCH_DELEGATION_RINGS ?? "10,50,200").split(",").map(Number);
/** Rounds of a ring: at least 4, and at least 400 messages, so a small ring is not timed over a second. */
const roundsOf = (ring) => Math.max(4, Math.ceil(400 / (2 * ring)));

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

/** One round of the ring: every agent asks the next one at once; resolves when every run has finished. */
async function round(request, names, n) {
  const started = await Promise.all(
    names.map((name, i) =>
      request(`/api/agents/${name}/messages`, {
        method: "POST",
        json: { content: `/ask ${names[(i + 1) % names.length]} round ${n}` },
      }),
    ),
  );
  // POST …/messages answers when its turn has settled; a delegating turn settles once the answer came.
  const runs = await Promise.all(
    started.map((s, i) =>
      ["completed", "failed", "cancelled"].includes(s.status) ? s : settled(request, names[i], s.runId),
    ),
  );
  const failed = runs.filter((r) => r.status !== "completed");
  if (failed.length) throw new Error(`${failed.length} ring runs failed, e.g. ${failed[0].error}`);
}

/** Where the worker's CPU goes, by the code that was running (a sample counts once per group it is under). */
/** The registry's methods another object or the worker calls (RPC); the bus's are busRecord and busAdmit. */
const registryMethods = [
  "busRecord",
  "busAdmit",
  "projectInfo",
  "verifyTokenHash",
  "getAgent",
  "listAgents",
  "spawnChild",
];

const profileGroups = {
  registry: ["durable-objects/registry/"],
  "bus (agent side)": ["durable-objects/agent/bus/", "core/bus/"],
  "run loop": ["durable-objects/agent/runs/", "core/run/"],
  "HTTP API": ["workers/"],
  // drizzle-orm's own source maps name its files node_modules/src/… once bundled.
  drizzle: ["node_modules/drizzle-orm/", "node_modules/src/"],
  "agents SDK": ["node_modules/agents/"],
};

/** Microseconds that some task of the machine waited for a CPU so far (Linux PSI), or null. */
function cpuStall() {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync("/proc/pressure/cpu", "utf8"))[1]);
  } catch {
    return null;
  }
}

async function throughput(server, RING, probe, session) {
  const project = `bench-ring-${RING}-${randomBytes(3).toString("hex")}`;
  await client(server)("/api/projects", { method: "POST", json: { slug: project } });
  const request = client({ ...server, project });
  const names = Array.from({ length: RING }, (_, i) => `ring-${i}`);
  for (const name of names)
    await request("/api/agents", { method: "POST", json: { name, systemPrompt: `I am ${name}.` } });
  for (const [i, name] of names.entries())
    await request(`/api/agents/${name}/connections`, { method: "PUT", json: { connections: [names[(i + 1) % RING]] } });
  await round(request, names, -1); // every object started and migrated: not measured
  const ROUNDS = roundsOf(RING);
  const messages = RING * ROUNDS * 2;
  const before = probe ? cpuSnapshot(probe) : null;
  const stall0 = cpuStall();
  const client0 = process.cpuUsage();
  const t0 = performance.now();
  for (let n = 0; n < ROUNDS; n++) await round(request, names, n);
  const seconds = (performance.now() - t0) / 1000;
  const clientCpu = process.cpuUsage(client0);
  const stall = cpuStall();
  const result = {
    ring: RING,
    rounds: ROUNDS,
    messages,
    seconds,
    perSecond: messages / seconds,
    clientCpuMs: (clientCpu.user + clientCpu.system) / 1000,
    ...(stall !== null && stall0 !== null ? { cpuWaited: (stall - stall0) / 1e6 / seconds } : {}),
  };
  if (!before) return result;
  const used = cpuSnapshot(probe).since(before);
  Object.assign(result, {
    workerCpuMs: used.worker,
    proxyCpuMs: used.proxy,
    wranglerCpuMs: used.wrangler,
    utilisation: used.worker / used.wallMs,
  });
  if (!session) return result;
  // Two more rounds, not timed: one under the sampling profiler, one counting calls (which slows the worker).
  const profile = await session.profile(() => round(request, names, ROUNDS));
  result.profile = attributeProfile(profile, root, profileGroups);
  // Open it in Chrome DevTools (Performance → Load profile) to see the rest.
  if (process.env.BENCH_DELEGATION_PROFILE_DIR)
    writeFileSync(
      join(process.env.BENCH_DELEGATION_PROFILE_DIR, `delegation-ring-${RING}.cpuprofile`),
      JSON.stringify(profile),
    );
  result.registryCalls = await session
    .callCounts(root, "durable-objects/registry/", registryMethods, () => round(request, names, ROUNDS + 1))
    .catch((error) => void (result.probeError = error.message));
  return result;
}

/** @param {{ url: string, token: string } | null} server */
export async function run(server) {
  if (!server)
    return {
      title: "Delegation over the bus (direct, Queues as fallback)",
      rows: [],
      notes: ["no server: wrangler dev did not start"],
    };
  const probe = findWorkerd(server.url);
  const rt = await roundTrips(server);
  const tps = [];
  // One inspector session for the whole run: the worker announces its execution context to the first only.
  const session = probe?.inspector ? await inspect(probe.inspector).catch(() => null) : null;
  try {
    for (const ring of RINGS) tps.push(await throughput(server, ring, probe, session));
  } finally {
    session?.close();
  }
  const r = (x) => Math.round(x * 10) / 10;
  const r2 = (x) => Math.round(x * 100) / 100;
  const pct = (x) => `${Math.round(x * 1000) / 10}%`;
  const perMessage = (tp, name) => (tp.registryCalls?.[name] ?? 0) / (tp.ring * 2);
  const rows = [
    {
      name: "delegation round trip p50 (bus)",
      figure: r(rt.bus.p50),
      unit: "ms",
      baseline: r(rt.rpc.p50),
      ratio: r(rt.bus.p50 / rt.rpc.p50),
      target: "<= 3x",
      ok: rt.bus.p50 / rt.rpc.p50 <= 3,
    },
    {
      name: "delegation round trip p95 (bus)",
      figure: r(rt.bus.p95),
      unit: "ms",
      baseline: r(rt.rpc.p95),
      ratio: r(rt.bus.p95 / rt.rpc.p95),
    },
    { name: "direct DO RPC round trip p50", figure: r(rt.rpc.p50), unit: "ms" },
  ];
  for (const tp of tps) {
    rows.push({ name: `throughput, ${tp.ring} agents asking each other`, figure: r(tp.perSecond), unit: "msg/s" });
    if (tp.workerCpuMs === undefined) continue;
    rows.push(
      { name: `worker CPU per message, ${tp.ring} agents`, figure: r2(tp.workerCpuMs / tp.messages), unit: "ms" },
      { name: `worker CPU use, ${tp.ring} agents (1.0 = one core)`, figure: r2(tp.utilisation), unit: "cores" },
      {
        name: `msg per worker CPU-second, ${tp.ring} agents`,
        figure: r(tp.messages / (tp.workerCpuMs / 1000)),
        unit: "msg/CPU-s",
      },
    );
    if (tp.registryCalls)
      rows.push({
        name: `registry calls per message (bus log, never awaited), ${tp.ring} agents`,
        figure: r2(perMessage(tp, "busRecord") + perMessage(tp, "busAdmit")),
        unit: "calls",
      });
    if (tp.profile) {
      rows.push(
        { name: `worker thread busy (profile), ${tp.ring} agents`, figure: r((1 - tp.profile.idle) * 100), unit: "%" },
        {
          name: `registry share of worker CPU, ${tp.ring} agents`,
          figure: r(tp.profile.groups.registry * 100),
          unit: "%",
        },
      );
    }
  }
  const notes = [
    `round trip: ${ROUND_TRIPS} delegations (after ${WARMUP} warm-up), baseline ${ECHO_SAMPLES} GET /api/health/echo`,
    ...tps.map(
      (tp) =>
        `throughput: ${tp.messages} messages (requests + answers) in ${r(tp.seconds)} s, ${tp.rounds} rounds of ${tp.ring} concurrent asks (after one round that starts every agent)`,
    ),
    "messages go straight to the target Durable Object and through the local Miniflare queue (wrangler dev) only when that fails",
  ];
  if (!probe)
    notes.push(
      "worker CPU not measured: the workerd behind the server was not found in /proc (not Linux, or not a local wrangler dev)",
    );
  for (const tp of tps) {
    if (tp.workerCpuMs === undefined) continue;
    notes.push(
      `${tp.ring} agents: worker (workerd running the Durable Objects) ${r(tp.workerCpuMs / 1000)} CPU-s in ${r(tp.seconds)} s wall = ${r2(tp.utilisation)} cores; ` +
        `wrangler's proxy workerd ${r2(tp.proxyCpuMs / tp.messages)} ms/msg, wrangler ${r2(tp.wranglerCpuMs / tp.messages)} ms/msg, this client ${r2(tp.clientCpuMs / tp.messages)} ms/msg` +
        (tp.cpuWaited !== undefined
          ? `; some task of the machine waited for a CPU ${pct(tp.cpuWaited)} of the time (/proc/pressure/cpu: other work shares the 2 cores)`
          : ""),
    );
    if (tp.profile) {
      const groups = Object.entries(tp.profile.groups)
        .map(([g, share]) => `${g} ${pct(share)}`)
        .join(", ");
      notes.push(
        `${tp.ring} agents, profile of one more round (${tp.profile.samples} samples, thread idle ${pct(tp.profile.idle)}): ${groups}; most self time: ${tp.profile.topFiles
          .slice(0, 5)
          .map((f) => `${f.path} ${pct(f.share)}`)
          .join(", ")}`,
      );
    }
    if (tp.probeError) notes.push(`${tp.ring} agents: no call counts (${tp.probeError})`);
    if (tp.registryCalls) {
      const calls = Object.entries(tp.registryCalls)
        .sort((a, b) => b[1] - a[1])
        .map(([name, n]) => `${name} ${r2(n / (tp.ring * 2))}`)
        .join(", ");
      notes.push(
        `${tp.ring} agents, registry calls per message in one more round (V8 call counts): ${calls || "none"} (projectInfo is the HTTP API's project check of this bench's own requests, not the bus)`,
      );
    }
  }
  return { title: "Delegation over the bus (direct, Queues as fallback)", rows, notes };
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

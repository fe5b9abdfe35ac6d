// Fan-outs and workflows (issue 29) against the direct asks they replace, on one local stack with the
// offline model (its steps cost well under a millisecond, so the figures are the orchestration's).
//   fan-out of three   POST /api/agents/main/fanouts (policy all) to three judges; wall time from the
//                      agent's own clock (the fan-out's createdAt → decidedAt). Baseline: the same
//                      three questions as three direct asks sent at once (`/ask judge-x …` turns of
//                      main), first start → last finish from the runs' own records.
//   four-step workflow three asks and a majority join (POST /api/agents/main/workflows); wall time
//                      createdAt → updatedAt at completion. Baseline: the same three direct asks, the
//                      majority then counted by the caller.
//   model calls        `model_called` steps in every run involved (the asker's and the judges'): a
//                      fan-out or a workflow asks without a model step of its own.
// Run it with `npm run bench -- orchestration`.
import { randomBytes } from "node:crypto";
import { client, stats } from "./measure.mjs";

const SAMPLES = 12;
const WARMUP = 2;
const judges = ["judge-a", "judge-b", "judge-c"];
const final = ["completed", "failed", "cancelled"];

async function until(probe) {
  for (let i = 0; i < 20_000; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error("gave up waiting");
}

/** `model_called` steps of the runs of `agent` not counted before (`seen`). */
async function modelCalls(request, agent, seen) {
  const { runs } = await request(`/api/agents/${agent}/runs?limit=200`);
  let calls = 0;
  for (const run of runs) {
    if (seen.has(run.id) || !final.includes(run.status)) continue;
    seen.add(run.id);
    const detail = await request(`/api/agents/${agent}/runs/${run.id}`);
    calls += detail.trace.filter((t) => t.name === "model_called").length;
  }
  return calls;
}

async function allCalls(request, seen) {
  let n = 0;
  for (const agent of ["main", ...judges]) n += await modelCalls(request, agent, seen);
  return n;
}

/** The three questions as direct asks of main, sent at once: first start → last finish. */
async function directAsks(request, n) {
  const started = await Promise.all(
    judges.map((j) =>
      request("/api/agents/main/messages", { method: "POST", json: { content: `/ask ${j} Approve release ${n}?` } }),
    ),
  );
  const runs = await Promise.all(
    started.map((s) =>
      until(async () => {
        const { run } = await request(`/api/agents/main/runs/${s.runId}`);
        return final.includes(run.status) ? run : null;
      }),
    ),
  );
  if (runs.some((r) => r.status !== "completed"))
    throw new Error(`a direct ask ${runs.find((r) => r.status !== "completed").status}`);
  return Math.max(...runs.map((r) => r.finishedAt)) - Math.min(...runs.map((r) => r.startedAt));
}

async function fanOut(request, n) {
  const { id } = await request("/api/agents/main/fanouts", {
    method: "POST",
    json: { targets: judges, question: `Approve release ${n}?`, policy: "all" },
  });
  const view = await until(async () => {
    const v = await request(`/api/agents/main/fanouts/${id}`);
    return v.status === "decided" ? v : null;
  });
  if (!view.result.ok) throw new Error(`fan-out ${view.result.outcome}: ${view.result.answer}`);
  return view.decidedAt - view.createdAt;
}

const workflow = {
  name: "verdict",
  steps: [
    ...judges.map((j, i) => ({ id: `s${i}`, kind: "ask", agent: j, input: "Approve release {{input}}?" })),
    { id: "vote", kind: "join", policy: "majority", tie: "first-listed", after: ["s0", "s1", "s2"] },
  ],
};

async function workflowRun(request, n) {
  const { id } = await request("/api/agents/main/workflows", { method: "POST", json: { workflow, input: String(n) } });
  const view = await until(async () => {
    const v = await request(`/api/agents/main/workflows/${id}`);
    return v.status !== "running" ? v : null;
  });
  if (view.status !== "completed") throw new Error(`workflow ${view.status}: ${view.error}`);
  return view.updatedAt - view.createdAt;
}

/** Wall time and model calls per run of `once`, after a warm-up. */
async function measure(request, once) {
  const seen = new Set();
  for (let i = 0; i < WARMUP; i++) await once(i);
  await allCalls(request, seen);
  const walls = [];
  for (let i = 0; i < SAMPLES; i++) walls.push(await once(WARMUP + i));
  return { wall: stats(walls), calls: (await allCalls(request, seen)) / SAMPLES };
}

export async function run(server) {
  const title = "Fan-outs and workflows against the direct asks they replace";
  if (!server) return { title, rows: [], notes: ["no server: wrangler dev did not start"] };
  const project = `bench-fo-${randomBytes(3).toString("hex")}`;
  await client(server)("/api/projects", { method: "POST", json: { slug: project } });
  const request = client({ ...server, project });
  for (const j of judges) await request("/api/agents", { method: "POST", json: { name: j, systemPrompt: "Approve." } });
  await request("/api/agents", { method: "POST", json: { name: "main" } });
  await request("/api/agents/main/connections", { method: "PUT", json: { connections: judges } });

  const direct = await measure(request, (n) => directAsks(request, n));
  const fan = await measure(request, (n) => fanOut(request, n));
  const flow = await measure(request, (n) => workflowRun(request, n));
  const r = (x) => Math.round(x * 10) / 10;
  return {
    title,
    rows: [
      { name: "three direct asks at once p50 (baseline)", figure: r(direct.wall.p50), unit: "ms" },
      {
        name: "fan-out of three (all) p50",
        figure: r(fan.wall.p50),
        unit: "ms",
        baseline: r(direct.wall.p50),
        ratio: r(fan.wall.p50 / direct.wall.p50),
        target: "<= 1.5x",
        ok: fan.wall.p50 / direct.wall.p50 <= 1.5,
      },
      {
        name: "four-step workflow (3 asks + majority join) p50",
        figure: r(flow.wall.p50),
        unit: "ms",
        baseline: r(direct.wall.p50),
        ratio: r(flow.wall.p50 / direct.wall.p50),
        target: "<= 1.5x",
        ok: flow.wall.p50 / direct.wall.p50 <= 1.5,
      },
      { name: "model calls: three direct asks", figure: r(direct.calls), unit: "calls" },
      {
        name: "model calls: fan-out of three",
        figure: r(fan.calls),
        unit: "calls",
        baseline: r(direct.calls),
        ratio: r(fan.calls / direct.calls),
      },
      {
        name: "model calls: four-step workflow",
        figure: r(flow.calls),
        unit: "calls",
        baseline: r(direct.calls),
        ratio: r(flow.calls / direct.calls),
      },
    ],
    notes: [
      `${SAMPLES} samples each after ${WARMUP} warm-up; p95: direct ${r(direct.wall.p95)} ms, fan-out ${r(fan.wall.p95)} ms, workflow ${r(flow.wall.p95)} ms`,
    ],
  };
}

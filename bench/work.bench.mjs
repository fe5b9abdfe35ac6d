// A 10-task feature worked end to end (issue 14 item 8), against one local stack with the scripted
// model double: a planner's plan (written through its own tool, by hand), approved, synced; then
// each task started in turn, its worker (its own Durable Object, on the double) writing one file
// and committing. Figures: wall time per task (start → done, p50/p95) and for the whole feature,
// model calls per task, and the feature's own storage per task. Baseline: one bare Durable Object
// round trip in the same run (GET /api/health/echo), so the ratio says how many round trips a task costs.
// Run it with `npm run bench -- work`.
import { randomBytes } from "node:crypto";
import { client, stats } from "./measure.mjs";

const TASKS = 10;
const ECHO_SAMPLES = 100;

/** @param {{ url: string, token: string, modelDouble: { url: string } } | null} server */
export async function run(server) {
  if (!server) return { title: "Work: a 10-task feature", rows: [], notes: ["no server: wrangler dev did not start"] };
  const project = `bench-work-${randomBytes(3).toString("hex")}`;
  await client(server)("/api/projects", { method: "POST", json: { slug: project } });
  const request = client({ ...server, project });
  const workerModel = `bench-worker-${randomBytes(3).toString("hex")}`;
  const tools = ["feature.create", "plan.write", "plan.read", "tasks.sync", "task.start", "status"];
  await request("/api/agents", { method: "POST", json: { name: "planner", runtime: { tools } } });
  const plan = `# Bench\n\n## Tasks\n\n${Array.from({ length: TASKS }, (_, i) => `${i + 1}. Part ${i + 1} — write src/part-${i + 1}.ts`).join("\n")}\n`;
  await request("/api/features", {
    method: "POST",
    json: {
      name: "bench",
      title: "Bench feature",
      orchestrator: "planner",
      worker: { model: { provider: "openai", name: workerModel } },
      files: { "context/brief.md": "Ten small parts.\n" },
    },
  });
  await request("/api/features/bench/plan", { method: "PUT", json: { markdown: plan } });
  await request("/api/features/bench/plan/approve", { method: "POST", json: {} });
  await request("/api/features/bench/tasks/sync", { method: "POST" });
  const script = [];
  for (let i = 1; i <= TASKS; i++) {
    script.push({
      toolCalls: [
        {
          name: "fs.write",
          arguments: { path: `src/part-${i}.ts`, content: `export const part${i} = ${i};\n`.repeat(20) },
        },
      ],
    });
    script.push({ toolCalls: [{ name: "task.commit", arguments: { summary: `wrote part ${i}` } }] });
    script.push({ content: `part ${i} done` });
  }
  await fetch(`${server.modelDouble.url}/__script/${workerModel}`, { method: "POST", body: JSON.stringify(script) });
  const perTask = [];
  const t0 = performance.now();
  for (let i = 1; i <= TASKS; i++) {
    const started = performance.now();
    await request(`/api/features/bench/tasks/${i}/start`, { method: "POST" });
    for (;;) {
      const task = await request(`/api/features/bench/tasks/${i}`);
      if (task.status === "done") break;
      if (["failed", "partial", "blocked", "cancelled"].includes(task.status))
        throw new Error(`task ${i} ended ${task.status}: ${task.summary}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    perTask.push(performance.now() - started);
  }
  const total = performance.now() - t0;
  const calls = await (await fetch(`${server.modelDouble.url}/__calls/${workerModel}`)).json();
  const summary = await request("/api/features/bench");
  const echo = [];
  for (let i = 0; i < ECHO_SAMPLES; i++) {
    const e0 = performance.now();
    await request(`/api/health/echo?x=${i}`);
    echo.push(performance.now() - e0);
  }
  const t = stats(perTask);
  const rpc = stats(echo);
  const r = (x) => Math.round(x * 10) / 10;
  return {
    title: "Work: a 10-task feature",
    rows: [
      {
        name: "task start → done p50 (worker: 3 model calls, 1 file, commit)",
        figure: r(t.p50),
        unit: "ms",
        baseline: r(rpc.p50),
        ratio: r(t.p50 / rpc.p50),
      },
      { name: "task start → done p95", figure: r(t.p95), unit: "ms", baseline: r(rpc.p95), ratio: r(t.p95 / rpc.p95) },
      { name: `whole feature (${TASKS} tasks, one after another)`, figure: r(total), unit: "ms" },
      { name: "model calls per task", figure: r(calls.length / TASKS), unit: "calls" },
      {
        name: "feature storage per task (plan, tasks, files, commits)",
        figure: Math.round(summary.storageBytes / TASKS),
        unit: "bytes",
      },
    ],
    notes: ["each worker is its own Durable Object with its own SQLite; its storage is not in the feature's figure"],
  };
}

// A script tool's overhead (issue 41 item 6): the same agent calls a built-in (`clock.now`) and a
// script tool that does as little (`bench.echo`, run in its own Dynamic Worker) by hand
// (POST /api/agents/:name/tools/:tool/invoke: a traced run through the gates), interleaved so both
// see the same machine. Figures: the client's wall time per call, p50, and the script's added time
// (script p50 − built-in p50).
//   warm  the script's isolate already loaded (the same code as the call before);
//   cold  each call after saving a new version (a new code hash: a new isolate is loaded and the
//         module compiled), the built-in called beside it the same way.
// Goal (the issue's): warm ≤ 2 ms added. Run it with `npm run bench -- script-tools`.
import { randomBytes } from "node:crypto";
import { client, stats } from "./measure.mjs";

const WARM = 40;
const COLD = 10;
const WARMUP = 5;

const echo = (nonce) =>
  `export const tool = { name: "bench.echo", description: "answers its input", idempotent: true };\n// ${nonce}\nexport default async function (input: { x: number }) {\n  return input.x;\n}\n`;

/** @param {{ url: string, token: string } | null} server */
export async function run(server) {
  if (!server) return { title: "script tools", rows: [], notes: ["no server: wrangler dev did not start"] };
  const project = `bench-st-${randomBytes(3).toString("hex")}`;
  await client(server)("/api/projects", { method: "POST", json: { slug: project } });
  const request = client({ ...server, project });
  const save = (nonce) => request(`/api/projects/${project}/tools`, { method: "POST", json: { source: echo(nonce) } });
  await save("first");
  await request("/api/agents", {
    method: "POST",
    json: { name: "bencher", runtime: { tools: ["clock.now", "bench.echo"] } },
  });
  const call = async (tool, args) => {
    const t0 = performance.now();
    const answer = await request(`/api/agents/bencher/tools/${tool}/invoke`, {
      method: "POST",
      json: { arguments: args },
    });
    const ms = performance.now() - t0;
    if (!answer.ok) throw new Error(`${tool}: ${JSON.stringify(answer)}`);
    return ms;
  };

  const warm = { builtin: [], script: [] };
  for (let i = 0; i < WARMUP + WARM; i++) {
    const b = await call("clock.now", {});
    const s = await call("bench.echo", { x: i });
    if (i >= WARMUP) warm.builtin.push(b), warm.script.push(s);
  }
  const cold = { builtin: [], script: [] };
  for (let i = 0; i < COLD; i++) {
    await save(`cold-${i}-${randomBytes(4).toString("hex")}`);
    cold.builtin.push(await call("clock.now", {}));
    cold.script.push(await call("bench.echo", { x: i }));
  }

  const row = (name, samples) => ({ name, figure: +stats(samples).p50.toFixed(2), unit: "ms" });
  const added = (set) => stats(set.script).p50 - stats(set.builtin).p50;
  const warmAdded = added(warm);
  return {
    title: "script tool overhead vs a built-in (hand-invoked tool calls, client wall time, p50)",
    rows: [
      row("built-in clock.now, warm", warm.builtin),
      row("script tool bench.echo, warm", warm.script),
      {
        name: "added by the sandbox, warm",
        figure: +warmAdded.toFixed(2),
        unit: "ms",
        target: "<= 2",
        ok: warmAdded <= 2,
      },
      row("built-in clock.now, beside cold", cold.builtin),
      row("script tool bench.echo, cold (new version each call)", cold.script),
      { name: "added by the sandbox, cold", figure: +added(cold).toFixed(2), unit: "ms" },
    ],
    notes: [
      `${WARM} warm pairs after ${WARMUP} unmeasured, ${COLD} cold pairs; each call is a whole traced run (HTTP, worker, agent object).`,
      "Cold: a new version is saved before each pair, so the script's code hash is new and the Worker Loader loads a fresh isolate.",
    ],
  };
}

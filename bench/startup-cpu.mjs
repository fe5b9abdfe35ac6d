// The worker's startup as CPU time, not as profile samples: the bundle's main module imported once in
// a fresh workerd (Miniflare, as `wrangler check startup` does), timed by the CPU the workerd process's
// threads used (Linux /proc/<pid>/task/*/schedstat, nanoseconds), less the same for an empty worker.
// A profile's samples are wall-clock time, so on a busy machine they count the time the isolate's
// thread waited for a core; CPU time does not, so this figure holds still while others work. It
// includes compilation and GC, which the profile's figure leaves out. Linux only (null elsewhere).
// Not a *.bench.mjs file, so bench/run.mjs does not list it as a module.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Miniflare, convertV4MiniflareOptions } from "miniflare";

/** Pids of this process's children (Miniflare's workerd). */
const children = () =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1].split(" ")[1] === String(process.pid);
      } catch {
        return false;
      }
    });

/** Nanoseconds of CPU the processes' threads have run so far. */
const cpuNs = (pids) =>
  pids.reduce((sum, pid) => {
    try {
      return (
        sum +
        readdirSync(`/proc/${pid}/task`).reduce(
          (s, t) => s + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]),
          0,
        )
      );
    } catch {
      return sum;
    }
  }, 0);

/** CPU milliseconds of one import of the bundle in `dir` (index.js and its .sql text modules), or of nothing. */
async function importCpuMs(dir, compatibility) {
  const modules = [
    {
      type: "ESModule",
      path: "/w/entry.mjs",
      contents: `export default { async fetch() { ${dir ? 'await import("./index.js");' : ""} return new Response("ok"); } };`,
    },
  ];
  for (const file of dir ? readdirSync(dir) : []) {
    if (file === "index.js")
      modules.push({ type: "ESModule", path: "/w/index.js", contents: readFileSync(join(dir, file), "utf8") });
    else if (file.endsWith(".sql"))
      modules.push({ type: "Text", path: `/w/${file}`, contents: readFileSync(join(dir, file), "utf8") });
  }
  const mf = new Miniflare(
    convertV4MiniflareOptions({ name: "startup", modules, modulesRoot: "/w", ...compatibility }),
  );
  try {
    await mf.ready;
    const pids = children();
    const before = cpuNs(pids);
    const res = await mf.dispatchFetch("http://startup.invalid/");
    await res.text();
    if (res.status !== 200) throw new Error(`the bundle's main module failed to evaluate (status ${res.status})`);
    return (cpuNs(pids) - before) / 1e6;
  } finally {
    await mf.dispose();
  }
}

/**
 * Median CPU milliseconds the bundle's startup costs over an empty worker's, of `runs` alternating runs.
 * @example
 * await startupCpuTimeMs(outdir, { compatibilityDate: "2026-11-01", compatibilityFlags: ["nodejs_compat"] }, 5) // 31.2
 */
export async function startupCpuTimeMs(dir, compatibility, runs = 5) {
  if (!existsProc()) return null;
  const bundle = [];
  const empty = [];
  for (let n = 0; n < runs; n++) {
    empty.push(await importCpuMs(null, compatibility));
    bundle.push(await importCpuMs(dir, compatibility));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  return { ms: median(bundle) - median(empty), samples: bundle.map((ms) => ms - median(empty)) };
}

function existsProc() {
  try {
    return readdirSync(`/proc/${process.pid}/task`).length > 0;
  } catch {
    return false;
  }
}

// The worker as Cloudflare gets it: its bundle size (gzip), the packages that weigh most in it
// (esbuild's metafile from `wrangler deploy --dry-run`), and its startup CPU (`wrangler check
// startup`'s profile: the samples that are not idle, median of three). The baseline is the same
// bundle unminified, built in the same run. Targets: at most 1 MiB gzip, and 25 ms of startup CPU on
// both startup rows (issue 44), on a busy machine as well as an idle one.
// The notes name the five modules whose top-level code took most of the startup CPU, from profiles
// of the unminified bundle, where esbuild's module names survive (bench/startup-profile.mjs). A second
// startup row is CPU time (bench/startup-cpu.mjs): the profile's samples are wall-clock time and grow
// when the machine is busy; CPU time does not, so compare that row across runs on a shared machine.
//   npm run bench -- bundle
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { parse } from "smol-toml";
import { startupCpuTimeMs } from "./startup-cpu.mjs";
import { moduleLines, startupBreakdown } from "./startup-profile.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const BUNDLE_TARGET_KIB = 1024;
const STARTUP_TARGET_MS = 25;

function wrangler(args) {
  const result = spawnSync("npx", ["wrangler", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  if (result.status !== 0)
    throw new Error(`wrangler ${args.join(" ")} failed: ${(result.stderr || result.stdout).slice(-800)}`);
}

/** CPU the startup profile spent outside idle, program and GC. */
async function startupCpuMs(scratch, n) {
  const outfile = join(scratch, `startup-${n}.cpuprofile`);
  wrangler(["check", "startup", "--outfile", outfile]);
  return busyMs(JSON.parse(await readFile(outfile, "utf8")));
}

function busyMs(profile) {
  const idle = new Set(
    profile.nodes
      .filter((node) => ["(idle)", "(program)", "(garbage collector)"].includes(node.callFrame.functionName))
      .map((node) => node.id),
  );
  let busy = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) busy += profile.timeDeltas[i] ?? 0;
  });
  return busy / 1000;
}

async function built(scratch, name, extra) {
  const outdir = join(scratch, name);
  wrangler(["deploy", "--dry-run", "--outdir", outdir, "--metafile", join(outdir, "meta.json"), ...extra]);
  const code = await readFile(join(outdir, "index.js"));
  const meta = JSON.parse(await readFile(join(outdir, "meta.json"), "utf8"));
  const output = Object.entries(meta.outputs).find(([file]) => file.endsWith("index.js"))?.[1];
  const byPackage = new Map();
  for (const [file, info] of Object.entries(output?.inputs ?? {})) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? "(pantheon's own code)";
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + info.bytesInOutput);
  }
  return { gzipKiB: gzipSync(code).length / 1024, top: [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 5), code };
}

/** The unminified bundle's startup, profiled three times, charged to modules. */
async function startupByModule(scratch, unminifiedCode) {
  const bundle = join(scratch, "unminified.bundle");
  wrangler(["deploy", "--dry-run", "--outfile", bundle, "--minify=false"]);
  const profiles = [];
  for (let n = 0; n < 3; n++) {
    const outfile = join(scratch, `unminified-${n}.cpuprofile`);
    wrangler(["check", "startup", "--worker-bundle", bundle, "--outfile", outfile]);
    profiles.push(JSON.parse(await readFile(outfile, "utf8")));
  }
  return startupBreakdown(profiles, moduleLines(unminifiedCode.toString("utf8")));
}

export async function run() {
  const scratch = await mkdtemp(join(tmpdir(), "pantheon-bundle-"));
  try {
    const shipped = await built(scratch, "shipped", []);
    const unminified = await built(scratch, "unminified", ["--minify=false"]);
    const startups = [];
    for (let n = 0; n < 3; n++) startups.push(await startupCpuMs(scratch, n));
    const startup = startups.sort((a, b) => a - b)[1];
    const byModule = await startupByModule(scratch, unminified.code);
    const config = parse(await readFile(join(root, "wrangler.toml"), "utf8"));
    const cpuTime = await startupCpuTimeMs(join(scratch, "shipped"), {
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags,
    });
    const topModules = byModule.byModule
      .filter(([path]) => !path.startsWith("("))
      .slice(0, 5)
      .map(([path, ms]) => `${path} ${ms.toFixed(1)} ms`)
      .join("; ");
    return {
      title: "Worker bundle and startup (wrangler deploy --dry-run, wrangler check startup)",
      rows: [
        {
          name: "worker bundle, gzip",
          figure: shipped.gzipKiB,
          unit: "KiB",
          baseline: unminified.gzipKiB,
          ratio: shipped.gzipKiB / unminified.gzipKiB,
          target: `≤ ${BUNDLE_TARGET_KIB} KiB`,
          ok: shipped.gzipKiB <= BUNDLE_TARGET_KIB,
        },
        {
          name: "startup CPU (median of 3)",
          figure: startup,
          unit: "ms",
          target: `≤ ${STARTUP_TARGET_MS} ms`,
          ok: startup <= STARTUP_TARGET_MS,
        },
        ...(cpuTime
          ? [
              {
                name: "startup CPU time (median of 5)",
                figure: cpuTime.ms,
                unit: "ms",
                target: `≤ ${STARTUP_TARGET_MS} ms`,
                ok: cpuTime.ms <= STARTUP_TARGET_MS,
              },
            ]
          : []),
        ...shipped.top.map(([pkg, bytes], i) => ({
          name: `top ${i + 1}: ${pkg}`,
          figure: bytes / 1024,
          unit: "KiB minified",
        })),
      ],
      notes: [
        `startup CPU samples: ${startups.map((ms) => ms.toFixed(1)).join(", ")} ms (the profile's non-idle samples; Cloudflare's own CPU differs)`,
        ...(cpuTime
          ? [
              `startup CPU time samples: ${cpuTime.samples.map((ms) => ms.toFixed(1)).join(", ")} ms (workerd's threads, less an empty worker's; compile and GC included; steady on a busy machine)`,
            ]
          : []),
        `top five modules by startup CPU (unminified bundle, ${byModule.busyMs.toFixed(1)} ms busy, mean of 3; a module's own top-level code with what it calls, not the modules it imports; compile and native time not named): ${topModules}`,
      ],
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

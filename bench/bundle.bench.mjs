// The worker as Cloudflare gets it: its bundle size (gzip), the packages that weigh most in it
// (esbuild's metafile from `wrangler deploy --dry-run`), and its startup CPU (`wrangler check
// startup`'s profile: the samples that are not idle, median of three). The baseline is the same
// bundle unminified, built in the same run. Targets: at most 1 MiB gzip and 50 ms of startup CPU.
//   npm run bench -- bundle
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const BUNDLE_TARGET_KIB = 1024;
const STARTUP_TARGET_MS = 50;

function wrangler(args) {
  const result = spawnSync("npx", ["wrangler", ...args], { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed: ${(result.stderr || result.stdout).slice(-800)}`);
}

/** CPU the startup profile spent outside idle, program and GC. */
async function startupCpuMs(scratch, n) {
  const outfile = join(scratch, `startup-${n}.cpuprofile`);
  wrangler(["check", "startup", "--outfile", outfile]);
  const profile = JSON.parse(await readFile(outfile, "utf8"));
  const idle = new Set(profile.nodes.filter((node) => ["(idle)", "(program)", "(garbage collector)"].includes(node.callFrame.functionName)).map((node) => node.id));
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
  return { gzipKiB: gzipSync(code).length / 1024, top: [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 5) };
}

export async function run() {
  const scratch = await mkdtemp(join(tmpdir(), "pantheon-bundle-"));
  try {
    const shipped = await built(scratch, "shipped", []);
    const unminified = await built(scratch, "unminified", ["--minify=false"]);
    const startups = [];
    for (let n = 0; n < 3; n++) startups.push(await startupCpuMs(scratch, n));
    const startup = startups.sort((a, b) => a - b)[1];
    return {
      title: "Worker bundle and startup (wrangler deploy --dry-run, wrangler check startup)",
      rows: [
        { name: "worker bundle, gzip", figure: shipped.gzipKiB, unit: "KiB", baseline: unminified.gzipKiB, ratio: shipped.gzipKiB / unminified.gzipKiB, target: `≤ ${BUNDLE_TARGET_KIB} KiB`, ok: shipped.gzipKiB <= BUNDLE_TARGET_KIB },
        { name: "startup CPU (median of 3)", figure: startup, unit: "ms", target: `≤ ${STARTUP_TARGET_MS} ms`, ok: startup <= STARTUP_TARGET_MS },
        ...shipped.top.map(([pkg, bytes], i) => ({ name: `top ${i + 1}: ${pkg}`, figure: bytes / 1024, unit: "KiB minified" })),
      ],
      notes: [`startup CPU samples: ${startups.map((ms) => ms.toFixed(1)).join(", ")} ms (the profile's non-idle samples; Cloudflare's own CPU differs)`],
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

// Reads a `wrangler check startup` CPU profile of an UNMINIFIED bundle and says which modules'
// top-level code the startup CPU went to. esbuild writes a `// path` comment before each module
// and, for modules that load lazily (a dynamic `import()` anywhere makes esbuild wrap a module and
// its dependencies in `__esm`), names the wrapper function after the path; so a sample is charged
// to the innermost module-initialiser on its stack (that module's own top-level code, including the
// library functions it calls, e.g. zod building a schema), or, for code esbuild did not wrap, to
// the module whose lines the sample's leaf frame sits in.
// Not a *.bench.mjs file, so bench/run.mjs does not list it as a module.
//   node bench/startup-profile.mjs <index.js> <profile.cpuprofile>...   prints the breakdown

import { readFile } from "node:fs/promises";

const NOT_BUSY = new Set(["(idle)", "(program)", "(garbage collector)"]);
const PATH_COMMENT = /^\s*\/\/ ((?:[\w@.+-]+\/)*[\w@.+-]+\.(?:[cm]?[jt]sx?|json|sql))$/;

/** Line (0-based, as in CPU profiles) → module path, from esbuild's `// path` comments. */
export function moduleLines(bundleSource) {
  const starts = [];
  bundleSource.split("\n").forEach((line, i) => {
    const path = PATH_COMMENT.exec(line)?.[1];
    if (path) starts.push([i, path]);
  });
  const paths = new Set(starts.map(([, path]) => path));
  return {
    paths,
    at(line) {
      let lo = 0;
      let hi = starts.length - 1;
      let found = "(bundle preamble)";
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid][0] <= line) {
          found = starts[mid][1];
          lo = mid + 1;
        } else hi = mid - 1;
      }
      return found;
    },
  };
}

/** The package a module path belongs to, or "(pantheon's own code)". */
export const packageOf = (path) =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? (path.startsWith("(") ? path : "(pantheon's own code)");

/**
 * Busy milliseconds of one or more profiles, charged to modules (see the header) and to packages.
 * @example
 * const { busyMs, byModule } = startupBreakdown([profile], moduleLines(source));
 */
export function startupBreakdown(profiles, lines) {
  const byModule = new Map();
  const bySelfPackage = new Map();
  let busyMs = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    profile.samples.forEach((id, i) => {
      const leaf = nodes.get(id);
      if (!leaf || NOT_BUSY.has(leaf.callFrame.functionName) || leaf.callFrame.functionName === "(root)") return;
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      busyMs += ms;
      let owner;
      for (let at = id; at !== undefined && owner === undefined; at = parent.get(at)) {
        const name = nodes.get(at)?.callFrame.functionName;
        if (lines.paths.has(name)) owner = name;
      }
      const leafLine = leaf.positionTicks?.length
        ? leaf.positionTicks.reduce((a, b) => (b.ticks > a.ticks ? b : a)).line - 1
        : leaf.callFrame.lineNumber;
      const leafModule =
        leaf.callFrame.url.endsWith("index.js") && leafLine >= 0
          ? lines.at(leafLine)
          : `(${leaf.callFrame.functionName || "native"})`;
      owner ??= leafModule;
      byModule.set(owner, (byModule.get(owner) ?? 0) + ms);
      const pkg = packageOf(leafModule);
      bySelfPackage.set(pkg, (bySelfPackage.get(pkg) ?? 0) + ms);
    });
  }
  const n = profiles.length;
  const perRun = (map) => [...map].map(([key, ms]) => [key, ms / n]).sort((a, b) => b[1] - a[1]);
  return { busyMs: busyMs / n, byModule: perRun(byModule), bySelfPackage: perRun(bySelfPackage) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [bundle, ...profileFiles] = process.argv.slice(2);
  const lines = moduleLines(await readFile(bundle, "utf8"));
  const profiles = await Promise.all(profileFiles.map(async (file) => JSON.parse(await readFile(file, "utf8"))));
  const { busyMs, byModule, bySelfPackage } = startupBreakdown(profiles, lines);
  const top = Number(process.env.TOP ?? 40);
  console.log(
    `busy ${busyMs.toFixed(1)} ms per run (${profiles.length} profiles)\n\nby module whose top-level code ran (innermost initialiser):`,
  );
  for (const [path, ms] of byModule.slice(0, top)) console.log(`${ms.toFixed(1).padStart(7)} ms  ${path}`);
  const byPackage = new Map();
  for (const [path, ms] of byModule) byPackage.set(packageOf(path), (byPackage.get(packageOf(path)) ?? 0) + ms);
  console.log("\nsame, summed by package:");
  for (const [pkg, ms] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`${ms.toFixed(1).padStart(7)} ms  ${pkg}`);
  console.log("\nby package whose code the sample was in (self time):");
  for (const [pkg, ms] of bySelfPackage.slice(0, 15)) console.log(`${ms.toFixed(1).padStart(7)} ms  ${pkg}`);
}

// A CPU profile of the local worker (workerd, through wrangler dev's inspector) while a function
// runs, summarised by source file through the dev bundle's source map. The chat-turn bench uses it
// to print where a turn's CPU goes. The inspector session is workerd-probe.mjs's (the delegation bench's).
// Not a *.bench.mjs file, so bench/run.mjs does not list it as a module.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle, inspect } from "./workerd-probe.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Runs `fn` with workerd's sampling profiler on and returns the profile (a .cpuprofile object).
 * @example
 * const profile = await profileWhile(server.inspectorPort, () => manyTurns());
 */
export async function profileWhile(inspectorPort, fn, { intervalUs = 100 } = {}) {
  const session = await inspect(inspectorPort);
  try {
    return await session.profile(fn, intervalUs);
  } finally {
    session.close();
  }
}

const IDLE = new Set(["(idle)", "(program)", "(garbage collector)"]);

/** The package a source path belongs to, or Pantheon's own top folder and file. */
function owner(source) {
  // drizzle-orm's source map names its files by its own src/ paths, without the package's name.
  if (/node_modules\/src\//.test(source)) return "drizzle-orm";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  if (pkg) return pkg;
  const own = /(?:^|\/)((?:core|adapters|durable-objects|workers|pwa)\/.*)$/.exec(source)?.[1];
  return own ?? source;
}

/**
 * The source map of the bundle a running `wrangler dev` serves (it writes it under
 * .wrangler/tmp/dev-*), the newest if there are several; null when there is none.
 */
export async function devBundleSourceMap() {
  return bundle(root)?.map ?? null;
}

/**
 * Busy CPU milliseconds of a profile by owner (npm package or Pantheon source file), self time,
 * plus the total busy time and the garbage collector's share. `sourceMap` (devBundleSourceMap())
 * maps the bundle's positions back to files; without it they count as the bundle.
 * @returns {Promise<{ busyMs: number, gcMs: number, byOwner: Array<[string, number]> }>}
 */
export async function summarise(profile, sourceMap = null) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byOwner = new Map();
  let busyMs = 0;
  let gcMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = node.callFrame;
    if (frame.functionName === "(garbage collector)") gcMs += ms;
    if (IDLE.has(frame.functionName)) continue;
    busyMs += ms;
    let key = frame.url ? frame.url.split("/").pop() : `(native) ${frame.functionName}`;
    const entry = frame.url === "index.js" ? sourceMap?.findEntry(frame.lineNumber, frame.columnNumber) : null;
    if (entry?.originalSource) key = owner(entry.originalSource);
    byOwner.set(key, (byOwner.get(key) ?? 0) + ms);
  }
  return { busyMs, gcMs, byOwner: [...byOwner].sort((a, b) => b[1] - a[1]) };
}

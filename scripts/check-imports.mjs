// The import rules, checked in `npm test`'s typecheck stage: dependency-cruiser reads every import
// (its swc parser: TypeScript 7 has no JavaScript API yet for its tsc parser) and applies the layering
// rules of .dependency-cruiser.cjs; the runtime import cycles are found here, on its graph.
//   node scripts/check-imports.mjs     prints each finding; exit 1 when there is one
//
// Why the cycles are not dependency-cruiser's `circular` rule: for each import it finds the first
// path back, whatever its kind, and only then asks whether that path is type-only, so a runtime cycle
// can hide behind a type-only path found first. Here the strongly connected components (Tarjan) are
// drawn twice, on the runtime graph (type-only imports dropped) and on every import, so each runtime
// cycle is named as one, and a circle only type imports close is refused too.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The source trees whose imports are checked (tests, scripts and benches are tools, not the product). */
export const sourceDirs = ["core", "workers", "durable-objects", "adapters", "cli", "pwa"];

/**
 * Runtime cycles known and accepted, each with why; any other cycle fails, and so does a known one
 * that grows (a module joins it). Remove an entry when its cycle is broken (a stale entry fails too).
 */
export const knownCycles = [
  {
    // The script grammar is recursive: an actor holds talents (compile-behavior), and a talent's
    // `spawn` action may hold an inline (actor …) (compile-actor). Two halves of one recursive-descent
    // compiler that call each other only while compiling (neither reads the other as it loads).
    // Merging them would pass 500 lines; a late-bound callback is what issue 33 item 1 removes.
    name: "the script grammar: actor ⇄ talent",
    modules: ["core/dsl/compile-actor.ts", "core/dsl/compile-behavior.ts"],
  },
];

/** swc must be there: without a TypeScript parser dependency-cruiser silently reads no .ts file at all. */
async function assertParser() {
  try {
    await import("@swc/core");
  } catch {
    throw new Error("@swc/core is missing: dependency-cruiser needs it to read TypeScript (npm install)");
  }
}

/**
 * Strongly connected components of more than one module (or a module importing itself): each is a
 * set of modules every one of which reaches every other.
 * @param {Map<string, string[]>} graph
 */
export function cyclesOf(graph) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  // Iterative Tarjan: the tree is deep enough that recursion is a risk.
  for (const start of graph.keys()) {
    if (indexOf.has(start)) continue;
    const work = [[start, 0]];
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      if (i === 0) {
        indexOf.set(node, index);
        low.set(node, index);
        index += 1;
        stack.push(node);
        onStack.add(node);
      }
      const next = (graph.get(node) ?? [])[i];
      if (next !== undefined) {
        frame[1] = i + 1;
        if (!indexOf.has(next)) work.push([next, 0]);
        else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indexOf.get(next)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === indexOf.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
      }
    }
  }
  return found;
}

/** One path around a component, for the message: the reader sees which imports close it. */
function pathAround(component, graph) {
  const members = new Set(component);
  const start = component[0];
  const seen = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift();
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start && at !== null; at = seen.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!seen.has(next)) {
        seen.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

/**
 * Cruises `dirs` under `root` and returns what breaks the rules: layering violations (the config's
 * `forbidden` rules), runtime cycles not in `known`, and circles that only type imports close.
 * @param {string} root
 * @param {{ dirs?: string[], known?: { name: string, modules: string[] }[], config?: string }} [options]
 * @returns {Promise<{ findings: string[], modules: number, cycles: string[][] }>}
 */
export async function checkImports(
  root,
  { dirs = sourceDirs, known = knownCycles, config = join(root, ".dependency-cruiser.cjs") } = {},
) {
  await assertParser();
  const { cruise } = await import("dependency-cruiser");
  const { forbidden, options } = createRequire(import.meta.url)(config);
  const tsConfig = existsSync(join(root, "tsconfig.json")) ? { fileName: join(root, "tsconfig.json") } : undefined;
  const result = await cruise(
    dirs.filter((d) => existsSync(join(root, d))),
    { ...options, baseDir: root, ruleSet: { forbidden }, ...(tsConfig ? { tsConfig } : {}), validate: true },
  );
  const { modules, summary } = result.output;
  const findings = summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

  // Two graphs between the repository's own modules: every import, and the runtime one (value imports,
  // static or dynamic; type-only imports dropped).
  const graph = new Map();
  const typeGraph = new Map();
  for (const m of modules) {
    if (m.coreModule || m.couldNotResolve || m.source.includes("node_modules")) continue;
    const own = m.dependencies.filter(
      (d) => !d.coreModule && !d.couldNotResolve && !d.resolved.includes("node_modules"),
    );
    typeGraph.set(
      m.source,
      own.map((d) => d.resolved),
    );
    graph.set(
      m.source,
      own.filter((d) => !d.dependencyTypes.includes("type-only")).map((d) => d.resolved),
    );
  }
  const cycles = cyclesOf(graph);
  const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
  for (const cycle of cycles) {
    const listed = known.find((k) => sameSet(k.modules, cycle));
    if (listed) continue;
    const grown = known.find((k) => k.modules.every((m) => cycle.includes(m)));
    const where = pathAround(cycle, graph).join(" → ");
    findings.push(
      grown
        ? `runtime import cycle: the known cycle "${grown.name}" grew: ${where}`
        : `runtime import cycle: ${where} (break it: move what both need down a layer; type-only imports may cycle)`,
    );
  }
  // A circle that only type imports close is refused too: the modules still depend on each other (an
  // object's features that import the object's type, a file that re-exports what imports it), and
  // go-to-definition walks in circles. A known runtime cycle may stay one with its type imports.
  for (const cycle of cyclesOf(typeGraph)) {
    if (cycles.some((c) => sameSet(c, cycle))) continue;
    if (known.some((k) => sameSet(k.modules, cycle))) continue;
    findings.push(
      `type import cycle: ${pathAround(cycle, typeGraph).join(" → ")} (only type imports close it: move the shared types down a layer)`,
    );
  }
  for (const k of known) {
    if (!cycles.some((c) => sameSet(k.modules, c)) && !cycles.some((c) => k.modules.every((m) => c.includes(m)))) {
      findings.push(`the known cycle "${k.name}" is gone: remove it from knownCycles in scripts/check-imports.mjs`);
    }
  }
  return { findings, modules: graph.size, cycles };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const root = resolve(import.meta.dirname, "..");
  const started = performance.now();
  const { findings, modules, cycles } = await checkImports(root);
  const ms = Math.round(performance.now() - started);
  for (const f of findings) console.error(`  ${f}`);
  const allowed = cycles.length - findings.filter((f) => f.startsWith("runtime import cycle")).length;
  console.log(
    `import rules: ${modules} modules, ${findings.length} finding(s), ${allowed} known cycle(s) allowed (${ms} ms)`,
  );
  process.exitCode = findings.length ? 1 : 0;
}

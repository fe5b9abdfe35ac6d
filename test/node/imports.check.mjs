// The import rules (scripts/check-imports.mjs, run in `npm test`'s typecheck stage): the real
// repository passes, and each rule catches what it is for on a small made-up tree, beside a positive
// control that the same tree without the fault passes. Prints `N passed, N failed`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkImports, cyclesOf } from "../../scripts/check-imports.mjs";
import { makeChecks } from "./check-kit.mjs";
import { root } from "./memory-harness.mjs";

const { check, finish } = makeChecks();
const config = join(root, ".dependency-cruiser.cjs");

const started = performance.now();
const real = await checkImports(root);
const ms = Math.round(performance.now() - started);
check(
  `the repository keeps its import rules (${real.modules} modules, ${ms} ms)`,
  real.findings.length === 0 && real.modules > 300,
  real.findings.join("; "),
);
check(
  "the doors' old runtime cycle (workers/app.ts ⇄ the /v1 door) is gone, and the only runtime cycle left is the known one (no type-import circle either: the repository passes above)",
  real.cycles.length === 1 && real.cycles[0].join() === "core/dsl/compile-actor.ts,core/dsl/compile-behavior.ts",
  JSON.stringify(real.cycles),
);

/** A throwaway tree of the given files (path → source), checked with the repository's rules. */
async function checkTree(files, known = []) {
  const dir = mkdtempSync(join(tmpdir(), "pantheon-imports-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return await checkImports(dir, { known, config });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const has = (findings, text) => findings.some((f) => f.includes(text));

// Cycles.
const runtimeCycle = await checkTree({
  "workers/app.ts": "import { door } from \x22./doors/door\x22;\nexport const maxBodyBytes = 1;\n",
  "workers/doors/door.ts": "import { maxBodyBytes } from \x22../app\x22;\nexport const door = () => maxBodyBytes;\n",
});
check(
  "a runtime import cycle fails, naming its path",
  has(runtimeCycle.findings, "runtime import cycle: workers/app.ts → workers/doors/door.ts → workers/app.ts") ||
    has(runtimeCycle.findings, "runtime import cycle: workers/doors/door.ts → workers/app.ts → workers/doors/door.ts"),
  runtimeCycle.findings.join("; "),
);
const typeCycle = await checkTree({
  "workers/app.ts":
    "import { door } from \x22./doors/door\x22;\nexport type Limit = number;\nexport const app = door;\n",
  "workers/doors/door.ts": "import type { Limit } from \x22../app\x22;\nexport const door = (l: Limit) => l;\n",
});
check(
  "a circle only a type import closes fails too, named as a type import cycle (not a runtime one)",
  has(typeCycle.findings, "type import cycle") &&
    !has(typeCycle.findings, "runtime import cycle") &&
    typeCycle.cycles.length === 0,
  typeCycle.findings.join("; "),
);
const typeMovedDown = await checkTree({
  "workers/app.ts":
    "import { door } from \x22./doors/door\x22;\nexport type { Limit } from \x22./limit\x22;\nexport const app = door;\n",
  "workers/limit.ts": "export type Limit = number;\n",
  "workers/doors/door.ts": "import type { Limit } from \x22../limit\x22;\nexport const door = (l: Limit) => l;\n",
});
check(
  "the same two modules with the shared type moved down a layer pass (positive control)",
  typeMovedDown.findings.length === 0,
  typeMovedDown.findings.join("; "),
);
const inlineTypes = await checkTree({
  "core/a.ts": "import { type B } from \x22./b\x22;\nexport const a = (b: B) => b;\n",
  "core/b.ts": "import { a } from \x22./a\x22;\nexport type B = typeof a;\n",
});
check(
  "an import whose every name is a type (`import { type B }`) counts as type-only",
  has(inlineTypes.findings, "type import cycle") && !has(inlineTypes.findings, "runtime import cycle"),
  inlineTypes.findings.join("; "),
);
const dynamicCycle = await checkTree({
  "workers/a.ts": "export const load = () => import(\x22./b\x22);\n",
  "workers/b.ts": "import { load } from \x22./a\x22;\nexport const b = load;\n",
});
check(
  "a cycle through a dynamic import is a runtime cycle too",
  has(dynamicCycle.findings, "runtime import cycle"),
  dynamicCycle.findings.join("; "),
);

const dsl = {
  "core/dsl/actor.ts": "import { talent } from \x22./talent\x22;\nexport const actor = () => talent();\n",
  "core/dsl/talent.ts": "import { actor } from \x22./actor\x22;\nexport const talent = () => actor;\n",
};
const knownDsl = [{ name: "grammar", modules: ["core/dsl/actor.ts", "core/dsl/talent.ts"] }];
check("a known cycle, listed with its modules, passes", (await checkTree(dsl, knownDsl)).findings.length === 0);
const grown = await checkTree(
  {
    ...dsl,
    "core/dsl/talent.ts":
      "import { actor } from \x22./actor\x22;\nimport { spawn } from \x22./spawn\x22;\nexport const talent = () => actor ?? spawn;\n",
    "core/dsl/spawn.ts": "import { actor } from \x22./actor\x22;\nexport const spawn = actor;\n",
  },
  knownDsl,
);
check(
  "a known cycle that another module joins fails, naming it as grown",
  has(grown.findings, 'the known cycle "grammar" grew'),
  grown.findings.join("; "),
);
const stale = await checkTree({ "core/dsl/actor.ts": "export const actor = 1;\n" }, knownDsl);
check(
  "a known cycle that is gone fails until its entry is removed",
  has(stale.findings, 'the known cycle "grammar" is gone'),
  stale.findings.join("; "),
);
check(
  "cycles are strongly connected components: a self-import and two separate circles are three",
  cyclesOf(
    new Map([
      ["a", ["a"]],
      ["b", ["c"]],
      ["c", ["b", "d"]],
      ["d", []],
      ["e", ["f"]],
      ["f", ["e"]],
    ]),
  ).length === 3,
);

// Layers.
const layered = {
  "workers/auth.ts": "export const auth = 1;\n",
  "workers/api/index.ts": "export type ApiRoutes = { a: 1 };\n",
  "workers/doors/acp/agent.ts":
    "import { mapping } from \x22../../../core/protocols/acp\x22;\nexport const runAcpAgent = mapping;\n",
  "core/protocols/acp.ts": "export const mapping = 1;\n",
  "cli/client.ts":
    "import type { ApiRoutes } from \x22../workers/api\x22;\nimport { runAcpAgent } from \x22../workers/doors/acp/agent\x22;\nexport const client = (r: ApiRoutes) => [r, runAcpAgent];\n",
};
const clean = await checkTree(layered);
check(
  "the CLI taking the worker's route types and the pure ACP door passes (positive control)",
  clean.findings.length === 0,
  clean.findings.join("; "),
);
const cases = [
  [
    "core/ importing the worker fails (core-is-pure)",
    { "core/pure.ts": "import { auth } from \x22../workers/auth\x22;\nexport const x = auth;\n" },
    "core-is-pure: core/pure.ts → workers/auth.ts",
  ],
  [
    "core/ importing a Cloudflare module fails (core-is-pure)",
    { "core/pure.ts": "import { env } from \x22cloudflare:workers\x22;\nexport const x = env;\n" },
    "core-is-pure: core/pure.ts → cloudflare:workers",
  ],
  [
    "an adapter importing the worker fails (adapters-are-leaves)",
    { "adapters/llm-x/index.ts": "import { auth } from \x22../../workers/auth\x22;\nexport const x = auth;\n" },
    "adapters-are-leaves",
  ],
  [
    "a Durable Object importing the worker's runtime fails",
    { "durable-objects/agent/x.ts": "import { auth } from \x22../../workers/auth\x22;\nexport const x = auth;\n" },
    "durable-objects-never-import-the-worker",
  ],
  [
    "the CLI importing the worker's runtime fails",
    { "cli/bad.ts": "import { auth } from \x22../workers/auth\x22;\nexport const x = auth;\n" },
    "clients-import-only-types-of-the-worker: cli/bad.ts → workers/auth.ts",
  ],
  [
    "the PWA importing the worker's runtime fails",
    { "pwa/src/bad.ts": "import { auth } from \x22../../workers/auth\x22;\nexport const x = auth;\n" },
    "clients-import-only-types-of-the-worker: pwa/src/bad.ts → workers/auth.ts",
  ],
  [
    "the ACP door importing the worker's runtime fails (the CLI would load it)",
    { "workers/doors/acp/agent.ts": "import { auth } from \x22../../auth\x22;\nexport const runAcpAgent = auth;\n" },
    "acp-door-is-pure: workers/doors/acp/agent.ts → workers/auth.ts",
  ],
  [
    "a relative import of a file that does not exist fails",
    { "workers/lost.ts": "import { gone } from \x22./gone\x22;\nexport const x = gone;\n" },
    "relative-import-resolves: workers/lost.ts → ./gone",
  ],
];
for (const [name, extra, expected] of cases) {
  const { findings } = await checkTree({ ...layered, ...extra });
  check(name, has(findings, expected), findings.join("; ") || "no finding");
}

finish();

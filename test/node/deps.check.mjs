// Dependencies match the code (scripts/check-deps.mjs): the real repository passes, and each rule
// catches what it is for on a small made-up package.json.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkDependencies, importedPackages } from "../../scripts/check-deps.mjs";
import { makeChecks } from "./check-kit.mjs";
import { root } from "./memory-harness.mjs";

const { check, finish } = makeChecks();

const started = performance.now();
const findings = checkDependencies(root).filter((f) => !f.stale);
const ms = Math.round(performance.now() - started);
check(
  `package.json matches the code (${ms} ms)`,
  findings.length === 0,
  findings.map((f) => `${f.pkg}: ${f.problem}`).join("; "),
);

// Written with \x22 for the quotes so this file's own scan does not read the sample as imports.
const sample = [
  "import { a } from \x22hono/body-limit\x22;",
  "export * from \x22@scope/pkg/sub\x22;",
  "await import(\x22zod\x22);",
  "require.resolve(\x22axe-core/axe.min.js\x22);",
  "import \x22node:fs\x22; import x from \x22./local\x22; import y from \x22cloudflare:test\x22;",
  "// import z from \x22commented\x22;",
  "/** import w from \x22jsdoc\x22 */",
].join("\n");
const read = [...importedPackages(sample)].sort();
check(
  "imports, re-exports, dynamic imports and resolves are read; comments, relative paths and builtins are not",
  JSON.stringify(read) === JSON.stringify(["@scope/pkg", "axe-core", "hono", "zod"]),
  JSON.stringify(read),
);

/** A throwaway repository with one worker file and one test, and the given package.json. */
function fixture(dependencies, devDependencies) {
  const dir = mkdtempSync(join(tmpdir(), "pantheon-deps-"));
  mkdirSync(join(dir, "workers"));
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "workers/index.ts"), "import { Hono } from \x22hono\x22;\n");
  writeFileSync(join(dir, "test/a.test.ts"), "import { it } from \x22vitest\x22;\n");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: {}, dependencies, devDependencies }));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return dir;
}

const cases = [
  [
    "a runtime import under devDependencies fails, naming the package",
    {},
    { hono: "1", vitest: "1" },
    (f) => f.some((x) => x.pkg === "hono" && x.problem.includes("listed under devDependencies")),
  ],
  [
    "a declared package nothing uses fails, naming it",
    { hono: "1", "left-pad": "1" },
    { vitest: "1" },
    (f) => f.some((x) => x.pkg === "left-pad" && x.problem.includes("never imported")),
  ],
  [
    "an imported package that is not declared fails, naming it",
    {},
    { vitest: "1" },
    (f) => f.some((x) => x.pkg === "hono" && x.problem.includes("not declared")),
  ],
  [
    "a matching package.json has no findings",
    { hono: "1" },
    { vitest: "1" },
    (f) => f.filter((x) => !x.stale).length === 0,
  ],
];
for (const [name, deps, devDeps, ok] of cases) {
  const dir = fixture(deps, devDeps);
  try {
    const found = checkDependencies(dir);
    check(name, ok(found), JSON.stringify(found));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

finish();

// Dependencies match the code: every package the code imports is declared, a package imported by
// shipped code (the worker, the PWA, the CLI, the sidecar) is a runtime dependency, and every
// declared package is used (imported, resolved, named in a tsconfig `types`, or run as a binary).
//   node scripts/check-deps.mjs        prints each finding; exit 1 when there is one
// Run by `npm test` through test/node/deps.check.mjs.
//
// Why not knip or depcheck: knip (measured 2.6 s, 21 packages) finds unused packages here, but does
// not flag a runtime import listed under devDependencies, and its production mode reported every
// runtime dependency as unused with this layout; depcheck has no notion of runtime vs dev code.
// The rules are few and the layout is fixed, so a small scan is clearer than configuring either.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** Shipped code: what is deployed, served or installed as the `pantheon` command. */
export const runtimeDirs = [
  "workers",
  "durable-objects",
  "core",
  "adapters",
  "migrations",
  "pwa/src",
  "cli",
  "sidecar",
];
/** Code that only builds, tests or measures. */
export const devDirs = ["scripts", "test", "bench", "pwa/build.mjs", ".ci"];

/**
 * Declared packages allowed to be unused for now, each with the reason. Keep it short and empty
 * when you can: an entry whose package is used again is reported as stale.
 */
export const allowedUnused = {};

const sourceFile = /\.(ts|mts|cts|mjs|cjs|js)$/;
const skipDirs = new Set(["node_modules", "dist", ".wrangler", "test-results", ".git"]);
const builtins = new Set(builtinModules.flatMap((m) => [m, m.replace(/^node:/, "")]));

function walk(path, out = []) {
  if (!existsSync(path)) return out;
  if (statSync(path).isFile()) {
    if (sourceFile.test(path) || path.endsWith("/run") || path.endsWith(".sh")) out.push(path);
    return out;
  }
  for (const entry of readdirSync(path)) if (!skipDirs.has(entry)) walk(join(path, entry), out);
  return out;
}

/** Comments hold examples (`import x from "y"` in JSDoc); they are not imports. */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** Package names a source file imports, requires or resolves. */
export function importedPackages(text) {
  const found = new Set();
  const patterns = [
    // An import's or export's `from "pkg"` ends its statement's line; a string in code that says "from 'x'" does not.
    /\bfrom\s*["']([^"'\n]+)["'];?[ \t]*(?:\/\/.*)?$/gm,
    /\bimport\s*["']([^"'\n]+)["']/g,
    /\bimport\s*\(\s*["']([^"'\n]+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"'\n]+)["']\s*\)/g,
    /\b(?:require|import\.meta)\.resolve\s*\(\s*["']([^"'\n]+)["']/g,
  ];
  const code = withoutComments(text);
  for (const pattern of patterns)
    for (const match of code.matchAll(pattern)) {
      const name = packageOf(match[1]);
      if (name) found.add(name);
    }
  return found;
}

/** `@scope/pkg/sub` → `@scope/pkg`, `pkg/sub` → `pkg`; relative paths, builtins and `cloudflare:*` → null. */
export function packageOf(specifier) {
  if (/^[./]/.test(specifier) || /^[a-z]+:/.test(specifier) || builtins.has(specifier.split("/")[0])) return null;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  return /^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/i.test(name) ? name : null;
}

/**
 * The findings for the repository at `root`: `{ pkg, problem }` each.
 * @example
 * checkDependencies(process.cwd()); // [] when package.json matches the code
 */
export function checkDependencies(root) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const deps = new Set(Object.keys(pkg.dependencies ?? {}));
  const devDeps = new Set(Object.keys(pkg.devDependencies ?? {}));
  const declared = new Set([...deps, ...devDeps]);
  const rootConfigs = readdirSync(root)
    .filter((f) => sourceFile.test(f))
    .map((f) => join(root, f));

  const runtimeFiles = runtimeDirs.flatMap((d) => walk(join(root, d)));
  const devFiles = [...devDirs.flatMap((d) => walk(join(root, d))), ...rootConfigs];
  const usedBy = new Map(); // package → { runtime: file | undefined, any: file }
  const note = (name, file, runtime) => {
    const entry = usedBy.get(name) ?? { runtime: undefined, any: file };
    if (runtime && !entry.runtime) entry.runtime = file;
    usedBy.set(name, entry);
  };
  for (const [files, runtime] of [
    [runtimeFiles, true],
    [devFiles, false],
  ]) {
    for (const file of files)
      for (const name of importedPackages(readFileSync(file, "utf8"))) note(name, relative(root, file), runtime);
  }

  // tsconfig `types`: "node" is @types/node, "@cloudflare/vitest-plugin/types" is that package.
  for (const config of readdirSync(root).filter((f) => /^tsconfig.*\.json$/.test(f))) {
    const types = /"types"\s*:\s*\[([^\]]*)\]/.exec(readFileSync(join(root, config), "utf8"))?.[1] ?? "";
    for (const [, type] of types.matchAll(/"([^"]+)"/g)) {
      const name = packageOf(type.includes("/") ? type : `@types/${type}`);
      if (name) note(name, config, false);
    }
  }

  // Binaries: `npx <bin>` or a script's command word, or a bin name passed as a spawn argument.
  const commandText = [
    ...Object.values(pkg.scripts ?? {}),
    ...[...runtimeFiles, ...devFiles].map((f) => readFileSync(f, "utf8")),
  ].join("\n");
  for (const name of declared) {
    const manifest = join(root, "node_modules", name, "package.json");
    if (!existsSync(manifest)) continue;
    const { bin } = JSON.parse(readFileSync(manifest, "utf8"));
    const bins = typeof bin === "string" ? [name.split("/").pop()] : Object.keys(bin ?? {});
    for (const b of bins) {
      const escaped = b.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const asCommand = new RegExp(`(^|[\\s;&|'"(])(npx\\s+)?${escaped}(\\s|$|['"])`, "m");
      const scriptCommand = Object.values(pkg.scripts ?? {}).some((s) => asCommand.test(s));
      if (
        scriptCommand ||
        new RegExp(`npx\\s+${escaped}\\b`).test(commandText) ||
        new RegExp(`["']${escaped}["']`).test(commandText)
      )
        note(name, "a command", false);
    }
  }
  // A peer dependency of a used package is used (e.g. @energetic-ai/core under @energetic-ai/embeddings).
  for (const name of [...usedBy.keys()]) {
    const manifest = join(root, "node_modules", name, "package.json");
    if (!existsSync(manifest)) continue;
    for (const peer of Object.keys(JSON.parse(readFileSync(manifest, "utf8")).peerDependencies ?? {}))
      if (declared.has(peer)) note(peer, `a peer of ${name}`, false);
  }
  // `@types/x` is used where `x` is.
  for (const name of declared)
    if (name.startsWith("@types/") && usedBy.has(name.slice("@types/".length)))
      note(name, "its package's imports", false);

  const findings = [];
  for (const [name, use] of usedBy) {
    if (!declared.has(name) && !name.startsWith("@types/"))
      findings.push({ pkg: name, problem: `imported by ${use.runtime ?? use.any} but not declared in package.json` });
    else if (use.runtime && devDeps.has(name) && !deps.has(name))
      findings.push({
        pkg: name,
        problem: `imported by shipped code (${use.runtime}) but listed under devDependencies: move it to dependencies`,
      });
  }
  for (const name of declared) {
    const used = usedBy.has(name);
    if (!used && !(name in allowedUnused))
      findings.push({
        pkg: name,
        problem: `declared in ${deps.has(name) ? "dependencies" : "devDependencies"} but never imported or run: remove it`,
      });
    if (used && name in allowedUnused)
      findings.push({
        pkg: name,
        problem: "is used now: remove it from allowedUnused in scripts/check-deps.mjs",
        stale: true,
      });
  }
  return findings;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(fileURLToPath(new URL(".", import.meta.url)), "..");
  const started = performance.now();
  const findings = checkDependencies(root);
  for (const f of findings) console.log(`${f.stale ? "note" : "FAIL"} ${f.pkg}: ${f.problem}`);
  for (const [name, why] of Object.entries(allowedUnused))
    if (!findings.some((f) => f.pkg === name)) console.log(`note ${name}: unused, allowed (${why})`);
  const failing = findings.filter((f) => !f.stale);
  console.log(
    `${failing.length ? `${failing.length} dependency problem(s)` : "dependencies match the code"} (${Math.round(performance.now() - started)} ms)`,
  );
  process.exit(failing.length ? 1 : 0);
}

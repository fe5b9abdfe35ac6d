// The import rules of the codebase, checked by `npm test` (scripts/check-imports.mjs) with
// dependency-cruiser. Run by hand: `npx depcruise --config .dependency-cruiser.cjs core workers durable-objects adapters cli pwa`.
//
// The runtime import cycles are checked by scripts/check-imports.mjs on the graph this reads (see
// there why not with a `circular` rule); these are the layering rules. A type-only import (every
// name it takes is a type) is erased before anything runs, so some rules let it cross a layer.
// By hand, depcruise warns "missing-tsc-transpiler": its tsc parser wants TypeScript < 7; the swc
// parser below reads the .ts files instead (scripts/check-imports.mjs fails if @swc/core is missing).

const workerRuntime = "^(workers|durable-objects|adapters)/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-is-pure",
      comment:
        "core/ is pure TypeScript: no Cloudflare modules, and nothing of the worker, the Durable Objects, the adapters or the clients.",
      severity: "error",
      from: { path: "^core/" },
      to: { path: ["^(workers|durable-objects|adapters|cli|pwa)/", "^cloudflare:"] },
    },
    {
      name: "adapters-are-leaves",
      comment:
        "An adapter implements a port of core/; it knows nothing of the worker, the Durable Objects or the clients.",
      severity: "error",
      from: { path: "^adapters/" },
      to: { path: "^(workers|durable-objects|cli|pwa)/" },
    },
    {
      name: "durable-objects-never-import-the-worker",
      comment: "Durable Objects are called by the worker, never the other way round (the worker's types excepted).",
      severity: "error",
      from: { path: "^durable-objects/" },
      to: { path: "^workers/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "clients-import-only-types-of-the-worker",
      comment:
        "The CLI and the PWA run outside the worker: they take the worker's route types (hc) and pure modules of core/, never its runtime code. The ACP door (workers/doors/acp/) is the one worker-folder module the CLI runs: it is pure (next rule).",
      severity: "error",
      from: { path: "^(cli|pwa)/" },
      to: { path: workerRuntime, pathNot: "^workers/doors/acp/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "acp-door-is-pure",
      comment:
        "The ACP door runs in the CLI's Node process: it may import core/ and packages, nothing else of the worker.",
      severity: "error",
      from: { path: "^workers/doors/acp/" },
      to: { path: `${workerRuntime}|^(cli|pwa)/`, pathNot: "^workers/doors/acp/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "relative-import-resolves",
      comment: "A relative import that resolves to no file: the check would not see past it.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^[.]" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/|\\.d\\.ts$" },
    // TypeScript 7 has no JavaScript API yet, which dependency-cruiser's own tsc parser needs; swc parses instead.
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".mjs", ".js", ".json"] },
  },
};

// Runs the agent's memory code (memory-store, context-turn, the SQLite vector index) in plain
// Node over node:sqlite, with the agent database's real migrations, for the Node-side checks and
// bench/context.bench.mjs. The TypeScript is bundled with esbuild (no Cloudflare imports in it).
import { build } from "esbuild";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath, pathToFileURL } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** Bundles the memory modules once and imports them. */
export async function loadMemoryModules() {
  const out = mkdtempSync(join(tmpdir(), "pantheon-memory-"));
  const entry = join(out, "entry.ts");
  writeFileSync(
    entry,
    [
      `export { makeMemoryStore } from ${JSON.stringify(join(root, "durable-objects/agent/memory/store.ts"))};`,
      `export { makeContextTurns } from ${JSON.stringify(join(root, "durable-objects/agent/memory/context-turn.ts"))};`,
      `export { makeSqliteIndex } from ${JSON.stringify(join(root, "adapters/vector-sqlite/index.ts"))};`,
      `export { makeOpenAiEmbedder } from ${JSON.stringify(join(root, "adapters/embed-openai/index.ts"))};`,
      `export { makeHashedEmbedder } from ${JSON.stringify(join(root, "adapters/embed-hashed/index.ts"))};`,
    ].join("\n"),
  );
  await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "neutral", outfile: join(out, "index.mjs"), logLevel: "error", mainFields: ["module", "main"] });
  const modules = await import(pathToFileURL(join(out, "index.mjs")).href);
  rmSync(out, { recursive: true, force: true });
  return modules;
}

/** A fresh in-memory agent database with the agent migrations applied, behind the SqlLike shape. */
export function agentDatabase() {
  const db = new DatabaseSync(":memory:");
  const journal = JSON.parse(readFileSync(join(root, "migrations/agent/meta/_journal.json"), "utf8"));
  for (const entry of journal.entries) {
    const text = readFileSync(join(root, "migrations/agent", `${entry.tag}.sql`), "utf8");
    for (const statement of text.split("--> statement-breakpoint")) if (statement.trim()) db.exec(statement);
  }
  return { db, sql: sqlOver(db) };
}

/** SqlLike over node:sqlite: BLOBs in as ArrayBuffer → Uint8Array, out as ArrayBuffer, like DO SQL. */
export function sqlOver(db) {
  const statements = new Map();
  const toSql = (v) => (v instanceof ArrayBuffer ? new Uint8Array(v) : v === undefined ? null : v);
  const fromSql = (row) => {
    for (const key in row) {
      const v = row[key];
      if (v instanceof Uint8Array) row[key] = v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength);
    }
    return row;
  };
  return {
    exec(query, ...bindings) {
      let statement = statements.get(query);
      if (!statement) statements.set(query, (statement = db.prepare(query)));
      const reads = /^\s*(SELECT|WITH)/i.test(query) || /\bRETURNING\b/i.test(query);
      const rows = reads ? statement.all(...bindings.map(toSql)).map(fromSql) : (statement.run(...bindings.map(toSql)), []);
      return {
        toArray: () => rows,
        one: () => {
          if (rows.length !== 1) throw new Error(`expected exactly one row, got ${rows.length}`);
          return rows[0];
        },
      };
    },
  };
}

/** MemoryPorts for one embedder, vectors in the same database (one namespace per model). */
export function localPorts(modules, sql, embed) {
  const indexes = new Map();
  return {
    embed,
    backend: "sqlite",
    vectors(model, dimensions) {
      const key = `memory:${model}`;
      if (!indexes.has(key)) indexes.set(key, modules.makeSqliteIndex(sql, { dimensions, namespace: key }));
      return indexes.get(key);
    },
  };
}

export const systemClock = { now: () => Date.now() };

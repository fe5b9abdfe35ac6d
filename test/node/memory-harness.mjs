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
      `export { importLines } from ${JSON.stringify(join(root, "durable-objects/agent/memory/io.ts"))};`,
      `export { ftsQuery, defaultTuning } from ${JSON.stringify(join(root, "core/context/index.ts"))};`,
      `export { makeSqliteIndex } from ${JSON.stringify(join(root, "adapters/vector-sqlite/index.ts"))};`,
      `export { makeOpenAiEmbedder } from ${JSON.stringify(join(root, "adapters/embed-openai/index.ts"))};`,
      `export { makeHashedEmbedder } from ${JSON.stringify(join(root, "adapters/embed-hashed/index.ts"))};`,
      `export { makeMessageStore } from ${JSON.stringify(join(root, "durable-objects/agent/chat/messages.ts"))};`,
      `export { makeSettingsStore } from ${JSON.stringify(join(root, "durable-objects/agent/chat/settings.ts"))};`,
      `import { drizzle } from "drizzle-orm/durable-sqlite";`,
      `import * as schema from ${JSON.stringify(join(root, "durable-objects/agent/schema/index.ts"))};`,
      // drizzle's Durable Object driver over a stand-in for ctx.storage (sql.exec and transactionSync).
      `export const openAgentDb = (storage) => drizzle(storage, { schema });`,
    ].join("\n"),
  );
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    outfile: join(out, "index.mjs"),
    logLevel: "error",
    mainFields: ["module", "main"],
    nodePaths: [join(root, "node_modules")],
  });
  const modules = await import(pathToFileURL(join(out, "index.mjs")).href);
  rmSync(out, { recursive: true, force: true });
  return modules;
}

/**
 * A fresh in-memory agent database with the agent migrations applied: `sql` (the SqlLike shape of
 * ctx.storage.sql) and, given the modules, `orm` (drizzle over it, as the Durable Object has it).
 */
export function agentDatabase(modules) {
  const db = new DatabaseSync(":memory:");
  const journal = JSON.parse(readFileSync(join(root, "migrations/agent/meta/_journal.json"), "utf8"));
  for (const entry of journal.entries) {
    const text = readFileSync(join(root, "migrations/agent", `${entry.tag}.sql`), "utf8");
    for (const statement of text.split("--> statement-breakpoint")) if (statement.trim()) db.exec(statement);
  }
  const sql = sqlOver(db);
  const orm = modules?.openAgentDb({ sql, transactionSync: (fn) => fn() });
  return { db, sql, orm };
}

/**
 * The memory store and the context turns as the agent wires them (memory/feature.ts), over one
 * agent database.
 * @example
 * const { memory, turns } = memoryOver(modules, agentDatabase(modules), clock, () => ports);
 */
export function memoryOver(modules, database, clock, ports) {
  const memory = modules.makeMemoryStore({ db: database.orm, sql: database.sql, clock, ports });
  const messages = modules.makeMessageStore(database.orm, clock);
  const settings = modules.makeSettingsStore(database.orm, clock);
  const turns = modules.makeContextTurns({ clock, memory, messages, settings });
  return { memory, messages, settings, turns };
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
  const prepared = (query, arrays) => {
    const key = arrays ? `arrays:${query}` : query;
    let statement = statements.get(key);
    if (!statement) {
      statement = db.prepare(query);
      if (arrays) statement.setReturnArrays(true);
      statements.set(key, statement);
    }
    return statement;
  };
  const fromSqlValues = (row) =>
    row.map((v) => (v instanceof Uint8Array ? v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength) : v));
  return {
    exec(query, ...bindings) {
      const args = bindings.map(toSql);
      const reads = /^\s*(SELECT|WITH)/i.test(query) || /\bRETURNING\b/i.test(query);
      if (!reads) prepared(query, false).run(...args);
      // Reads run when the caller asks, as rows (objects) or, for drizzle's driver, as value arrays.
      let rows;
      const objects = () =>
        (rows ??= reads
          ? prepared(query, false)
              .all(...args)
              .map(fromSql)
          : []);
      return {
        toArray: objects,
        raw: () => ({
          toArray: () =>
            reads
              ? prepared(query, true)
                  .all(...args)
                  .map(fromSqlValues)
              : [],
        }),
        next: () => (objects().length ? { value: rows[0], done: false } : { value: undefined, done: true }),
        one: () => {
          if (objects().length !== 1) throw new Error(`expected exactly one row, got ${rows.length}`);
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

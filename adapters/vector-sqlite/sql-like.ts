import type { SqlLike, SqlValue } from "../../core/ports";

export type { SqlCursorLike, SqlLike, SqlValue } from "../../core/ports";

/** Durable Object SQL caps bound parameters per statement at 100. */
export const maxBindings = 100;

export function createTables(sql: SqlLike): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS pantheon_vec_spaces (
    namespace TEXT PRIMARY KEY,
    dimensions INTEGER NOT NULL
  )`);
  sql.exec(`CREATE TABLE IF NOT EXISTS pantheon_vec_lists (
    namespace TEXT NOT NULL,
    list INTEGER NOT NULL,
    centroid BLOB NOT NULL,
    PRIMARY KEY (namespace, list)
  )`);
  // `vector` is the unit float32 vector used for exact scores; `code`/`scale` the int8 copy that is
  // loaded into memory (a quarter of the bytes to read when an evicted agent wakes up).
  sql.exec(`CREATE TABLE IF NOT EXISTS pantheon_vec_items (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    list INTEGER NOT NULL,
    scale REAL NOT NULL,
    code BLOB NOT NULL,
    vector BLOB NOT NULL,
    metadata TEXT,
    PRIMARY KEY (namespace, id)
  )`);
}

export function toBlob(array: Float32Array | Int8Array): ArrayBuffer {
  return array.buffer.slice(array.byteOffset, array.byteOffset + array.byteLength) as ArrayBuffer;
}

export function floatsOf(blob: SqlValue): Float32Array {
  if (!(blob instanceof ArrayBuffer)) throw new TypeError("expected a BLOB column");
  return new Float32Array(blob);
}

export function int8sOf(blob: SqlValue): Int8Array {
  if (!(blob instanceof ArrayBuffer)) throw new TypeError("expected a BLOB column");
  return new Int8Array(blob);
}

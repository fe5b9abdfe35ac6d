import { Buffer } from "node:buffer";
import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { gitFiles } from "./schema";

/** A Node-style fs error: isomorphic-git reads `code` (ENOENT, EEXIST, ENOTEMPTY). */
function fsError(code: string, path: string): Error & { code: string } {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

const normalize = (path: string) => `/${path.split("/").filter(Boolean).join("/")}`;
const parentOf = (path: string) => (path === "/" ? "" : path.slice(0, path.lastIndexOf("/")) || "/");
const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

const stats = (kind: "file" | "dir", size: number, mtime: number) => ({
  type: kind,
  mode: kind === "dir" ? 0o40755 : 0o100644,
  size,
  ino: 0,
  dev: 0,
  uid: 0,
  gid: 0,
  mtimeMs: mtime,
  ctimeMs: mtime,
  isFile: () => kind === "file",
  isDirectory: () => kind === "dir",
  isSymbolicLink: () => false,
});

/**
 * The promises half of Node's fs that isomorphic-git needs (readFile, writeFile, unlink, readdir,
 * mkdir, rmdir, stat, lstat), over one SQLite table of the Durable Object. Each call is one
 * synchronous statement, so a file is either written whole or not at all; a writer that needs
 * several files to move together (a ref and what it points to) uses `writeSync` inside
 * `transactionSync`. Parent folders are made on write, as git's own object writer would.
 */
export function makeSqliteFs(db: DrizzleSqliteDODatabase<Record<string, unknown>>, clock: () => number = Date.now) {
  const row = (path: string) =>
    db
      .select({ kind: gitFiles.kind, data: gitFiles.data, mtime: gitFiles.mtime })
      .from(gitFiles)
      .where(eq(gitFiles.path, path))
      .get();

  function ensureDir(path: string): void {
    if (path === "/" || path === "") return;
    const existing = row(path);
    if (existing) {
      if (existing.kind !== "dir") throw fsError("ENOTDIR", path);
      return;
    }
    ensureDir(parentOf(path));
    db.insert(gitFiles)
      .values({ path, parent: parentOf(path), name: nameOf(path), kind: "dir", data: null, mtime: clock() })
      .onConflictDoNothing()
      .run();
  }

  function writeSync(pathInput: string, data: Uint8Array | string): void {
    const path = normalize(pathInput);
    ensureDir(parentOf(path));
    const bytes =
      typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const now = clock();
    db.insert(gitFiles)
      .values({ path, parent: parentOf(path), name: nameOf(path), kind: "file", data: bytes, mtime: now })
      .onConflictDoUpdate({ target: gitFiles.path, set: { data: bytes, mtime: now } })
      .run();
  }

  function readSync(pathInput: string): Buffer | null {
    const found = row(normalize(pathInput));
    return found?.kind === "file" ? Buffer.from(found.data as Uint8Array) : null;
  }

  function removeSync(pathInput: string): void {
    db.delete(gitFiles)
      .where(eq(gitFiles.path, normalize(pathInput)))
      .run();
  }

  const promises = {
    async readFile(pathInput: string, options?: string | { encoding?: string }) {
      const path = normalize(pathInput);
      const found = row(path);
      if (!found) throw fsError("ENOENT", path);
      if (found.kind === "dir") throw fsError("EISDIR", path);
      const bytes = Buffer.from(found.data as Uint8Array);
      const encoding = typeof options === "string" ? options : options?.encoding;
      return encoding ? bytes.toString(encoding as BufferEncoding) : bytes;
    },
    async writeFile(path: string, data: Uint8Array | string) {
      writeSync(path, data);
    },
    async unlink(pathInput: string) {
      const path = normalize(pathInput);
      const found = row(path);
      if (!found) throw fsError("ENOENT", path);
      if (found.kind === "dir") throw fsError("EISDIR", path);
      removeSync(path);
    },
    async readdir(pathInput: string) {
      const path = normalize(pathInput);
      const found = row(path);
      if (!found && path !== "/") throw fsError("ENOENT", path);
      if (found && found.kind !== "dir") throw fsError("ENOTDIR", path);
      return db
        .select({ name: gitFiles.name })
        .from(gitFiles)
        .where(eq(gitFiles.parent, path))
        .all()
        .map((r) => r.name)
        .sort();
    },
    async mkdir(pathInput: string) {
      const path = normalize(pathInput);
      if (row(path)) throw fsError("EEXIST", path);
      if (parentOf(path) !== "/" && !row(parentOf(path))) throw fsError("ENOENT", parentOf(path));
      ensureDir(path);
    },
    async rmdir(pathInput: string) {
      const path = normalize(pathInput);
      const found = row(path);
      if (!found) throw fsError("ENOENT", path);
      if (found.kind !== "dir") throw fsError("ENOTDIR", path);
      if (db.select({ path: gitFiles.path }).from(gitFiles).where(eq(gitFiles.parent, path)).limit(1).get())
        throw fsError("ENOTEMPTY", path);
      removeSync(path);
    },
    async stat(pathInput: string) {
      const path = normalize(pathInput);
      if (path === "/") return stats("dir", 0, 0);
      const found = row(path);
      if (!found) throw fsError("ENOENT", path);
      return stats(found.kind, found.data ? (found.data as Uint8Array).byteLength : 0, found.mtime);
    },
    async lstat(path: string) {
      return promises.stat(path);
    },
    /** Git directories Pantheon writes hold no links; isomorphic-git asks only when it meets one. */
    async readlink(path: string): Promise<string> {
      throw fsError("EINVAL", normalize(path));
    },
    async symlink(target: string, path: string) {
      writeSync(path, target);
    },
  };

  return { promises, writeSync, readSync, removeSync };
}

export type SqliteFs = ReturnType<typeof makeSqliteFs>;

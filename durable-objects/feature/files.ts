import { and, asc, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../core/errors";
import { checkPath, checkPrefix, workspaceLimits, type OverlayChange } from "../../core/work";
import * as schema from "./schema";

const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * A feature's workspace: the committed file tree (a version per file, tombstones for deleted ones)
 * and one copy-on-write overlay per task. Who may write is checked by the feature object.
 */
export function makeFileStore(db: DrizzleSqliteDODatabase<typeof schema>) {
  const overlayOf = (task: number): OverlayChange[] =>
    db
      .select({
        path: schema.overlays.path,
        content: schema.overlays.content,
        baseVersion: schema.overlays.baseVersion,
      })
      .from(schema.overlays)
      .where(eq(schema.overlays.task, task))
      .orderBy(asc(schema.overlays.path))
      .all();

  /** A path's version in the tree: the file's, or its tombstone's once deleted; 0 when it never existed. */
  const versionOf = (path: string): number =>
    db.select({ v: schema.files.version }).from(schema.files).where(eq(schema.files.path, path)).get()?.v ??
    db.select({ v: schema.tombstones.version }).from(schema.tombstones).where(eq(schema.tombstones.path, path)).get()
      ?.v ??
    0;

  return {
    overlayOf,
    versionOf,

    seed(files: { path: string; content: string }[], at: number): void {
      for (const file of files)
        db.insert(schema.files)
          .values({ path: file.path, content: file.content, version: 1, task: null, updatedAt: at })
          .run();
    },

    /** Files of the committed tree, or as a task sees them (its overlay over the tree). */
    list(task: number | undefined, prefixInput: string | undefined) {
      const prefix = checkPrefix(prefixInput);
      const tree = new Map(
        db
          .select()
          .from(schema.files)
          .all()
          .map((f) => [f.path, { bytes: bytes(f.content), version: f.version, changed: false }]),
      );
      if (task !== undefined) {
        for (const c of overlayOf(task)) {
          if (c.content === null) tree.delete(c.path);
          else tree.set(c.path, { bytes: bytes(c.content), version: versionOf(c.path), changed: true });
        }
      }
      return [...tree]
        .filter(([path]) => path.startsWith(prefix))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([path, info]) => ({ path, ...info }));
    },

    read(
      task: number | undefined,
      pathInput: string,
    ): { path: string; content: string; version: number; changed: boolean } {
      const path = checkPath(pathInput);
      if (task !== undefined) {
        const change = db
          .select()
          .from(schema.overlays)
          .where(and(eq(schema.overlays.task, task), eq(schema.overlays.path, path)))
          .get();
        if (change) {
          if (change.content === null)
            throw new PantheonError("not_found", `file '${path}' was deleted in task ${task}`, { details: { path } });
          return { path, content: change.content, version: versionOf(path), changed: true };
        }
      }
      const file = db.select().from(schema.files).where(eq(schema.files.path, path)).get();
      if (!file) throw new PantheonError("not_found", `file '${path}' does not exist`, { details: { path } });
      return { path, content: file.content, version: file.version, changed: false };
    },

    /** Writes (content) or deletes (null) a file in the task's overlay; the tree is untouched until commit. */
    write(task: number, pathInput: string, content: string | null): { path: string; bytes: number; deleted: boolean } {
      const path = checkPath(pathInput);
      if (content !== null && bytes(content) > workspaceLimits.fileBytes) {
        throw new PantheonError(
          "payload_too_large",
          `file '${path}' is ${bytes(content)} bytes: at most ${workspaceLimits.fileBytes} bytes a file`,
          { details: { issues: [{ path: ["content"], message: `at most ${workspaceLimits.fileBytes} bytes` }] } },
        );
      }
      const existing = db
        .select()
        .from(schema.overlays)
        .where(and(eq(schema.overlays.task, task), eq(schema.overlays.path, path)))
        .get();
      const inTree = db.select({ v: schema.files.version }).from(schema.files).where(eq(schema.files.path, path)).get();
      if (content === null && !inTree && (!existing || existing.content === null))
        throw new PantheonError("not_found", `file '${path}' does not exist`, { details: { path } });
      if (!existing && overlayOf(task).length >= workspaceLimits.overlayFiles)
        throw new PantheonError("payload_too_large", `a task changes at most ${workspaceLimits.overlayFiles} files`);
      const now = Date.now();
      if (existing)
        db.update(schema.overlays)
          .set({ content, updatedAt: now })
          .where(and(eq(schema.overlays.task, task), eq(schema.overlays.path, path)))
          .run();
      else
        db.insert(schema.overlays)
          .values({ task, path, content, baseVersion: versionOf(path), updatedAt: now })
          .run();
      return { path, bytes: content === null ? 0 : bytes(content), deleted: content === null };
    },

    /** The committed contents of some paths (absent: not in the tree). */
    contents(paths: string[]): Map<string, string> {
      const out = new Map<string, string>();
      for (const path of paths) {
        const row = db
          .select({ content: schema.files.content })
          .from(schema.files)
          .where(eq(schema.files.path, path))
          .get();
        if (row) out.set(path, row.content);
      }
      return out;
    },

    /** Applies an overlay to the tree (each path's version moves on) and drops it. Call inside a transaction. */
    apply(task: number, overlay: OverlayChange[], at: number): void {
      for (const c of overlay) {
        const version = versionOf(c.path) + 1;
        if (c.content === null) {
          db.delete(schema.files).where(eq(schema.files.path, c.path)).run();
          db.insert(schema.tombstones)
            .values({ path: c.path, version })
            .onConflictDoUpdate({ target: schema.tombstones.path, set: { version } })
            .run();
        } else {
          db.insert(schema.files)
            .values({ path: c.path, content: c.content, version, task, updatedAt: at })
            .onConflictDoUpdate({
              target: schema.files.path,
              set: { content: c.content, version, task, updatedAt: at },
            })
            .run();
          db.delete(schema.tombstones).where(eq(schema.tombstones.path, c.path)).run();
        }
      }
      db.delete(schema.overlays).where(eq(schema.overlays.task, task)).run();
    },

    /** Committed files matching workspace paths (files, or folders ending in '/'), in the patterns' order: a spec's context files. */
    matching(patterns: string[]): { path: string; content: string }[] {
      const all = db
        .select({ path: schema.files.path, content: schema.files.content })
        .from(schema.files)
        .orderBy(asc(schema.files.path))
        .all();
      const picked: { path: string; content: string }[] = [];
      for (const pattern of patterns) {
        for (const file of all) {
          const match = pattern.endsWith("/") ? file.path.startsWith(pattern) : file.path === pattern;
          if (match && !picked.some((p) => p.path === file.path)) picked.push(file);
        }
      }
      return picked;
    },

    /** Replaces a task's overlay with the given changes (a merge that conflicted became its working tree). Call inside a transaction. */
    replaceOverlay(task: number, changes: { path: string; content: string | null }[], at: number): void {
      db.delete(schema.overlays).where(eq(schema.overlays.task, task)).run();
      for (const c of changes)
        db.insert(schema.overlays)
          .values({ task, path: c.path, content: c.content, baseVersion: versionOf(c.path), updatedAt: at })
          .run();
    },

    /** Every committed file (the feature branch's checkout): a repository made for a feature that had none starts from it. */
    everything(): { path: string; content: string }[] {
      return db
        .select({ path: schema.files.path, content: schema.files.content })
        .from(schema.files)
        .orderBy(asc(schema.files.path))
        .all();
    },

    /** Gives a task's overlay to another task number (tasks renumbered by a sync). */
    move(fromTask: number, toTask: number): void {
      db.update(schema.overlays).set({ task: toTask }).where(eq(schema.overlays.task, fromTask)).run();
    },

    /** Drops a task's overlay; how many files it held. */
    drop(task: number): number {
      const count = overlayOf(task).length;
      db.delete(schema.overlays).where(eq(schema.overlays.task, task)).run();
      return count;
    },
  };
}

export type FileStore = ReturnType<typeof makeFileStore>;

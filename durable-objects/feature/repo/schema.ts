import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The feature's git directory, one row a file or folder: isomorphic-git reads and writes it through
 * the fs adapter (./sqlite-fs.ts). Objects (loose and packed) and refs all live here, in the
 * object's own SQLite, so a ref and the rows that say what it means move in one transaction.
 */
export const gitFiles = sqliteTable(
  "git_files",
  {
    path: text("path").primaryKey(),
    /** The folder that holds it ('' for the root): readdir lists by it. */
    parent: text("parent").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["file", "dir"] }).notNull(),
    data: blob("data", { mode: "buffer" }),
    mtime: integer("mtime").notNull(),
  },
  (t) => [index("git_files_parent").on(t.parent)],
);

/**
 * The repository's state beside git: the feature branch, where it came from (remote, ref, base
 * commit) and the names of the project secrets that reach the remote (never their values).
 */
export const repoState = sqliteTable("repo_state", {
  id: integer("id").primaryKey(),
  branch: text("branch").notNull(),
  baseCommit: text("base_commit").notNull(),
  remote: text("remote"),
  remoteRef: text("remote_ref"),
  /** The project secret holding the remote's token (HTTP basic password). */
  tokenSecret: text("token_secret"),
});

/** Each task's branch: where it started, and the merge it is resolving (core/work MergeConflict) when one conflicted. */
export const taskBranches = sqliteTable("task_branches", {
  /** The task's stable key: a renumbered task keeps its branch. */
  taskKey: text("task_key").primaryKey(),
  branch: text("branch").notNull(),
  baseCommit: text("base_commit").notNull(),
  conflict: text("conflict", { mode: "json" }),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Pushes, one row an attempt: recorded before the request leaves and finished after the remote
 * took it, so an eviction in between leaves a `pending` row a retry picks up (same branch, same commit).
 */
export const pushes = sqliteTable("pushes", {
  id: text("id").primaryKey(),
  remote: text("remote").notNull(),
  branch: text("branch").notNull(),
  commit: text("commit").notNull(),
  status: text("status", { enum: ["pending", "pushed", "failed"] }).notNull(),
  error: text("error"),
  startedAt: integer("started_at").notNull(),
  finishedAt: integer("finished_at"),
});

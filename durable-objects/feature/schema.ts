import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The feature itself: one row (id 1) in its own Durable Object. */
export const feature = sqliteTable("feature", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  title: text("title").notNull(),
  status: text("status").notNull(),
  orchestrator: text("orchestrator").notNull(),
  /** core/work WorkerTemplate: what each task's worker agent is made from. */
  workerTemplate: text("worker_template", { mode: "json" }).notNull(),
  /** Workspace paths (files, or folders ending in '/') every task's spec includes. */
  contextFiles: text("context_files", { mode: "json" }).notNull(),
  /** The sessions that worked on the feature: `{ agent, sessionId, at }[]`. */
  sessions: text("sessions", { mode: "json" }).notNull().default("[]"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  /** The project the feature belongs to (its object is named `<project>.<feature>`): the runner reaches its agents with it. */
  project: text("project"),
  /** The pause switch: writes are refused and running workers stop at their next step. */
  paused: integer("paused", { mode: "boolean" }).notNull().default(false),
  /** Run-all: tasks start one after another until the end, a block or a failure (`{ by, at }` of the person who started it; null: off). */
  runAll: text("run_all", { mode: "json" }),
  /** Why run-all stopped, for the person (`{ reason, task, at }`); cleared when it starts again. */
  stopped: text("stopped", { mode: "json" }),
  /** When every task was settled (null while work remains). */
  completedAt: integer("completed_at"),
  /** The orchestrator's runs for the feature (`{ runId }[]`): planning and syncing count in the report. */
  plannerRuns: text("planner_runs", { mode: "json" }).notNull().default([]),
  /** The planner's questions before it writes the plan (clarify): `{ id, question, askedAt, answer, answeredBy, answeredAt }[]`. */
  questions: text("questions", { mode: "json" }).notNull().default([]),
  /** How many questions the planner may ask before it writes the plan. */
  maxQuestions: integer("max_questions").notNull().default(3),
  /** Reports of tasks a later plan dropped, kept while their committed files stay in the tree. */
  removedTasks: text("removed_tasks", { mode: "json" }).notNull().default([]),
});

/** Every version of the plan (markdown). A new version starts without comments and unapproved. */
export const planVersions = sqliteTable("plan_versions", {
  version: integer("version").primaryKey(),
  markdown: text("markdown").notNull(),
  author: text("author").notNull(),
  createdAt: integer("created_at").notNull(),
  approvedBy: text("approved_by"),
  approvedAt: integer("approved_at"),
});

/** People's comments, anchored to a line of one plan version. */
export const planComments = sqliteTable("plan_comments", {
  id: text("id").primaryKey(),
  version: integer("version").notNull(),
  line: integer("line").notNull(),
  body: text("body").notNull(),
  author: text("author").notNull(),
  createdAt: integer("created_at").notNull(),
});

/** Tasks synced from the approved plan, with what their worker did. */
export const tasks = sqliteTable("tasks", {
  number: integer("number").primaryKey(),
  key: text("key").notNull().unique(),
  name: text("name").notNull(),
  description: text("description").notNull(),
  status: text("status").notNull(),
  summary: text("summary"),
  /** The worker's open question while the task is blocked, and the answer a person gave. */
  question: text("question"),
  answer: text("answer"),
  answeredBy: text("answered_by"),
  /** core/work TaskSpec, generated when the task starts: the single source of the worker's prompt. */
  spec: text("spec", { mode: "json" }),
  worker: text("worker"),
  /** The worker's runs for this task, in order. */
  runIds: text("run_ids", { mode: "json" }).notNull().default("[]"),
  /** How many times the task was started: an attempt with no run recorded yet was cut off, and is resumed. */
  attempts: integer("attempts").notNull().default(0),
  /** core/work DiffStats of the task's committed (or pending) changes. */
  diff: text("diff", { mode: "json" }),
  startedAt: integer("started_at"),
  completedAt: integer("completed_at"),
  /** Who started, answered, committed and discarded the task, in order: core/work TaskAction[]. */
  actions: text("actions", { mode: "json" }).notNull().default("[]"),
  /** Keys of the tasks it waits for (`depends on 2` in the plan), so a renumbering keeps them. */
  dependsOn: text("depends_on", { mode: "json" }).notNull().default([]),
  /** Where the task came from: `plan` (synced from an approved plan). */
  origin: text("origin").notNull().default("plan"),
  /** The plan version it was last synced from. */
  planVersion: integer("plan_version"),
  updatedAt: integer("updated_at").notNull(),
});

/** The feature's committed file tree: one row a file, its version bumped on every commit that touches it. */
export const files = sqliteTable("files", {
  path: text("path").primaryKey(),
  content: text("content").notNull(),
  version: integer("version").notNull(),
  /** The task whose commit wrote it (null: the feature's starting files). */
  task: integer("task"),
  updatedAt: integer("updated_at").notNull(),
});

/** Deleted files keep their version, so an overlay that started from the file still sees the change. */
export const tombstones = sqliteTable("tombstones", {
  path: text("path").primaryKey(),
  version: integer("version").notNull(),
});

/** A task's copy-on-write overlay: only the files it changed (content null: deleted). */
export const overlays = sqliteTable(
  "overlays",
  {
    task: integer("task").notNull(),
    path: text("path").notNull(),
    content: text("content"),
    /** The file's version when the task first touched it (0: it did not exist). */
    baseVersion: integer("base_version").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.task, t.path] })],
);

/** Applied commits by their key (the committing tool call's id), so a retried commit applies once. */
export const commits = sqliteTable("commits", {
  key: text("key").primaryKey(),
  task: integer("task").notNull(),
  /** What the commit answered the first time: answered again on a retry. */
  outcome: text("outcome", { mode: "json" }).notNull(),
  at: integer("at").notNull(),
});

// The git repository's tables (durable-objects/feature/repo).
export { gitFiles, pushes, repoState, taskBranches } from "./repo/schema";

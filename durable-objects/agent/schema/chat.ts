import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { ImageRef } from "../../../core/ports";

/** Conversation threads of one agent. Exactly one is the default (`is_default = 1`). */
export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  title: text("title").notNull(),
  isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
  forkedFromSession: text("forked_from_session"),
  forkedFromMessage: text("forked_from_message"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * One row per message (never a growing JSON blob). `seq` orders messages across the agent and is
 * the pagination cursor; `id` is the public identifier.
 */
export const messages = sqliteTable(
  "messages",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    sessionId: text("session_id").notNull(),
    role: text("role", { enum: ["system", "user", "assistant", "tool"] }).notNull(),
    content: text("content").notNull(),
    name: text("name"),
    toolCalls: text("tool_calls", { mode: "json" }),
    toolCallId: text("tool_call_id"),
    runId: text("run_id"),
    createdAt: integer("created_at").notNull(),
    /** Images sent with a user message: refs (core/ports ImageRef) as JSON; the bytes are in the image store. */
    images: text("images", { mode: "json" }).$type<ImageRef[]>(),
  },
  (t) => [uniqueIndex("messages_id").on(t.id), index("messages_session_seq").on(t.sessionId, t.seq)],
);

/** Runs: the persisted state machine of each turn or behavior, so an evicted agent resumes. */
export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id").notNull(),
    status: text("status").notNull(),
    trigger: text("trigger").notNull(),
    /** The whole run state (core/run RunState) as JSON, rewritten after every transition. */
    state: text("state", { mode: "json" }).notNull(),
    steps: integer("steps").notNull().default(0),
    tokens: integer("tokens").notNull().default(0),
    error: text("error"),
    /**
     * Whom the run acts for (core/auth RunPrincipal; the state's `origin.principal` is what a resumed
     * run reads): kept as columns so listings show who started each run. Null on runs stored before.
     */
    principalId: text("principal_id"),
    principalScope: text("principal_scope"),
    principalName: text("principal_name"),
    startedAt: integer("started_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [index("runs_started").on(t.startedAt), index("runs_status").on(t.status)],
);

/** One row per step of a run (model call, gate decision, tool call, state change), with timing. */
export const trace = sqliteTable(
  "trace",
  {
    id: text("id").primaryKey(),
    runId: text("run_id").notNull(),
    seq: integer("seq").notNull(),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    data: text("data", { mode: "json" }).notNull(),
    startedAt: integer("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("trace_run_seq").on(t.runId, t.seq)],
);

/** Key/value settings of this agent (its profile pushed by the registry, its script, ...). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** Rate-limit token buckets per tool (core/gates takeToken), persisted so limits hold across restarts. */
export const rateBuckets = sqliteTable("rate_buckets", {
  key: text("key").primaryKey(),
  tokens: real("tokens").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

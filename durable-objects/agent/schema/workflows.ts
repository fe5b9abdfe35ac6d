import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Workflows this agent runs (workflows/): the graph as it was started, its input, and each step's
 * progress (core/workflows WorkflowProgress). Written before anything is sent for a step, so an
 * eviction at any step carries on from here without repeating a finished one.
 */
export const workflowRuns = sqliteTable(
  "workflow_runs",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** core/workflows Workflow, as started (a later script change does not move a running workflow). */
    definition: text("definition", { mode: "json" }).notNull(),
    input: text("input").notNull(),
    /** core/workflows WorkflowProgress. */
    progress: text("progress", { mode: "json" }).notNull(),
    /** running → completed | failed (mirrors progress.status, for the index). */
    status: text("status").notNull(),
    /** core/auth RunPrincipal of whoever started it: its tool steps and questions act with no more. */
    principal: text("principal", { mode: "json" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("workflow_runs_status").on(t.status)],
);

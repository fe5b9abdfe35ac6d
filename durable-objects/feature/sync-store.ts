import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { parsePlanTasks, syncTasks, type TaskStatus } from "../../core/work";
import type { FileStore } from "./files";
import type { TaskRow } from "./task-store";
import * as schema from "./schema";

/**
 * Writes a sync of the tasks to an approved plan version (call inside a transaction): numbers follow
 * the plan's order, each task keeps its key, its dependencies (as keys) and the version it came
 * from; overlays move with their task; orphans are removed and answered (their rows), so the
 * feature keeps the report of one whose files stay in the tree.
 */
export function applyTaskSync(
  db: DrizzleSqliteDODatabase<typeof schema>,
  files: FileStore,
  plan: { version: number; markdown: string },
  now: number,
) {
  const existing = db.select().from(schema.tasks).all();
  const planned = parsePlanTasks(plan.markdown).tasks;
  const sync = syncTasks(
    existing.map((t) => ({
      number: t.number,
      key: t.key,
      name: t.name,
      description: t.description,
      status: t.status as TaskStatus,
      summary: t.summary,
    })),
    planned,
  );
  const byKey = new Map(existing.map((t) => [t.key, t]));
  const dependsOf = new Map(planned.map((p) => [p.key, p.dependsOn]));
  // Numbers move with the plan's order: clear them first so the primary key never collides.
  db.delete(schema.tasks).run();
  for (const t of sync.tasks) {
    const before = byKey.get(t.key);
    const changedBack = before && t.status === "pending" && before.status !== "pending";
    db.insert(schema.tasks)
      .values({
        ...(before && !changedBack ? before : {}),
        number: t.number,
        key: t.key,
        name: t.name,
        description: t.description,
        status: t.status,
        summary: t.summary,
        runIds: before && !changedBack ? before.runIds : [],
        attempts: before && !changedBack ? before.attempts : 0,
        dependsOn: dependsOf.get(t.key) ?? [],
        origin: "plan",
        planVersion: plan.version,
        updatedAt: now,
      })
      .run();
    if (before && before.number !== t.number) files.move(before.number, -t.number);
  }
  for (const orphan of sync.removed) files.drop(orphan.number);
  // Overlays renumbered through negative numbers, so a swap of two tasks cannot mix them.
  for (const t of sync.tasks) files.move(-t.number, t.number);
  const removedRows: TaskRow[] = sync.removed.map((r) => byKey.get(r.key)!).filter((row) => row.diff !== null);
  return { sync, removedRows };
}

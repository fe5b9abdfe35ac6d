import {
  featureReportMarkdown,
  rollUp,
  taskReportMarkdown,
  type FeatureReport,
  type TaskReport,
} from "../../core/work";
import type { FileStore } from "./files";
import { runOf, type RunLookup, type TaskRef, type TaskRow, type TaskStore } from "./task-store";
import type * as schema from "./schema";

type FeatureRow = typeof schema.feature.$inferSelect;

/**
 * A feature's reports (JSON and report.md): its tasks', the tasks a later plan dropped whose
 * committed files stay in the tree, and the planner's runs, each priced by the model that answered.
 */
export function makeReports(deps: { tasks: TaskStore; files: FileStore; row: () => FeatureRow }) {
  async function feature(lookup: RunLookup): Promise<FeatureReport> {
    const f = deps.row();
    const tasks = await deps.tasks.reports(lookup);
    // A removed task's files count while they are still in the tree (a later task may have deleted them).
    const inTree = new Set(deps.files.list(undefined, undefined).map((x) => x.path));
    const removed: TaskReport[] = [];
    for (const row of f.removedTasks as TaskRow[]) {
      const report = await deps.tasks.reportOf(row, lookup);
      const files = report.diff.files.filter((x) => inTree.has(x.path));
      if (files.length === 0) continue;
      removed.push({
        ...report,
        diff: {
          filesChanged: files.length,
          insertions: files.reduce((n, x) => n + x.insertions, 0),
          deletions: files.reduce((n, x) => n + x.deletions, 0),
          files,
        },
      });
    }
    const plannerIds = (f.plannerRuns as { runId: string }[]).map((r) => r.runId);
    const plannerRuns = plannerIds.length
      ? (await lookup(f.orchestrator, plannerIds)).map((r) => runOf(f.orchestrator, r))
      : [];
    return rollUp(
      { name: f.name, title: f.title, status: f.status, createdAt: f.createdAt, completedAt: f.completedAt },
      tasks,
      { removed, plannerRuns },
    );
  }

  return {
    feature,
    async featureMarkdown(lookup: RunLookup, base: string): Promise<string> {
      return featureReportMarkdown(await feature(lookup), base);
    },
    async taskMarkdown(ref: TaskRef, lookup: RunLookup, base: string): Promise<string> {
      const f = deps.row();
      return taskReportMarkdown(
        { name: f.name, title: f.title },
        await deps.tasks.reportOf(deps.tasks.get(ref), lookup),
        base,
      );
    },
  };
}

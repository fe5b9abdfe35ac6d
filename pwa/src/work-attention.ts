import type { FeatureSummary, FeatureTask } from "./api";

/**
 * What a person reads first in the Work area, and how the Work views word what is true. Pure: the
 * views and the unit tests (test/api/pwa-work-attention.test.ts) share it.
 */

/** Fields the feature summary gains with the unattended run (issue 28, flow); absent on older servers. */
export interface FeatureLater {
  paused?: boolean;
  /** Run all is on: who started it, when. */
  runAll?: { by: string; at: number } | null;
  /** Why run all stopped (a block, a failure, a pause), for the person. */
  stopped?: { reason: string; task?: number | string | null; at: number } | null;
  completedAt?: number | null;
  /** Questions and blocked tasks waiting for a person, as the server counts them. */
  needsPerson?: number;
}

/** Fields a task gains with stable keys and the repository (issue 28); absent on older servers. */
export interface TaskLater {
  key?: string;
  origin?: string | null;
  planVersion?: number | null;
  baseCommit?: string | null;
  dependsOn?: number[];
}

export type Feature = FeatureSummary & FeatureLater;

/**
 * Why a feature waits for a person, in words (empty when it does not): its plan waits for review,
 * tasks are blocked, questions wait in the inbox.
 *
 * @example
 * needsOf({ plan: { version: 2, approved: false }, tasks: { byStatus: { blocked: 1 } } }) // ["Plan v2 waits for review", "1 task blocked"]
 */
export function needsOf(f: Pick<Feature, "plan" | "tasks" | "needsPerson">): string[] {
  const needs: string[] = [];
  const review = f.plan && !f.plan.approved ? 1 : 0;
  if (review) needs.push(`Plan v${f.plan!.version} waits for review`);
  const blocked = f.tasks.byStatus["blocked"] ?? 0;
  if (blocked) needs.push(`${blocked} task${blocked === 1 ? "" : "s"} blocked`);
  if (f.needsPerson === undefined) return needs;
  // A server that counts what needs a person counts tasks that failed or stopped part-way too (a
  // person decides what next), and the planner's open questions: what is left over after the rest.
  const stuck = (f.tasks.byStatus["failed"] ?? 0) + (f.tasks.byStatus["partial"] ?? 0);
  if (stuck) needs.push(`${stuck} task${stuck === 1 ? "" : "s"} failed or partial`);
  const questions = f.needsPerson - review - blocked - stuck;
  if (questions > 0) needs.push(`${questions} question${questions === 1 ? "" : "s"} waiting`);
  return needs;
}

/** Features that need a person first, then the newest first. */
export function orderFeatures<F extends Feature>(features: readonly F[]): F[] {
  const waits = (f: F) => (needsOf(f).length ? 0 : 1);
  return [...features].sort((a, b) => waits(a) - waits(b) || b.createdAt - a.createdAt);
}

/** When the feature's work ended: the server's completion time, else (a done feature on an older server) its last change. */
export function endedAt(f: Feature): number | null {
  if (f.completedAt) return f.completedAt;
  return f.status === "done" ? f.updatedAt : null;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What a task card says about its changes, only what is true: "1 uncommitted change",
 * "+12 −3 in 2 files committed · 1 uncommitted change", "No changes yet" (started, nothing written),
 * or nothing for a task not started.
 */
export function changesLabel(t: Pick<FeatureTask, "status" | "diff" | "overlayFiles">): string {
  const parts: string[] = [];
  if (t.diff.filesChanged > 0)
    parts.push(`+${t.diff.insertions} −${t.diff.deletions} in ${plural(t.diff.filesChanged, "file")} committed`);
  if (t.overlayFiles > 0) parts.push(plural(t.overlayFiles, "uncommitted change"));
  if (parts.length) return parts.join(" · ");
  return t.status === "pending" ? "" : "No changes yet";
}

/** A cost as every view shows it: core/models/cost-label.ts. */
export { costLabel } from "../../core/models/cost-label";

/** A commit's short name. */
export const shortSha = (sha: string) => sha.slice(0, 7);

/** Links a question in the inbox may carry (issue 28, flow): the feature and task it is about. */
export interface QuestionLinks {
  kind?: string;
  feature?: string;
  /** Null for the planner's question about the plan (clarify). */
  task?: number | string | null;
  taskKey?: string | null;
}

/** A worker agent is named `<feature>-task-<n>` (core/work's workerNameOf). */
const WORKER_NAME = /^(.+)-task-(\d+)$/;

/**
 * The feature and task an inbox entry is about: the links the server gives, else (an older server)
 * the asking worker's name, `<feature>-task-<n>`. Null for an entry about no feature.
 *
 * @example
 * questionLinkOf({ agent: "login-task-2", tool: "task.block" }) // { feature: "login", task: 2 }
 */
export function questionLinkOf(
  entry: { agent: string; tool?: string } & QuestionLinks,
): { feature: string; task?: number | string } | null {
  if (entry.feature)
    return { feature: entry.feature, ...(entry.task !== undefined && entry.task !== null ? { task: entry.task } : {}) };
  const named = entry.tool === "task.block" || entry.kind === "question" ? WORKER_NAME.exec(entry.agent) : null;
  return named ? { feature: named[1]!, task: Number(named[2]) } : null;
}

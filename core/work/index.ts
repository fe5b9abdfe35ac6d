export {
  taskStatuses,
  describePrincipal,
  actorOf,
  withAction,
  type TaskAction,
  type FeatureStatus,
  type PlannedTask,
  type Principal,
  type TaskRecord,
  type TaskStatus,
} from "./types";
export { parsePlanTasks, taskKey, type ParsedPlan } from "./plan";
export { syncTasks, type TaskSync } from "./sync";
export { assertTaskMove, canMoveTask, isSettled } from "./task-status";
export { authorizeWork, mayDo, type Parties, type WorkAction } from "./ownership";
export { resolveFeature } from "./resolve";
export { buildTaskSpec, specBudgets, type SpecBudgets, type SpecInput, type TaskSpec } from "./spec";
export {
  checkPath,
  checkPrefix,
  diffStats,
  unifiedDiff,
  workspaceLimits,
  type DiffStats,
  type FileStat,
  type OverlayChange,
} from "./workspace";
export {
  pricedRun,
  rollUp,
  totalsOf,
  type FeatureReport,
  type ModelUsage,
  type TaskCommit,
  type TaskReport,
  type TaskRun,
} from "./report";
export { featureReportMarkdown, taskReportMarkdown } from "./report-md";
export { analyzePlan, planSections, type PlanAnalysis, type PlanSection } from "./analysis";
export { allSettled, nextStep, type NextStep, type SequencedTask } from "./sequence";
export {
  answerSchema,
  remoteSchema,
  featureCreateSchema,
  featureNameSchema,
  featurePatchSchema,
  planCommentSchema,
  planWriteSchema,
  taskNumberSchema,
  taskRefSchema,
  taskReportSchema,
  workerTemplateSchema,
  type FeatureCreate,
  type FeaturePatch,
  type WorkerTemplate,
} from "./schemas";

/** The name of a task's worker agent: its own Durable Object and memory, named from feature and task. */
export const workerNameOf = (feature: string, task: number) => `${feature}-task-${task}`;
export * from "./git-merge";
export * from "./git-wire";
export { pullRequestBody } from "./pull-request";
export {
  defaultForge,
  forgeKinds,
  forgeSettingSchema,
  pullRequestRequest,
  type ForgeKind,
  type ForgeSetting,
} from "./forge";

import { DurableObject } from "cloudflare:workers";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { resultOf, type Result } from "../../core/errors";
import type { FetchFn } from "../../core/tools";
import {
  authorizeWork,
  type FeatureCreate,
  type FeaturePatch,
  type Principal,
  type TaskSpec,
  type TaskStatus,
  type WorkerTemplate,
} from "../../core/work";
import migrations from "../../migrations/feature/migrations.js";
import { makeFeatureRecord, type FeatureRecord } from "./feature-record";
import { makeFileStore, type FileStore } from "./files";
import type { CommitOutcome } from "./repo/commit-task";
import { makeFeatureGit, type FeatureGit } from "./repo/feature-git";
import type { FeatureRepoApi } from "./repo/repo-api";
import { makeWorktrees } from "./repo/worktree";
import { makePlanActions, makePlanStore, type PlanActions, type PlanStore, type PlanView } from "./plan-store";
import { makeTaskStore, type RunLookup, type TaskRef, type TaskStore } from "./task-store";
import { makeTaskLifecycle, type TaskLifecycle } from "./tasks/lifecycle";
import { makeTaskWorkspace, type TaskWorkspace } from "./tasks/workspace";
import { makeQuestions, type Questions } from "./questions";
import { makeReports } from "./reports";
import { makeRunner, type Runner } from "./runner";
import { makeWorkNotices } from "./notices";
import { makeWork } from "./work";

export type { RunLookup, TaskRef, WorkerRunInfo } from "./task-store";
import * as schema from "./schema";

type FeatureRow = typeof schema.feature.$inferSelect;

/**
 * One Durable Object per feature (named `<project>.<feature>`): its plan versions and comments, its
 * tasks, and its workspace — a git repository (repo/): the feature branch checked out, a branch per
 * task with its uncommitted changes in an overlay. Every write checks who asks (core/work
 * ownership). Pure rules live in core/work; this shell stores and sequences them.
 */
export class FeatureDO extends DurableObject<Env> {
  private readonly db: DrizzleSqliteDODatabase<typeof schema>;
  private readonly plans: PlanStore;
  private readonly files: FileStore;
  private readonly taskRows: TaskStore;
  private readonly git: FeatureGit;
  /** Tests only: faults between writing a commit's objects and moving its refs, and between recording a push and sending it. */
  beforeRefMove?: () => void;
  beforePushSend?: () => void;
  /** Tests only: the fetch an import reaches its remote with (another Pantheon in-process, through the outbound guard all the same). */
  remoteFetch?: FetchFn;
  private readonly runner: Runner;
  private readonly questions: Questions;
  private readonly planActions: PlanActions;
  private readonly record: FeatureRecord;
  private readonly lifecycle: TaskLifecycle;
  private readonly workspace: TaskWorkspace;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
    this.plans = makePlanStore(this.db);
    this.files = makeFileStore(this.db);
    // A task blocked, a planner's question, run-all stopped, the feature done: each notifies the people who may act (notices.ts).
    const notices = makeWorkNotices({ env, background: (work) => ctx.waitUntil(work) });
    const taskStore = makeTaskStore(this.db, this.files);
    this.taskRows = {
      ...taskStore,
      set: (number, patch) => {
        const before = patch.status ? taskStore.get(number) : null;
        taskStore.set(number, patch);
        if (before) notices.taskChanged(this.record.row(), before, patch);
      },
    };
    this.git = makeFeatureGit(this.db, (fn) => ctx.storage.transactionSync(fn));
    this.record = makeFeatureRecord({
      db: this.db,
      storage: ctx.storage,
      plans: this.plans,
      files: this.files,
      git: this.git,
      runAllView: (f) => this.runner.view(f),
    });
    const touch: FeatureRecord["touch"] = (patch = {}) => {
      const before = "stopped" in patch || "status" in patch || "questions" in patch ? this.record.row() : null;
      this.record.touch(patch);
      if (before) notices.featureChanged(before, this.record.row());
    };
    const parts = { db: this.db, tasks: this.taskRows, row: this.record.row, touch };
    this.runner = makeRunner({ ...parts, storage: ctx.storage });
    this.questions = makeQuestions(parts);
    this.planActions = makePlanActions({ ...parts, plans: this.plans, storage: ctx.storage });
    const stores = {
      db: this.db,
      storage: ctx.storage,
      files: this.files,
      taskRows: this.taskRows,
      git: this.git,
      runner: this.runner,
      row: parts.row,
    };
    this.lifecycle = makeTaskLifecycle({ ...stores, plans: this.plans, touch: parts.touch });
    const worktrees = makeWorktrees(this.files, this.git);
    this.workspace = makeTaskWorkspace({
      ...stores,
      env,
      worktrees,
      finishTask: this.lifecycle.finishTask,
      faults: this,
    });
  }

  // ---- the feature (feature-record.ts) -----------------------------------------------------------

  private row(): FeatureRow {
    return this.record.row();
  }

  create(input: FeatureCreate, project?: string): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(() => this.record.create(input, project));
  }

  /** Name, title, status, orchestrator, sessions, the plan's version and approval, task counts. */
  describe() {
    return this.record.describe();
  }

  /** The operator changes the title, the worker template or the context files (admin, checked by the route). */
  update(patch: FeaturePatch): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(() => this.record.update(patch));
  }

  summary(): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(() => this.describe());
  }

  /** Records that a session (an agent's run) worked on the feature; the orchestrator's runs count in the report. */
  noteSession(agent: string, sessionId: string, runId?: string): Promise<Result<true>> {
    return resultOf(() => this.record.noteSession(agent, sessionId, runId));
  }

  /** Removes every row: the feature was deleted (the schema stays, so the object answers "does not exist", and a feature of the same name starts empty). */
  destroy(): Promise<void> {
    return this.record.destroy();
  }

  // ---- plan (plan-store.ts) ------------------------------------------------------------------

  /** A new plan version (the orchestrator only). It starts unapproved and without comments. */
  writePlan(markdown: string, by: Principal): Promise<Result<PlanView>> {
    return resultOf(() => this.planActions.write(markdown, by));
  }

  /** A plan version with its analysis (each task traced to the plan). */
  readPlan(version?: number): Promise<Result<PlanView>> {
    return resultOf(() => this.plans.view(version));
  }

  /** A person's comment on one line of a plan version (the latest unless named). */
  comment(
    input: { version?: number; line: number; body: string },
    by: Principal,
  ): Promise<Result<typeof schema.planComments.$inferSelect>> {
    return resultOf(() => this.planActions.comment(input, by));
  }

  /** A person (approve scope) approves the latest plan version; naming an older one is refused. */
  approve(version: number | undefined, by: Principal): Promise<Result<PlanView>> {
    return resultOf(() => this.planActions.approve(version, by));
  }

  // ---- tasks --------------------------------------------------------------------------------------
  // ---- tasks (tasks/lifecycle.ts) ----------------------------------------------------------------

  /** Syncs tasks to the approved plan's task list (the orchestrator only): additive, orphans removed, unchanged tasks keep their status. */
  syncTasks(by: Principal) {
    return resultOf(() => this.lifecycle.syncTasks(by));
  }

  /** The board, after reconciling running tasks with their workers' runs (an ended or waiting run the feature was not told of). */
  async tasks(lookup?: RunLookup) {
    return resultOf(async () => {
      this.row();
      if (lookup) await this.lifecycle.reconcile(lookup);
      return this.taskRows.board();
    });
  }

  /** Starts a task (orchestrator or admin): in progress, its spec generated and stored, its worker named; a start cut off answers the same spec again. */
  beginTask(
    ref: TaskRef,
    by: Principal,
    options: { restart?: boolean } = {},
  ): Promise<
    Result<{
      task: number;
      key: string;
      worker: string;
      spec: TaskSpec;
      template: WorkerTemplate;
      orchestrator: string;
      attempt: number;
    }>
  > {
    return resultOf(() => this.lifecycle.beginTask(ref, by, options));
  }

  /** The worker's run for a task started (at most once per attempt: a repeated record is a no-op). */
  recordRun(ref: TaskRef, runId: string): Promise<Result<true>> {
    return resultOf(() => this.lifecycle.recordRun(ref, runId));
  }

  /** The worker asks a person (its task.block call waits for an answer): the task is blocked with the question. */
  markBlocked(ref: TaskRef, question: string, by: Principal): Promise<Result<true>> {
    return resultOf(() => this.lifecycle.markBlocked(ref, question, by));
  }

  /** A person (approve scope) answers a blocked task's question; the caller resumes the worker's waiting run with the answer. */
  answerTask(
    ref: TaskRef,
    answer: string,
    by: Principal,
  ): Promise<Result<{ task: number; key: string; worker: string; runId: string | null; question: string | null }>> {
    return resultOf(() => this.lifecycle.answerTask(ref, answer, by));
  }

  /** What the worker's task.block call returns once a person answered. */
  answerOf(
    ref: TaskRef,
    by: Principal,
  ): Promise<Result<{ question: string | null; answer: string | null; by: string | null }>> {
    return resultOf(() => this.lifecycle.answerOf(ref, by));
  }

  /** The worker sets its own task's status and summary (done, partial or failed). */
  reportTask(
    ref: TaskRef,
    report: { status: "done" | "partial" | "failed"; summary: string },
    by: Principal,
  ): Promise<Result<true>> {
    return resultOf(() => this.lifecycle.reportTask(ref, report, by));
  }

  /** A worker's run ended (told by the worker, or found by a reconcile): a task still in progress is settled from it. */
  workerRunEnded(
    ref: TaskRef,
    run: { runId: string; status: string; error?: string | null; result?: string | null },
  ): Promise<Result<TaskStatus>> {
    return resultOf(() => this.lifecycle.workerRunEnded(ref, run));
  }

  // ---- a task's workspace (tasks/workspace.ts, files.ts, repo/) ----------------------------------

  /** Files of the committed tree, or as a task sees them (its overlay over the tree). */
  listFiles(input: {
    task?: TaskRef;
    prefix?: string;
    ref?: string;
  }): Promise<Result<{ path: string; bytes: number; version: number; changed: boolean }[]>> {
    return resultOf(() => this.workspace.listFiles(input));
  }

  readFile(input: {
    task?: TaskRef;
    path: string;
    ref?: string;
  }): Promise<Result<{ path: string; content: string; version: number; changed: boolean }>> {
    return resultOf(() => this.workspace.readFile(input));
  }

  /** Writes (content) or deletes (null) a file in the task's overlay; the tree is untouched until commit. */
  writeFile(
    input: { task: TaskRef; path: string; content: string | null },
    by: Principal,
  ): Promise<Result<{ path: string; bytes: number; deleted: boolean }>> {
    return resultOf(() => this.workspace.writeFile(input, by));
  }

  /** Commits a task's working tree on its branch and merges it into the feature branch, once per `key` (a retried commit answers what the first did). */
  commitTask(
    input: { task: TaskRef; key: string; summary?: string; status?: "done" | "partial" },
    by: Principal,
  ): Promise<Result<CommitOutcome>> {
    return resultOf(() => this.workspace.commitTask(input, by));
  }

  /** The repository's routes (commits, branches, diffs, resolve, push, pull request, download, git smart-HTTP): repo/repo-api.ts. */
  repo(project: string): FeatureRepoApi {
    return this.workspace.repo(project);
  }

  /** Drops a task's overlay and leaves nothing of it behind; the task is cancelled. */
  discardTask(
    ref: TaskRef,
    by: Principal,
  ): Promise<Result<{ discarded: number; status: TaskStatus; task: number; key: string; worker: string | null }>> {
    return resultOf(() => this.workspace.discardTask(ref, by));
  }

  /** Everything about one task: its record, spec, pending changes and unified diff. */
  taskDetail(ref: TaskRef): Promise<Result<Record<string, unknown>>> {
    return resultOf(() => this.workspace.taskDetail(ref));
  }

  /** Reports: each task's (status, summary, times, diff stats and files, question and answer, runs, tokens, cost) and the feature's roll-up with the planner's runs. */
  async report(lookup: RunLookup) {
    return resultOf(async () => {
      await this.lifecycle.reconcile(lookup);
      return this.reports().feature(lookup);
    });
  }
  /** The feature's report.md (`base`: the server's URL, for links to traces). */
  async reportMarkdown(lookup: RunLookup, base = ""): Promise<Result<string>> {
    return resultOf(async () => {
      await this.lifecycle.reconcile(lookup);
      return this.reports().featureMarkdown(lookup, base);
    });
  }
  async taskReport(ref: TaskRef, lookup: RunLookup, base = ""): Promise<Result<string>> {
    return resultOf(async () => this.reports().taskMarkdown(ref, lookup, base));
  }
  private reports = () => makeReports({ tasks: this.taskRows, files: this.files, row: () => this.row() });

  // ---- run-all and the pause switch (runner.ts), clarify (questions.ts) -------------------------

  runAll(project: string, by: Principal) {
    return resultOf(() => {
      authorizeWork("task.start", by, { orchestrator: this.row().orchestrator });
      return this.runner.start(project, by);
    });
  }
  pause(by: Principal) {
    return resultOf(() => {
      authorizeWork("feature.pause", by, { orchestrator: this.row().orchestrator });
      return this.runner.pause();
    });
  }
  resume(by: Principal) {
    return resultOf(() => {
      authorizeWork("feature.pause", by, { orchestrator: this.row().orchestrator });
      return this.runner.resume();
    });
  }
  /** The runner's alarm: one decision, after a reconcile finds a worker's end the feature was not told of. */
  override async alarm(): Promise<void> {
    const f = this.db.select().from(schema.feature).get();
    if (!f?.project || !f.runAll || f.paused) return;
    const work = makeWork(this.env, f.project);
    await this.lifecycle.reconcile(work.lookup);
    await this.runner.tick((_project, feature, key, by) => work.startTask(feature, key, by));
  }
  askQuestion(question: string, by: Principal, run?: { id: string; sessionId: string }) {
    return resultOf(() => this.questions.ask(question, by, run));
  }
  answerQuestion(id: string, answer: string, by: Principal) {
    return resultOf(() => this.questions.answer(id, answer, by));
  }
  /** The planner's questions: those still open (the inbox), or all of them with their answers. */
  questionList(open = true) {
    return resultOf(() => ({
      orchestrator: this.row().orchestrator,
      questions: open ? this.questions.open() : this.questions.all(),
    }));
  }
}

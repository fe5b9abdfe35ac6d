import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { PantheonError, resultOf, type Result } from "../../core/errors";
import {
  assertTaskMove,
  authorizeWork,
  buildTaskSpec,
  checkPath,
  diffStats,
  unifiedDiff,
  withAction,
  type FeatureCreate,
  type FeaturePatch,
  type FeatureStatus,
  type Principal,
  type TaskSpec,
  type TaskStatus,
  type WorkerTemplate,
} from "../../core/work";
import migrations from "../../migrations/feature/migrations.js";
import { makeFileStore, type FileStore } from "./files";
import { commitTask, signatureOf, type CommitOutcome } from "./repo/commit-task";
import { makeFeatureGit, type FeatureGit } from "./repo/feature-git";
import { FeatureRepoApi } from "./repo/repo-api";
import { makeWorktrees } from "./repo/worktree";
import { makePlanActions, makePlanStore, type PlanActions, type PlanStore, type PlanView } from "./plan-store";
import { emptyDiff, makeTaskStore, type RunLookup, type TaskRef, type TaskRow, type TaskStore } from "./task-store";
import { makeQuestions, type Questions } from "./questions";
import { makeReports } from "./reports";
import { makeRunner, reconcileTasks, type Runner } from "./runner";
import { applyTaskSync } from "./sync-store";
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
  private readonly worktrees: ReturnType<typeof makeWorktrees>;
  /** Tests only: faults between writing a commit's objects and moving its refs, and between recording a push and sending it. */
  beforeRefMove?: () => void;
  beforePushSend?: () => void;
  private readonly runner: Runner;
  private readonly questions: Questions;
  private readonly planActions: PlanActions;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
    this.plans = makePlanStore(this.db);
    this.files = makeFileStore(this.db);
    this.taskRows = makeTaskStore(this.db, this.files);
    this.git = makeFeatureGit(this.db, (fn) => ctx.storage.transactionSync(fn));
    this.worktrees = makeWorktrees(this.files, this.git);
    const parts = { db: this.db, tasks: this.taskRows, row: () => this.row(), touch: (patch?: Partial<FeatureRow>) => this.touch(patch) };
    this.runner = makeRunner({ ...parts, storage: ctx.storage });
    this.questions = makeQuestions(parts);
    this.planActions = makePlanActions({ ...parts, plans: this.plans, storage: ctx.storage });
  }

  // ---- the feature ------------------------------------------------------------------------------

  private row(): FeatureRow {
    const row = this.db.select().from(schema.feature).where(eq(schema.feature.id, 1)).get();
    if (!row) throw new PantheonError("not_found", "this feature does not exist");
    return row;
  }

  private touch(patch: Partial<FeatureRow> = {}): void {
    this.db.update(schema.feature).set({ ...patch, updatedAt: Date.now() }).where(eq(schema.feature.id, 1)).run();
  }

  create(input: FeatureCreate, project?: string): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(async () => {
      if (this.db.select({ id: schema.feature.id }).from(schema.feature).get()) throw new PantheonError("conflict", `feature '${input.name}' already exists`, { details: { feature: input.name } });
      const now = Date.now();
      const seeded = Object.entries(input.files ?? {}).map(([path, content], i) => ({ path: checkPath(path, `files.${i}`), content }));
      this.ctx.storage.transactionSync(() => {
        this.db.insert(schema.feature).values({ id: 1, name: input.name, title: input.title, status: "planning", orchestrator: input.orchestrator, workerTemplate: input.worker, contextFiles: input.contextFiles, sessions: [], createdAt: now, updatedAt: now, project: project ?? null, maxQuestions: input.maxQuestions }).run();
        this.files.seed(seeded, now);
      });
      // An imported feature's repository comes from its remote (repo().importFrom); any other starts with an initial commit.
      if (!input.repository) await this.git.ensure(() => this.files.everything(), signatureOf({ kind: "agent", name: "pantheon" }, now));
      return this.describe();
    });
  }

  /** Name, title, status, orchestrator, sessions, the plan's version and approval, task counts. */
  describe() {
    const f = this.row();
    const plan = this.plans.latest();
    const tasks = this.db.select({ status: schema.tasks.status }).from(schema.tasks).all();
    const byStatus: Record<string, number> = {};
    for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
    return {
      name: f.name,
      title: f.title,
      status: f.status as FeatureStatus,
      orchestrator: f.orchestrator,
      createdAt: f.createdAt,
      updatedAt: f.updatedAt,
      sessions: f.sessions as { agent: string; sessionId: string; at: number }[],
      contextFiles: f.contextFiles as string[],
      worker: f.workerTemplate as WorkerTemplate,
      plan: plan ? { version: plan.version, approved: plan.approvedAt !== null, approvedBy: plan.approvedBy, approvedAt: plan.approvedAt } : null,
      tasks: { total: tasks.length, byStatus },
      /** The feature's own database (plan versions, comments, tasks, files, overlays). */
      storageBytes: this.ctx.storage.sql.databaseSize,
      ...this.runner.view(f),
    };
  }

  /** The operator changes the title, the worker template or the context files (admin, checked by the route). */
  update(patch: FeaturePatch): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(() => {
      this.row();
      this.touch({ ...(patch.title !== undefined ? { title: patch.title } : {}), ...(patch.worker !== undefined ? { workerTemplate: patch.worker } : {}), ...(patch.contextFiles !== undefined ? { contextFiles: patch.contextFiles } : {}), ...(patch.maxQuestions !== undefined ? { maxQuestions: patch.maxQuestions } : {}) });
      return this.describe();
    });
  }

  summary(): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(() => this.describe());
  }

  /** Records that a session (an agent's run) worked on the feature; the orchestrator's runs count in the report. */
  noteSession(agent: string, sessionId: string, runId?: string): Promise<Result<true>> {
    return resultOf(() => {
      const f = this.row();
      const sessions = f.sessions as { agent: string; sessionId: string; at: number }[];
      if (!sessions.some((s) => s.agent === agent && s.sessionId === sessionId)) this.touch({ sessions: [...sessions, { agent, sessionId, at: Date.now() }] });
      const planner = f.plannerRuns as { runId: string }[];
      if (runId && agent === f.orchestrator && !planner.some((r) => r.runId === runId)) this.touch({ plannerRuns: [...planner, { runId }] });
      return true as const;
    });
  }

  /** Removes every row: the feature was deleted (the schema stays, so the object answers "does not exist", and a feature of the same name starts empty). */
  async destroy(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    this.ctx.storage.transactionSync(() => {
      for (const table of [schema.feature, schema.planVersions, schema.planComments, schema.tasks, schema.files, schema.tombstones, schema.overlays, schema.commits, schema.gitFiles, schema.repoState, schema.taskBranches, schema.pushes]) this.db.delete(table).run();
    });
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
  comment(input: { version?: number; line: number; body: string }, by: Principal): Promise<Result<typeof schema.planComments.$inferSelect>> {
    return resultOf(() => this.planActions.comment(input, by));
  }

  /** A person (approve scope) approves the latest plan version; naming an older one is refused. */
  approve(version: number | undefined, by: Principal): Promise<Result<PlanView>> {
    return resultOf(() => this.planActions.approve(version, by));
  }

  // ---- tasks --------------------------------------------------------------------------------------

  /** Syncs tasks to the approved plan's task list (the orchestrator only): additive, orphans removed, unchanged tasks keep their status. */
  syncTasks(by: Principal) {
    return resultOf(() => {
      const f = this.row();
      authorizeWork("tasks.sync", by, { orchestrator: f.orchestrator });
      const plan = this.plans.latest();
      if (!plan || plan.approvedAt === null) throw new PantheonError("conflict", plan ? `plan version ${plan.version} is not approved yet: a person approves it first` : "the feature has no plan yet");
      const now = Date.now();
      const sync = this.ctx.storage.transactionSync(() => {
        const { sync, removedRows } = applyTaskSync(this.db, this.files, plan, now);
        if (removedRows.length) this.touch({ removedTasks: [...(f.removedTasks as TaskRow[]).filter((r) => !removedRows.some((x) => x.key === r.key)), ...removedRows] });
        if (f.status === "approved" && sync.tasks.length > 0) this.touch({ status: "in_progress" });
        else this.touch();
        return sync;
      });
      return { added: sync.added, changed: sync.changed, kept: sync.kept, removed: sync.removed, tasks: this.taskRows.board() };
    });
  }

  /** The board, after reconciling running tasks with their workers' runs (an ended or waiting run the feature was not told of). */
  async tasks(lookup?: RunLookup) {
    return resultOf(async () => {
      this.row();
      if (lookup) await this.reconcile(lookup);
      return this.taskRows.board();
    });
  }

  /**
   * Starts a task (orchestrator or admin): in progress, its spec generated and stored, its worker
   * named. Starting a task that is in progress but has no run yet (the caller was cut off) answers
   * the same spec again, so the caller can finish what it began.
   */
  beginTask(ref: TaskRef, by: Principal, options: { restart?: boolean } = {}): Promise<Result<{ task: number; key: string; worker: string; spec: TaskSpec; template: WorkerTemplate; orchestrator: string; attempt: number }>> {
    return resultOf(async () => {
      // Authorized (and not paused) before anything is written; then the task's branch is made from the feature branch (repo/).
      authorizeWork("task.start", by, { orchestrator: this.row().orchestrator });
      this.runner.assertRunning("starting a task");
      await this.git.ensure(() => this.files.everything(), signatureOf(by, Date.now()));
      await this.git.ensureBranch(this.taskRows.get(ref).key);
      const f = this.row();
      const plan = this.plans.latest();
      if (!plan?.approvedAt) throw new PantheonError("conflict", "the plan is not approved: tasks start only from an approved plan");
      const t = this.taskRows.get(ref);
      const number = t.number;
      const worker = t.worker ?? this.taskRows.freeWorkerName(f.name, t, f.removedTasks as TaskRow[]);
      const runIds = t.runIds as string[];
      // Started, but no run recorded: the caller was cut off; it finishes the same attempt.
      if (t.status === "in_progress" && runIds.length < t.attempts && t.spec) {
        return { task: number, key: t.key, worker, spec: t.spec as TaskSpec, template: f.workerTemplate as WorkerTemplate, orchestrator: f.orchestrator, attempt: t.attempts };
      }
      // A task whose run a pause stopped starts again in progress (its uncommitted work is kept).
      if (!(options.restart && t.status === "in_progress")) assertTaskMove({ number, status: t.status as TaskStatus }, "in_progress");
      const all = this.taskRows.all();
      const spec = buildTaskSpec({
        feature: { name: f.name, title: f.title },
        task: { number, name: t.name, description: t.description },
        tasks: all.map((x) => ({ number: x.number, name: x.name, status: x.status as TaskStatus, summary: x.summary })),
        contextFiles: this.files.matching(f.contextFiles as string[]),
      });
      const now = Date.now();
      const attempt = t.attempts + 1;
      this.taskRows.set(number, { status: "in_progress", spec, worker, attempts: attempt, startedAt: t.startedAt ?? now, completedAt: null, question: null, answer: null, answeredBy: null, ...withAction(t.actions, "start", by, now) });
      if (f.status === "approved") this.touch({ status: "in_progress" });
      return { task: number, key: t.key, worker, spec, template: f.workerTemplate as WorkerTemplate, orchestrator: f.orchestrator, attempt };
    });
  }

  /** The worker's run for a task started (at most once per attempt: a repeated record is a no-op). */
  recordRun(ref: TaskRef, runId: string): Promise<Result<true>> {
    return resultOf(() => {
      const t = this.taskRows.get(ref);
      const runIds = t.runIds as string[];
      if (!runIds.includes(runId)) this.taskRows.set(t.number, { runIds: [...runIds, runId] });
      return true as const;
    });
  }

  /** The worker asks a person (its task.block call waits for an answer): the task is blocked with the question. */
  markBlocked(ref: TaskRef, question: string, by: Principal): Promise<Result<true>> {
    return resultOf(async () => {
      const f = this.row();
      const t = this.taskRows.get(ref);
      authorizeWork("task.block", by, { orchestrator: f.orchestrator, worker: t.worker });
      if (t.status === "blocked" && t.question === question) return true as const;
      assertTaskMove({ number: t.number, status: t.status as TaskStatus }, "blocked");
      this.taskRows.set(t.number, { status: "blocked", question, answer: null, answeredBy: null });
      await this.runner.poke();
      return true as const;
    });
  }

  /**
   * A person (approve scope) answers a blocked task's question: the task is in progress again, and
   * the caller resumes the worker's waiting run with the answer. Answering again the same way is a
   * no-op that answers the same (a retried request).
   */
  answerTask(ref: TaskRef, answer: string, by: Principal): Promise<Result<{ task: number; key: string; worker: string; runId: string | null; question: string | null }>> {
    return resultOf(() => {
      const f = this.row();
      const t = this.taskRows.get(ref);
      const number = t.number;
      authorizeWork("task.answer", by, { orchestrator: f.orchestrator, worker: t.worker });
      const runId = (t.runIds as string[]).at(-1) ?? null;
      if (t.status === "in_progress" && t.answer === answer) return { task: number, key: t.key, worker: t.worker!, runId, question: t.question };
      if (t.status !== "blocked") throw new PantheonError("conflict", `task ${number} is ${t.status}: only a blocked task takes an answer`, { details: { task: number, status: t.status } });
      this.runner.assertRunning("answering a task");
      this.taskRows.set(number, { status: "in_progress", answer, answeredBy: by.kind === "person" ? by.id : by.name, ...withAction(t.actions, "answer", by, Date.now()) });
      return { task: number, key: t.key, worker: t.worker!, runId, question: t.question };
    });
  }

  /** What the worker's task.block call returns once a person answered. */
  answerOf(ref: TaskRef, by: Principal): Promise<Result<{ question: string | null; answer: string | null; by: string | null }>> {
    return resultOf(() => {
      const f = this.row();
      const t = this.taskRows.get(ref);
      authorizeWork("task.block", by, { orchestrator: f.orchestrator, worker: t.worker });
      return { question: t.question, answer: t.answer, by: t.answeredBy };
    });
  }

  /** The worker sets its own task's status and summary (done, partial or failed). */
  reportTask(ref: TaskRef, report: { status: "done" | "partial" | "failed"; summary: string }, by: Principal): Promise<Result<true>> {
    return resultOf(async () => {
      const f = this.row();
      const t = this.taskRows.get(ref);
      authorizeWork("task.report", by, { orchestrator: f.orchestrator, worker: t.worker });
      this.finishTask(t, report.status, report.summary);
      await this.runner.poke();
      return true as const;
    });
  }

  private finishTask(t: TaskRow, status: TaskStatus, summary: string | null): void {
    if (t.status === status) return;
    assertTaskMove({ number: t.number, status: t.status as TaskStatus }, status);
    this.taskRows.set(t.number, { status, ...(summary !== null ? { summary } : {}), completedAt: status === "blocked" ? null : Date.now() });
    this.settleFeature();
  }

  /** The feature is done once every task is done or cancelled. */
  private settleFeature(): void {
    const statuses = this.db.select({ status: schema.tasks.status }).from(schema.tasks).all().map((t) => t.status);
    const f = this.row();
    if (statuses.length > 0 && statuses.every((s) => s === "done" || s === "cancelled")) {
      // Every task settled: run-all has nothing left to start.
      if (f.status !== "done") this.touch({ status: "done", completedAt: Date.now(), runAll: null, stopped: null });
    } else if (f.status === "done") this.touch({ status: "in_progress", completedAt: null });
  }

  /** A worker's run ended (told by the worker, or found by a reconcile): a task still in progress is settled from it. */
  workerRunEnded(ref: TaskRef, run: { runId: string; status: string; error?: string | null; result?: string | null }): Promise<Result<TaskStatus>> {
    return resultOf(async () => {
      let t = this.taskRows.get(ref);
      const number = t.number;
      const runIds = t.runIds as string[];
      // A run that ended before its start was recorded (a quick model) is this attempt's: record it now.
      if (!runIds.includes(run.runId) && t.status === "in_progress" && runIds.length < t.attempts) { this.taskRows.set(number, { runIds: [...runIds, run.runId] }); t = this.taskRows.get(number); }
      if (!(t.runIds as string[]).includes(run.runId) || t.status !== "in_progress") return t.status as TaskStatus;
      // The pause stopped this run: the task stays in progress, and resume starts it again.
      if (run.status === "cancelled" && this.row().paused) return t.status as TaskStatus;
      if (run.status === "failed" || run.status === "cancelled") this.finishTask(t, "failed", `the worker's run ${run.status}: ${run.error ?? "no reason given"}`);
      // Finished without committing: the work waits in the overlay for a person to commit or discard.
      else if (run.status === "completed") this.finishTask(t, "partial", run.result ? `the worker finished without committing: ${run.result}` : "the worker finished without committing");
      await this.runner.poke();
      return this.taskRows.get(number).status as TaskStatus;
    });
  }

  /** Finds what a worker did that the feature was not told of (a waiting question, an ended run). */
  private reconcile(lookup: RunLookup): Promise<void> {
    return reconcileTasks(this.taskRows, lookup, (ref, info) => this.workerRunEnded(ref, info));
  }

  // ---- workspace (files.ts) ---------------------------------------------------------------------

  /** The worker of a task, writing: the task must be its own and in progress (or partial: its work waits uncommitted, and its worker may go on with it). */
  private writer(ref: TaskRef, by: Principal): TaskRow {
    const f = this.row();
    const t = this.taskRows.get(ref);
    authorizeWork("task.files", by, { orchestrator: f.orchestrator, worker: t.worker });
    this.runner.assertRunning("writing files");
    const number = t.number;
    if (t.status !== "in_progress" && t.status !== "partial") throw new PantheonError("conflict", `task ${number} is ${t.status}: files change only while it is in progress (or partial)`, { details: { task: number, status: t.status } });
    return t;
  }

  /** Files of the committed tree, or as a task sees them (its overlay over the tree). */
  listFiles(input: { task?: TaskRef; prefix?: string; ref?: string }): Promise<Result<{ path: string; bytes: number; version: number; changed: boolean }[]>> {
    return resultOf(() => {
      this.row();
      return this.worktrees.list({ ...(input.task !== undefined ? { task: this.taskRows.get(input.task) } : {}), ...(input.ref ? { ref: input.ref } : {}) }, input.prefix);
    });
  }

  readFile(input: { task?: TaskRef; path: string; ref?: string }): Promise<Result<{ path: string; content: string; version: number; changed: boolean }>> {
    return resultOf(() => {
      this.row();
      return this.worktrees.read({ ...(input.task !== undefined ? { task: this.taskRows.get(input.task) } : {}), ...(input.ref ? { ref: input.ref } : {}) }, input.path);
    });
  }

  /** Writes (content) or deletes (null) a file in the task's overlay; the tree is untouched until commit. */
  writeFile(input: { task: TaskRef; path: string; content: string | null }, by: Principal): Promise<Result<{ path: string; bytes: number; deleted: boolean }>> {
    return resultOf(() => this.files.write(this.writer(input.task, by).number, input.path, input.content));
  }

  /**
   * Commits a task's working tree on its branch and merges it into the feature branch, once per
   * `key` (the committing call's id: a retried commit answers what the first did). repo/commit-task.ts.
   */
  commitTask(input: { task: TaskRef; key: string; summary?: string; status?: "done" | "partial" }, by: Principal): Promise<Result<CommitOutcome>> {
    return resultOf(async () => {
      const done = this.db.select().from(schema.commits).where(eq(schema.commits.key, input.key)).get();
      if (done) return done.outcome as CommitOutcome;
      const f = this.row();
      const t = this.taskRows.get(input.task);
      authorizeWork("task.commit", by, { orchestrator: f.orchestrator, worker: t.worker });
      return this.committed(t, input, by);
    });
  }

  /** A commit (the worker's, a person's, a resolution): refused while the feature is paused; the runner hears of it. */
  private async committed(t: TaskRow, input: { key: string; summary?: string; status?: "done" | "partial" }, by: Principal): Promise<CommitOutcome> {
    this.runner.assertRunning("committing");
    const outcome = await commitTask(this.commitDeps(this.row().name), t, input, by);
    await this.runner.poke();
    return outcome;
  }

  private commitDeps(feature: string) {
    return { db: this.db, transact: <T>(fn: () => T) => this.ctx.storage.transactionSync(fn), files: this.files, taskRows: this.taskRows, git: this.git, feature: { name: feature }, finishTask: (t: TaskRow, status: TaskStatus, summary: string | null) => this.finishTask(t, status, summary), clock: Date.now, ...(this.beforeRefMove ? { beforeRefMove: this.beforeRefMove } : {}) };
  }

  /** The repository's routes (commits, branches, diffs, resolve, push, pull request, download, git smart-HTTP): repo/repo-api.ts. */
  repo(project: string): FeatureRepoApi {
    const f = this.row();
    return new FeatureRepoApi({ env: this.env, project, feature: f, git: this.git, files: this.files, taskRows: this.taskRows, transact: (fn) => this.ctx.storage.transactionSync(fn), flush: () => this.ctx.storage.sync(), commit: (t, input, by) => this.committed(t, input, by), ...(this.beforePushSend ? { beforePushSend: this.beforePushSend } : {}) });
  }

  /** Drops a task's overlay and leaves nothing of it behind; the task is cancelled. */
  discardTask(ref: TaskRef, by: Principal): Promise<Result<{ discarded: number; status: TaskStatus; task: number; key: string; worker: string | null }>> {
    return resultOf(async () => {
      const f = this.row();
      const t = this.taskRows.get(ref);
      const number = t.number;
      authorizeWork("task.discard", by, { orchestrator: f.orchestrator, worker: t.worker });
      const discarded = this.ctx.storage.transactionSync(() => {
        const count = this.files.drop(number);
        this.git.dropBranch(t.key);
        this.taskRows.set(number, { diff: null, ...withAction(t.actions, "discard", by, Date.now()) });
        if (t.status !== "cancelled" && t.status !== "done") this.finishTask(t, "cancelled", t.summary);
        return count;
      });
      await this.runner.poke();
      return { discarded, status: this.taskRows.get(number).status as TaskStatus, task: number, key: t.key, worker: t.worker };
    });
  }

  /** Everything about one task: its record, spec, pending changes and unified diff. */
  taskDetail(ref: TaskRef): Promise<Result<Record<string, unknown>>> {
    return resultOf(() => {
      this.row();
      const t = this.taskRows.get(ref);
      const number = t.number;
      const branch = this.git.branchRow(t.key);
      const overlay = this.files.overlayOf(number);
      const committed = this.files.contents(overlay.map((c) => c.path));
      return {
        ...t,
        dependsOn: this.taskRows.numbersOf(t.dependsOn as string[]),
        pending: overlay.length ? diffStats(overlay, committed) : emptyDiff,
        patch: unifiedDiff(overlay, committed),
        ...(branch ? { branch: branch.branch, baseCommit: branch.baseCommit, conflict: branch.conflict ? { files: (branch.conflict as { files: unknown[] }).files } : null } : {}),
      };
    });
  }

  /** Reports: each task's (status, summary, times, diff stats and files, question and answer, runs, tokens, cost) and the feature's roll-up with the planner's runs. */
  async report(lookup: RunLookup) {
    return resultOf(async () => { await this.reconcile(lookup); return this.reports().feature(lookup); });
  }
  /** The feature's report.md (`base`: the server's URL, for links to traces). */
  async reportMarkdown(lookup: RunLookup, base = ""): Promise<Result<string>> {
    return resultOf(async () => { await this.reconcile(lookup); return this.reports().featureMarkdown(lookup, base); });
  }
  async taskReport(ref: TaskRef, lookup: RunLookup, base = ""): Promise<Result<string>> {
    return resultOf(async () => this.reports().taskMarkdown(ref, lookup, base));
  }
  private reports = () => makeReports({ tasks: this.taskRows, files: this.files, row: () => this.row() });

  // ---- run-all and the pause switch (runner.ts), clarify (questions.ts) -------------------------

  runAll(project: string, by: Principal) {
    return resultOf(() => { authorizeWork("task.start", by, { orchestrator: this.row().orchestrator }); return this.runner.start(project, by); });
  }
  pause(by: Principal) { return resultOf(() => { authorizeWork("feature.pause", by, { orchestrator: this.row().orchestrator }); return this.runner.pause(); }); }
  resume(by: Principal) { return resultOf(() => { authorizeWork("feature.pause", by, { orchestrator: this.row().orchestrator }); return this.runner.resume(); }); }
  /** The runner's alarm: one decision, after a reconcile finds a worker's end the feature was not told of. */
  override async alarm(): Promise<void> {
    const f = this.db.select().from(schema.feature).get();
    if (!f?.project || !f.runAll || f.paused) return;
    const work = makeWork(this.env, f.project);
    await this.reconcile(work.lookup);
    await this.runner.tick((_project, feature, key, by) => work.startTask(feature, key, by));
  }
  askQuestion(question: string, by: Principal, run?: { id: string; sessionId: string }) { return resultOf(() => this.questions.ask(question, by, run)); }
  answerQuestion(id: string, answer: string, by: Principal) { return resultOf(() => this.questions.answer(id, answer, by)); }
  /** The planner's questions: those still open (the inbox), or all of them with their answers. */
  questionList(open = true) { return resultOf(() => ({ orchestrator: this.row().orchestrator, questions: open ? this.questions.open() : this.questions.all() })); }
}

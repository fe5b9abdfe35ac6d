import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { PantheonError, resultOf, validationFailed, type Result } from "../../core/errors";
import {
  assertTaskMove,
  authorizeWork,
  buildTaskSpec,
  checkPath,
  diffStats,
  parsePlanTasks,
  rollUp,
  syncTasks,
  unifiedDiff,
  withAction,
  workerNameOf,
  type DiffStats,
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
import { makePlanStore, type PlanStore, type PlanView } from "./plan-store";
import { emptyDiff, makeTaskStore, type RunLookup, type TaskRow, type TaskStore } from "./task-store";
import { commitTask, signatureOf, type CommitOutcome } from "./repo/commit-task";
import { makeFeatureGit, type FeatureGit } from "./repo/feature-git";
import { FeatureRepoApi } from "./repo/repo-api";
import { makeWorktrees } from "./repo/worktree";

export type { RunLookup, WorkerRunInfo } from "./task-store";
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

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema });
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
    this.plans = makePlanStore(this.db);
    this.files = makeFileStore(this.db);
    this.taskRows = makeTaskStore(this.db, this.files);
    this.git = makeFeatureGit(this.db, (fn) => ctx.storage.transactionSync(fn));
    this.worktrees = makeWorktrees(this.files, this.git);
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

  create(input: FeatureCreate): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(async () => {
      if (this.db.select({ id: schema.feature.id }).from(schema.feature).get()) throw new PantheonError("conflict", `feature '${input.name}' already exists`, { details: { feature: input.name } });
      const now = Date.now();
      const seeded = Object.entries(input.files ?? {}).map(([path, content], i) => ({ path: checkPath(path, `files.${i}`), content }));
      this.ctx.storage.transactionSync(() => {
        this.db.insert(schema.feature).values({ id: 1, name: input.name, title: input.title, status: "planning", orchestrator: input.orchestrator, workerTemplate: input.worker, contextFiles: input.contextFiles, sessions: [], createdAt: now, updatedAt: now }).run();
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
    };
  }

  /** The operator changes the title, the worker template or the context files (admin, checked by the route). */
  update(patch: FeaturePatch): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(() => {
      this.row();
      this.touch({ ...(patch.title !== undefined ? { title: patch.title } : {}), ...(patch.worker !== undefined ? { workerTemplate: patch.worker } : {}), ...(patch.contextFiles !== undefined ? { contextFiles: patch.contextFiles } : {}) });
      return this.describe();
    });
  }

  summary(): Promise<Result<ReturnType<FeatureDO["describe"]>>> {
    return resultOf(() => this.describe());
  }

  /** Records that a session (an agent's run) worked on the feature. */
  noteSession(agent: string, sessionId: string): Promise<Result<true>> {
    return resultOf(() => {
      const sessions = this.row().sessions as { agent: string; sessionId: string; at: number }[];
      if (!sessions.some((s) => s.agent === agent && s.sessionId === sessionId)) this.touch({ sessions: [...sessions, { agent, sessionId, at: Date.now() }] });
      return true as const;
    });
  }

  /** Removes every row: the feature was deleted (the schema stays, so the object answers "does not exist", and a feature of the same name starts empty). */
  destroy(): void {
    this.ctx.storage.transactionSync(() => {
      for (const table of [schema.feature, schema.planVersions, schema.planComments, schema.tasks, schema.files, schema.tombstones, schema.overlays, schema.commits, schema.gitFiles, schema.repoState, schema.taskBranches, schema.pushes]) this.db.delete(table).run();
    });
  }

  // ---- plan (plan-store.ts) ------------------------------------------------------------------

  /** A new plan version (the orchestrator only). It starts unapproved and without comments. */
  writePlan(markdown: string, by: Principal): Promise<Result<PlanView>> {
    return resultOf(() => {
      const f = this.row();
      authorizeWork("plan.write", by, { orchestrator: f.orchestrator });
      const parsed = parsePlanTasks(markdown);
      if (parsed.problems.length) throw validationFailed(parsed.problems, `the plan is not valid: ${parsed.problems.map((p) => p.message).join("; ")}`);
      const version = this.ctx.storage.transactionSync(() => {
        const added = this.plans.add(markdown, by.kind === "agent" ? by.name : by.id);
        this.touch(f.status === "approved" ? { status: "planning" } : {});
        return added;
      });
      return this.plans.view(version);
    });
  }

  readPlan(version?: number): Promise<Result<PlanView>> {
    return resultOf(() => this.plans.view(version));
  }

  /** A person's comment on one line of a plan version (the latest unless named). */
  comment(input: { version?: number; line: number; body: string }, by: Principal): Promise<Result<typeof schema.planComments.$inferSelect>> {
    return resultOf(() => {
      const f = this.row();
      authorizeWork("plan.comment", by, { orchestrator: f.orchestrator });
      const plan = this.plans.view(input.version);
      const lines = plan.markdown.split(/\r?\n/).length;
      if (input.line > lines) throw validationFailed([{ path: ["line"], message: `plan version ${plan.version} has ${lines} lines` }], `line ${input.line} is past the end of the plan`);
      const row = { id: crypto.randomUUID(), version: plan.version, line: input.line, body: input.body, author: by.kind === "person" ? by.id : by.name, createdAt: Date.now() };
      this.plans.comment(row);
      this.touch();
      return row;
    });
  }

  /** A person (approve scope) approves the latest plan version; naming an older one is refused. */
  approve(version: number | undefined, by: Principal): Promise<Result<PlanView>> {
    return resultOf(() => {
      const f = this.row();
      authorizeWork("plan.approve", by, { orchestrator: f.orchestrator });
      const plan = this.plans.latest();
      if (!plan) throw new PantheonError("conflict", "the feature has no plan to approve yet");
      if (version !== undefined && version !== plan.version) throw new PantheonError("conflict", `plan version ${version} is not the latest (${plan.version}): review and approve that one`, { details: { version, latest: plan.version } });
      if (plan.approvedAt === null) {
        this.ctx.storage.transactionSync(() => {
          this.plans.approve(plan.version, by.kind === "person" ? by.id : by.name);
          this.touch({ status: f.status === "planning" ? "approved" : f.status });
        });
      }
      return this.plans.view(plan.version);
    });
  }

  // ---- tasks --------------------------------------------------------------------------------------

  /** Syncs tasks to the approved plan's task list (the orchestrator only): additive, orphans removed, unchanged tasks keep their status. */
  syncTasks(by: Principal) {
    return resultOf(() => {
      const f = this.row();
      authorizeWork("tasks.sync", by, { orchestrator: f.orchestrator });
      const plan = this.plans.latest();
      if (!plan || plan.approvedAt === null) throw new PantheonError("conflict", plan ? `plan version ${plan.version} is not approved yet: a person approves it first` : "the feature has no plan yet");
      const existing = this.db.select().from(schema.tasks).all();
      const sync = syncTasks(
        existing.map((t) => ({ number: t.number, key: t.key, name: t.name, description: t.description, status: t.status as TaskStatus, summary: t.summary })),
        parsePlanTasks(plan.markdown).tasks,
      );
      const byKey = new Map(existing.map((t) => [t.key, t]));
      const now = Date.now();
      this.ctx.storage.transactionSync(() => {
        // Numbers move with the plan's order: clear them first so the primary key never collides.
        this.db.delete(schema.tasks).run();
        for (const t of sync.tasks) {
          const before = byKey.get(t.key);
          const changedBack = before && t.status === "pending" && before.status !== "pending";
          this.db
            .insert(schema.tasks)
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
              updatedAt: now,
            })
            .run();
          if (before && before.number !== t.number) this.files.move(before.number, -t.number);
        }
        for (const orphan of sync.removed) this.files.drop(orphan.number);
        // Overlays renumbered through negative numbers, so a swap of two tasks cannot mix them.
        for (const t of sync.tasks) this.files.move(-t.number, t.number);
        if (f.status === "approved" && sync.tasks.length > 0) this.touch({ status: "in_progress" });
        else this.touch();
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
  beginTask(number: number, by: Principal): Promise<Result<{ task: number; worker: string; spec: TaskSpec; template: WorkerTemplate; orchestrator: string; attempt: number }>> {
    return resultOf(async () => {
      authorizeWork("task.start", by, { orchestrator: this.row().orchestrator });
      await this.git.ensure(() => this.files.everything(), signatureOf(by, Date.now()));
      await this.git.ensureBranch(this.taskRows.get(number).key);
      const f = this.row();
      const plan = this.plans.latest();
      if (!plan?.approvedAt) throw new PantheonError("conflict", "the plan is not approved: tasks start only from an approved plan");
      const t = this.taskRows.get(number);
      const worker = workerNameOf(f.name, number);
      const runIds = t.runIds as string[];
      // Started, but no run recorded: the caller was cut off; it finishes the same attempt.
      if (t.status === "in_progress" && runIds.length < t.attempts && t.spec) {
        return { task: number, worker, spec: t.spec as TaskSpec, template: f.workerTemplate as WorkerTemplate, orchestrator: f.orchestrator, attempt: t.attempts };
      }
      assertTaskMove({ number, status: t.status as TaskStatus }, "in_progress");
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
      return { task: number, worker, spec, template: f.workerTemplate as WorkerTemplate, orchestrator: f.orchestrator, attempt };
    });
  }

  /** The worker's run for a task started (at most once per attempt: a repeated record is a no-op). */
  recordRun(number: number, runId: string): Promise<Result<true>> {
    return resultOf(() => {
      const t = this.taskRows.get(number);
      const runIds = t.runIds as string[];
      if (!runIds.includes(runId)) this.taskRows.set(number, { runIds: [...runIds, runId] });
      return true as const;
    });
  }

  /** The worker asks a person (its task.block call waits for an answer): the task is blocked with the question. */
  markBlocked(number: number, question: string, by: Principal): Promise<Result<true>> {
    return resultOf(() => {
      const f = this.row();
      const t = this.taskRows.get(number);
      authorizeWork("task.block", by, { orchestrator: f.orchestrator, worker: t.worker });
      if (t.status === "blocked" && t.question === question) return true as const;
      assertTaskMove({ number, status: t.status as TaskStatus }, "blocked");
      this.taskRows.set(number, { status: "blocked", question, answer: null, answeredBy: null });
      return true as const;
    });
  }

  /**
   * A person (approve scope) answers a blocked task's question: the task is in progress again, and
   * the caller resumes the worker's waiting run with the answer. Answering again the same way is a
   * no-op that answers the same (a retried request).
   */
  answerTask(number: number, answer: string, by: Principal): Promise<Result<{ worker: string; runId: string | null; question: string | null }>> {
    return resultOf(() => {
      const f = this.row();
      const t = this.taskRows.get(number);
      authorizeWork("task.answer", by, { orchestrator: f.orchestrator, worker: t.worker });
      const runId = (t.runIds as string[]).at(-1) ?? null;
      if (t.status === "in_progress" && t.answer === answer) return { worker: t.worker!, runId, question: t.question };
      if (t.status !== "blocked") throw new PantheonError("conflict", `task ${number} is ${t.status}: only a blocked task takes an answer`, { details: { task: number, status: t.status } });
      this.taskRows.set(number, { status: "in_progress", answer, answeredBy: by.kind === "person" ? by.id : by.name, ...withAction(t.actions, "answer", by, Date.now()) });
      return { worker: t.worker!, runId, question: t.question };
    });
  }

  /** What the worker's task.block call returns once a person answered. */
  answerOf(number: number, by: Principal): Promise<Result<{ question: string | null; answer: string | null; by: string | null }>> {
    return resultOf(() => {
      const f = this.row();
      const t = this.taskRows.get(number);
      authorizeWork("task.block", by, { orchestrator: f.orchestrator, worker: t.worker });
      return { question: t.question, answer: t.answer, by: t.answeredBy };
    });
  }

  /** The worker sets its own task's status and summary (done, partial or failed). */
  reportTask(number: number, report: { status: "done" | "partial" | "failed"; summary: string }, by: Principal): Promise<Result<true>> {
    return resultOf(() => {
      const f = this.row();
      const t = this.taskRows.get(number);
      authorizeWork("task.report", by, { orchestrator: f.orchestrator, worker: t.worker });
      this.finishTask(t, report.status, report.summary);
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
      if (f.status !== "done") this.touch({ status: "done" });
    } else if (f.status === "done") this.touch({ status: "in_progress" });
  }

  /** A worker's run ended (told by the worker, or found by a reconcile): a task still in progress is settled from it. */
  workerRunEnded(number: number, run: { runId: string; status: string; error?: string | null; result?: string | null }): Promise<Result<TaskStatus>> {
    return resultOf(() => {
      const t = this.taskRows.get(number);
      if (!(t.runIds as string[]).includes(run.runId) || t.status !== "in_progress") return t.status as TaskStatus;
      if (run.status === "failed" || run.status === "cancelled") this.finishTask(t, "failed", `the worker's run ${run.status}: ${run.error ?? "no reason given"}`);
      // Finished without committing: the work waits in the overlay for a person to commit or discard.
      else if (run.status === "completed") this.finishTask(t, "partial", run.result ? `the worker finished without committing: ${run.result}` : "the worker finished without committing");
      return this.taskRows.get(number).status as TaskStatus;
    });
  }

  private async reconcile(lookup: RunLookup): Promise<void> {
    const running = this.db.select().from(schema.tasks).all().filter((t) => (t.status === "in_progress" || t.status === "blocked") && t.worker && (t.runIds as string[]).length > 0);
    for (const t of running) {
      const runId = (t.runIds as string[]).at(-1)!;
      const [info] = await lookup(t.worker!, [runId]);
      if (!info) continue;
      const fresh = this.taskRows.get(t.number);
      if (fresh.status === "in_progress" && info.question && !fresh.answer) this.taskRows.set(t.number, { status: "blocked", question: info.question.text });
      else if (["completed", "failed", "cancelled"].includes(info.status)) await this.workerRunEnded(t.number, info);
    }
  }

  // ---- workspace (files.ts) ---------------------------------------------------------------------

  /** The worker of a task, writing: the task must be its own and in progress (or partial: its work waits uncommitted, and its worker may go on with it). */
  private writer(number: number, by: Principal): TaskRow {
    const f = this.row();
    const t = this.taskRows.get(number);
    authorizeWork("task.files", by, { orchestrator: f.orchestrator, worker: t.worker });
    if (t.status !== "in_progress" && t.status !== "partial") throw new PantheonError("conflict", `task ${number} is ${t.status}: files change only while it is in progress (or partial)`, { details: { task: number, status: t.status } });
    return t;
  }

  /** Files of the committed tree, or as a task sees them (its overlay over the tree). */
  listFiles(input: { task?: number; prefix?: string; ref?: string }): Promise<Result<{ path: string; bytes: number; version: number; changed: boolean }[]>> {
    return resultOf(() => {
      this.row();
      return this.worktrees.list({ ...(input.task !== undefined ? { task: this.taskRows.get(input.task) } : {}), ...(input.ref ? { ref: input.ref } : {}) }, input.prefix);
    });
  }

  readFile(input: { task?: number; path: string; ref?: string }): Promise<Result<{ path: string; content: string; version: number; changed: boolean }>> {
    return resultOf(() => {
      this.row();
      return this.worktrees.read({ ...(input.task !== undefined ? { task: this.taskRows.get(input.task) } : {}), ...(input.ref ? { ref: input.ref } : {}) }, input.path);
    });
  }

  /** Writes (content) or deletes (null) a file in the task's overlay; the tree is untouched until commit. */
  writeFile(input: { task: number; path: string; content: string | null }, by: Principal): Promise<Result<{ path: string; bytes: number; deleted: boolean }>> {
    return resultOf(() => this.files.write(this.writer(input.task, by).number, input.path, input.content));
  }

  /**
   * Commits a task's working tree on its branch and merges it into the feature branch, once per
   * `key` (the committing call's id: a retried commit answers what the first did). repo/commit-task.ts.
   */
  commitTask(input: { task: number; key: string; summary?: string; status?: "done" | "partial" }, by: Principal): Promise<Result<CommitOutcome>> {
    return resultOf(() => {
      const done = this.db.select().from(schema.commits).where(eq(schema.commits.key, input.key)).get();
      if (done) return done.outcome as CommitOutcome;
      const f = this.row();
      const t = this.taskRows.get(input.task);
      authorizeWork("task.commit", by, { orchestrator: f.orchestrator, worker: t.worker });
      return commitTask(this.commitDeps(f.name), t, input, by);
    });
  }

  private commitDeps(feature: string) {
    return { db: this.db, transact: <T>(fn: () => T) => this.ctx.storage.transactionSync(fn), files: this.files, taskRows: this.taskRows, git: this.git, feature: { name: feature }, finishTask: (t: TaskRow, status: TaskStatus, summary: string | null) => this.finishTask(t, status, summary), clock: Date.now, ...(this.beforeRefMove ? { beforeRefMove: this.beforeRefMove } : {}) };
  }

  /** The repository's routes (commits, branches, diffs, resolve, push, pull request, download, git smart-HTTP): repo/repo-api.ts. */
  repo(project: string): FeatureRepoApi {
    const f = this.row();
    return new FeatureRepoApi({ env: this.env, project, feature: f, git: this.git, files: this.files, taskRows: this.taskRows, transact: (fn) => this.ctx.storage.transactionSync(fn), flush: () => this.ctx.storage.sync(), commit: (t, input, by) => commitTask(this.commitDeps(f.name), t, input, by), ...(this.beforePushSend ? { beforePushSend: this.beforePushSend } : {}) });
  }

  /** Drops a task's overlay and leaves nothing of it behind; the task is cancelled. */
  discardTask(number: number, by: Principal): Promise<Result<{ discarded: number; status: TaskStatus }>> {
    return resultOf(() => {
      const f = this.row();
      const t = this.taskRows.get(number);
      authorizeWork("task.discard", by, { orchestrator: f.orchestrator, worker: t.worker });
      const discarded = this.ctx.storage.transactionSync(() => {
        const count = this.files.drop(number);
        this.git.dropBranch(t.key);
        this.taskRows.set(number, { diff: null, ...withAction(t.actions, "discard", by, Date.now()) });
        if (t.status !== "cancelled" && t.status !== "done") this.finishTask(t, "cancelled", t.summary);
        return count;
      });
      return { discarded, status: this.taskRows.get(number).status as TaskStatus };
    });
  }

  /** Everything about one task: its record, spec, pending changes and unified diff. */
  taskDetail(number: number): Promise<Result<Record<string, unknown>>> {
    return resultOf(() => {
      this.row();
      const t = this.taskRows.get(number);
      const branch = this.git.branchRow(t.key);
      const overlay = this.files.overlayOf(number);
      const committed = this.files.contents(overlay.map((c) => c.path));
      return {
        ...t,
        pending: overlay.length ? diffStats(overlay, committed) : emptyDiff,
        patch: unifiedDiff(overlay, committed),
        ...(branch ? { branch: branch.branch, baseCommit: branch.baseCommit, conflict: branch.conflict ? { files: (branch.conflict as { files: unknown[] }).files } : null } : {}),
      };
    });
  }

  /** Reports: each task's (status, summary, times, diff stats and files, runs with traces, tokens, cost) and the feature's roll-up. */
  async report(lookup: RunLookup) {
    return resultOf(async () => {
      const f = this.row();
      await this.reconcile(lookup);
      return rollUp({ name: f.name, status: f.status }, await this.taskRows.reports(lookup));
    });
  }

}

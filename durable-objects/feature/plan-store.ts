import { asc, desc, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError, validationFailed } from "../../core/errors";
import { analyzePlan, authorizeWork, parsePlanTasks, type Principal } from "../../core/work";
import * as schema from "./schema";

/**
 * A feature's plan versions and the comments anchored to their lines. Who may write is checked by
 * the feature object before it calls here.
 */
export function makePlanStore(db: DrizzleSqliteDODatabase<typeof schema>) {
  const latest = () => db.select().from(schema.planVersions).orderBy(desc(schema.planVersions.version)).limit(1).get();

  /** A version as people read it: its markdown, parsed tasks, comments and the list of versions. */
  function view(version?: number) {
    const plan =
      version === undefined
        ? latest()
        : db.select().from(schema.planVersions).where(eq(schema.planVersions.version, version)).get();
    if (!plan)
      throw new PantheonError(
        "not_found",
        version === undefined ? "the feature has no plan yet" : `plan version ${version} does not exist`,
        { details: { version } },
      );
    const comments = db
      .select()
      .from(schema.planComments)
      .where(eq(schema.planComments.version, plan.version))
      .orderBy(asc(schema.planComments.line), asc(schema.planComments.createdAt))
      .all();
    const tasks = parsePlanTasks(plan.markdown).tasks;
    const versions = db
      .select({
        version: schema.planVersions.version,
        author: schema.planVersions.author,
        createdAt: schema.planVersions.createdAt,
        approvedAt: schema.planVersions.approvedAt,
      })
      .from(schema.planVersions)
      .orderBy(asc(schema.planVersions.version))
      .all();
    return {
      version: plan.version,
      latest: plan.version === latest()!.version,
      markdown: plan.markdown,
      author: plan.author,
      createdAt: plan.createdAt,
      approved: plan.approvedAt !== null,
      approvedBy: plan.approvedBy,
      approvedAt: plan.approvedAt,
      tasks,
      /** Plan ⇄ tasks consistency, shown on the review: each task traced to a section, no section without a task. */
      analysis: analyzePlan(plan.markdown, tasks),
      comments,
      versions,
    };
  }

  return {
    latest,
    view,
    /** Stores the next version; it starts unapproved and without comments. */
    add(markdown: string, author: string): number {
      const version = (latest()?.version ?? 0) + 1;
      db.insert(schema.planVersions).values({ version, markdown, author, createdAt: Date.now() }).run();
      return version;
    },
    comment(row: typeof schema.planComments.$inferInsert): void {
      db.insert(schema.planComments).values(row).run();
    },
    approve(version: number, by: string): void {
      db.update(schema.planVersions)
        .set({ approvedBy: by, approvedAt: Date.now() })
        .where(eq(schema.planVersions.version, version))
        .run();
    },
  };
}

export type PlanStore = ReturnType<typeof makePlanStore>;
export type PlanView = ReturnType<PlanStore["view"]>;

type FeatureRow = typeof schema.feature.$inferSelect;

/** What people and the orchestrator do to the plan, each checked against who may (core/work ownership). */
export function makePlanActions(deps: {
  plans: PlanStore;
  storage: DurableObjectState["storage"];
  row: () => FeatureRow;
  touch: (patch?: Partial<FeatureRow>) => void;
}) {
  const { plans } = deps;
  return {
    write(markdown: string, by: Principal): PlanView {
      const f = deps.row();
      authorizeWork("plan.write", by, { orchestrator: f.orchestrator });
      const parsed = parsePlanTasks(markdown);
      if (parsed.problems.length)
        throw validationFailed(
          parsed.problems,
          `the plan is not valid: ${parsed.problems.map((p) => p.message).join("; ")}`,
        );
      const version = deps.storage.transactionSync(() => {
        const added = plans.add(markdown, by.kind === "agent" ? by.name : by.id);
        deps.touch(f.status === "approved" ? { status: "planning" } : {});
        return added;
      });
      return plans.view(version);
    },
    comment(input: { version?: number; line: number; body: string }, by: Principal) {
      const f = deps.row();
      authorizeWork("plan.comment", by, { orchestrator: f.orchestrator });
      const plan = plans.view(input.version);
      const lines = plan.markdown.split(/\r?\n/).length;
      if (input.line > lines)
        throw validationFailed(
          [{ path: ["line"], message: `plan version ${plan.version} has ${lines} lines` }],
          `line ${input.line} is past the end of the plan`,
        );
      const row = {
        id: crypto.randomUUID(),
        version: plan.version,
        line: input.line,
        body: input.body,
        author: by.kind === "person" ? by.id : by.name,
        createdAt: Date.now(),
      };
      plans.comment(row);
      deps.touch();
      return row;
    },
    approve(version: number | undefined, by: Principal): PlanView {
      const f = deps.row();
      authorizeWork("plan.approve", by, { orchestrator: f.orchestrator });
      const plan = plans.latest();
      if (!plan) throw new PantheonError("conflict", "the feature has no plan to approve yet");
      if (version !== undefined && version !== plan.version)
        throw new PantheonError(
          "conflict",
          `plan version ${version} is not the latest (${plan.version}): review and approve that one`,
          { details: { version, latest: plan.version } },
        );
      if (plan.approvedAt === null) {
        deps.storage.transactionSync(() => {
          plans.approve(plan.version, by.kind === "person" ? by.id : by.name);
          deps.touch({ status: f.status === "planning" ? "approved" : f.status });
        });
      }
      return plans.view(plan.version);
    },
  };
}

export type PlanActions = ReturnType<typeof makePlanActions>;

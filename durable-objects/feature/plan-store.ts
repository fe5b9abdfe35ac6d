import { asc, desc, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError } from "../../core/errors";
import { parsePlanTasks } from "../../core/work";
import * as schema from "./schema";

/**
 * A feature's plan versions and the comments anchored to their lines. Who may write is checked by
 * the feature object before it calls here.
 */
export function makePlanStore(db: DrizzleSqliteDODatabase<typeof schema>) {
  const latest = () => db.select().from(schema.planVersions).orderBy(desc(schema.planVersions.version)).limit(1).get();

  /** A version as people read it: its markdown, parsed tasks, comments and the list of versions. */
  function view(version?: number) {
    const plan = version === undefined ? latest() : db.select().from(schema.planVersions).where(eq(schema.planVersions.version, version)).get();
    if (!plan) throw new PantheonError("not_found", version === undefined ? "the feature has no plan yet" : `plan version ${version} does not exist`, { details: { version } });
    const comments = db.select().from(schema.planComments).where(eq(schema.planComments.version, plan.version)).orderBy(asc(schema.planComments.line), asc(schema.planComments.createdAt)).all();
    const versions = db.select({ version: schema.planVersions.version, author: schema.planVersions.author, createdAt: schema.planVersions.createdAt, approvedAt: schema.planVersions.approvedAt }).from(schema.planVersions).orderBy(asc(schema.planVersions.version)).all();
    return {
      version: plan.version,
      latest: plan.version === latest()!.version,
      markdown: plan.markdown,
      author: plan.author,
      createdAt: plan.createdAt,
      approved: plan.approvedAt !== null,
      approvedBy: plan.approvedBy,
      approvedAt: plan.approvedAt,
      tasks: parsePlanTasks(plan.markdown).tasks,
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
      db.update(schema.planVersions).set({ approvedBy: by, approvedAt: Date.now() }).where(eq(schema.planVersions.version, version)).run();
    },
  };
}

export type PlanStore = ReturnType<typeof makePlanStore>;
export type PlanView = ReturnType<PlanStore["view"]>;

import type { PushEnv } from "../../adapters/web-push";
import {
  featureDoneNotice,
  planQuestionAnswered,
  planQuestionNotice,
  runAllStoppedNotice,
  taskBlockedNotice,
  taskUnblocked,
  type PushJob,
  type PushNotice,
} from "../../core/push";
import type { PlanQuestion } from "./questions";
import type * as schema from "./schema";

type FeatureRow = typeof schema.feature.$inferSelect;
type TaskRow = typeof schema.tasks.$inferSelect;

/**
 * What a feature's work notifies, to the people who may act on it (approve scope): a task blocked on
 * a question (cleared once it goes on), a planner's question (cleared once answered), run-all
 * stopped for a person, and the feature done. Each is
 * one small job on the push queue (workers/push-queue.ts sends it); a person who muted the feature's
 * worker (a blocked task) or orchestrator gets nothing. Notices carry no text the agents wrote.
 * @example
 * const notices = makeWorkNotices({ env, background: (p) => ctx.waitUntil(p) });
 * notices.featureChanged(before, after);
 */
export function makeWorkNotices(deps: { env: Env & PushEnv; background(work: Promise<unknown>): void }) {
  function queue(f: FeatureRow, agent: string | null, notice: PushNotice): void {
    if (!deps.env.PANTHEON_VAPID_KEY || !f.project) return;
    const job: PushJob = {
      kind: "push",
      project: f.project,
      agent: agent ?? f.orchestrator ?? f.name,
      scope: "approve",
      notice,
    };
    deps.background(
      deps.env.PUSH.send(job, { contentType: "json" }).catch((error: unknown) =>
        console.error("push: could not queue", (error as Error)?.message),
      ),
    );
  }

  return {
    /** The feature's row changed: run-all stopped, the feature is done, or the planner asked or was answered. */
    featureChanged(before: FeatureRow, after: FeatureRow): void {
      const project = after.project ?? "default";
      const stopped = after.stopped as { task: number | null } | null;
      if (stopped && !before.stopped)
        queue(after, after.orchestrator, runAllStoppedNotice({ project, feature: after.name, task: stopped.task }));
      if (after.status === "done" && before.status !== "done")
        queue(after, after.orchestrator, featureDoneNotice({ project, feature: after.name }));
      // The planner's questions (clarify): one notice per question asked, cleared once it is answered.
      const was = new Map((before.questions as PlanQuestion[]).map((q) => [q.id, q]));
      for (const q of after.questions as PlanQuestion[]) {
        const old = was.get(q.id);
        if (!old && q.answer === null)
          queue(after, after.orchestrator, planQuestionNotice({ project, feature: after.name, question: q.id }));
        else if (old && old.answer === null && q.answer !== null)
          queue(after, after.orchestrator, planQuestionAnswered({ feature: after.name, question: q.id }));
      }
    },
    /** A task's row changed: blocked on a question, or going on again (its notice clears). */
    taskChanged(f: FeatureRow, before: TaskRow, patch: Partial<TaskRow>): void {
      if (!patch.status || patch.status === before.status) return;
      if (patch.status === "blocked")
        queue(
          f,
          before.worker,
          taskBlockedNotice({ project: f.project ?? "default", feature: f.name, task: before.number, key: before.key }),
        );
      else if (before.status === "blocked")
        queue(f, before.worker, taskUnblocked({ feature: f.name, task: before.number }));
    },
  };
}

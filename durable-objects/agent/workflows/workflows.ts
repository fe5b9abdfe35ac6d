import { eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { RunPrincipal } from "../../../core/auth";
import type { Clock } from "../../../core/ports";
import {
  finishStep,
  initialProgress,
  joinOf,
  questionOf,
  readySteps,
  startStep,
  toolArgsOf,
  type Workflow,
  type WorkflowProgress,
  type WorkflowStep,
} from "../../../core/workflows";
import type { AgentBus } from "../bus";
import type { RunStarts } from "../runs/start";
import type { RunStore } from "../runs/store";
import * as schema from "../schema";

/** Questions and fan-outs of a workflow wait under this pseudo run id (the bus hands their answers back here). */
export const workflowPrefix = "workflow:";

type Row = typeof schema.workflowRuns.$inferSelect;
type ReplyTo = { runId: string; callId: string };

export interface WorkflowDeps {
  db: DrizzleSqliteDODatabase<typeof schema>;
  clock: Clock;
  transaction<T>(fn: () => T): T;
  /**
   * The bus below: asks one agent (`askFor`, idempotent per `replyTo`) or starts (or finds, by id) a
   * fan-out; the answer or decision comes back through `take(replyTo, …)`, which the bus is given.
   */
  bus: Pick<AgentBus, "askFor" | "startFanOut">;
  /** Runs one of the agent's tools through its gates, as a manual run of `principal` (runs/start.ts). */
  starts: Pick<RunStarts, "invokeTool" | "settledTool">;
  /** Where a workflow's steps are traced (under its pseudo run id). */
  runs: Pick<RunStore, "appendTrace">;
  /** Work that outlasts the call that started it (a step's tool run). */
  background(work: Promise<unknown>): void;
}

/**
 * Workflows: a graph of steps (core/workflows) run durably by the agent. Each step's start is
 * written before anything is sent for it, and every way a step is started is idempotent (a
 * question by its outbox key, a fan-out by its id, a tool step by the run id written with its
 * start), so after an eviction `recover` starts again only the steps that were under way — their
 * questions are not asked twice, their tool runs are adopted, not doubled — and never a finished
 * one. Answers and decisions come back through the bus as for a run (`answer`).
 * @example
 * const { id } = await workflows.start({ workflow, input: "PR #12" }, principal);
 * workflows.view(id); // { status: "running", steps: [{ id: "a", state: "done", output: "…" }, …] }
 */
export function makeWorkflows(deps: WorkflowDeps) {
  const { db, clock } = deps;
  const trace = (runId: string, name: string, data: Record<string, unknown>) =>
    void deps.runs.appendTrace({ runId, kind: "message", name, data, startedAt: clock.now(), durationMs: 0 });
  const get = (id: string): Row | undefined =>
    db.select().from(schema.workflowRuns).where(eq(schema.workflowRuns.id, id)).get();
  const runIdOf = (id: string) => `${workflowPrefix}${id}`;
  const fanOutIdOf = (id: string, step: string) => `wf.${id}.${step}`;
  /** What a step's record points at, written with its start: a fan-out's id, a tool step's run id. */
  const refOf = (id: string, step: WorkflowStep) =>
    step.kind === "fanout" ? fanOutIdOf(id, step.id) : step.kind === "tool" ? crypto.randomUUID() : undefined;
  /**
   * Tool step runs this instance is waiting on, so a watchdog's `recover` does not start a second wait
   * beside the first. Only this instance's: across an eviction the run id written with the step decides.
   */
  const toolsInFlight = new Set<string>();
  /**
   * A running tool step with no run id (started by a version that did not write one): one is written
   * now, before its call. Undefined when the step is no longer running.
   */
  const assignRun = (id: string, stepId: string): string | undefined =>
    deps.transaction(() => {
      const progress = get(id)?.progress as WorkflowProgress | undefined;
      const record = progress?.steps[stepId];
      if (record?.state !== "running") return undefined;
      if (record.ref) return record.ref;
      const ref = crypto.randomUUID();
      save(id, { ...progress!, steps: { ...progress!.steps, [stepId]: { ...record, ref } } });
      return ref;
    });
  const save = (id: string, progress: WorkflowProgress) =>
    db
      .update(schema.workflowRuns)
      .set({ progress, status: progress.status, updatedAt: clock.now() })
      .where(eq(schema.workflowRuns.id, id))
      .run();

  /** Sends what a started step needs (again after an eviction: each way is idempotent). */
  async function launch(row: Row, step: WorkflowStep, progress: WorkflowProgress, adopt = false): Promise<void> {
    const replyTo = { runId: runIdOf(row.id), callId: step.id };
    const principal = row.principal as RunPrincipal;
    switch (step.kind) {
      case "ask":
        return deps.bus.askFor(replyTo, step.agent, questionOf(step, row.input, progress), principal);
      case "fanout": {
        const { id: _id, kind: _kind, input: _input, after: _after, ...spec } = step;
        return void (await deps.bus.startFanOut(
          { ...spec, id: fanOutIdOf(row.id, step.id), question: questionOf(step, row.input, progress), principal },
          replyTo,
        ));
      }
      case "tool": {
        // A tool step is a run of its own (gates, approval, trace); its end is the step's. Its run id
        // (and so its idempotency key, `<run>:manual-call`) was written with the step's start, before
        // the call: after an eviction the step adopts that run — carried on by the run's own recovery,
        // or started under that id if its record was never written — and never starts another. Not an
        // SDK fiber (`runFiber`): the run is already a durable record its driver carries on; a fiber
        // would be a second ledger of the same call, and its recovery hook would still have to find the run.
        const runId = progress.steps[step.id]?.ref ?? assignRun(row.id, step.id);
        if (!runId || toolsInFlight.has(runId)) return;
        toolsInFlight.add(runId);
        const settle = async () => {
          const earlier = adopt ? await deps.starts.settledTool(runId) : undefined;
          // Still under way after the run's own recovery settled: the next `recover` looks again.
          if (earlier === null) return;
          const call =
            earlier ??
            (await deps.starts.invokeTool(step.tool, toolArgsOf(step, row.input, progress), principal, runId));
          await answer(
            replyTo,
            "ok" in call && call.ok
              ? { answer: call.output }
              : { error: "error" in call ? call.error.message : `the tool's run is ${call.status}` },
            call.runId,
          );
        };
        deps.background(
          settle()
            .catch((error: unknown) =>
              answer(replyTo, { error: error instanceof Error ? error.message : String(error) }),
            )
            .finally(() => toolsInFlight.delete(runId)),
        );
        return;
      }
      case "join": {
        const joined = joinOf(step, progress);
        return answer(
          replyTo,
          joined.ok
            ? { answer: joined.answer }
            : { error: `${joined.policy} join ${joined.outcome.replace("_", " ")}: ${joined.answer}` },
        );
      }
    }
  }

  /** Starts every step whose edges are done; joins finish at once, so this loops until nothing is ready. */
  async function advance(id: string): Promise<void> {
    for (;;) {
      const row = get(id);
      if (!row) return;
      const workflow = row.definition as Workflow;
      const ready = readySteps(workflow, row.progress as WorkflowProgress);
      if (!ready.length) return;
      // Only the steps this call moved from pending: two answers advancing at once never start a step twice.
      const { progress, started } = deps.transaction(() => {
        let p = get(id)!.progress as WorkflowProgress;
        const mine = ready.filter((step) => p.steps[step.id]?.state === "pending");
        for (const step of mine) p = startStep(p, step.id, clock.now(), refOf(id, step));
        save(id, p);
        return { progress: p, started: mine };
      });
      if (!started.length) return;
      for (const step of started) trace(runIdOf(id), "step_started", { step: step.id, kind: step.kind });
      for (const step of started) await launch(row, step, progress);
    }
  }

  /** A step's answer (a question's, a fan-out's decision, a tool's, a join's); a repeat changes nothing. */
  async function answer(replyTo: ReplyTo, reply: { answer?: string; error?: string }, ref?: string): Promise<void> {
    const id = replyTo.runId.slice(workflowPrefix.length);
    const finished = deps.transaction(() => {
      const row = get(id);
      if (!row) return undefined;
      const before = row.progress as WorkflowProgress;
      if (before.steps[replyTo.callId]?.state !== "running") return undefined;
      let after = finishStep(
        row.definition as Workflow,
        before,
        replyTo.callId,
        reply.error !== undefined ? { error: reply.error } : { output: reply.answer ?? "" },
        clock.now(),
      );
      if (ref)
        after = { ...after, steps: { ...after.steps, [replyTo.callId]: { ...after.steps[replyTo.callId]!, ref } } };
      save(id, after);
      return after;
    });
    if (!finished) return;
    const record = finished.steps[replyTo.callId]!;
    trace(replyTo.runId, "step_finished", {
      step: replyTo.callId,
      state: record.state,
      ...(record.output !== undefined ? { output: record.output } : {}),
      ...(record.error !== undefined ? { error: record.error } : {}),
    });
    if (finished.status !== "running") {
      trace(replyTo.runId, "workflow_finished", {
        status: finished.status,
        ...(finished.output !== undefined ? { output: finished.output } : {}),
        ...(finished.error !== undefined ? { error: finished.error } : {}),
      });
      return;
    }
    await advance(id);
  }

  return {
    /** Starts a workflow (or finds the one with this id) and sends its first steps. */
    async start(
      input: { workflow: Workflow; input: string; id?: string },
      principal: RunPrincipal,
    ): Promise<{ id: string }> {
      const id = input.id ?? crypto.randomUUID();
      if (!get(id)) {
        const now = clock.now();
        db.insert(schema.workflowRuns)
          .values({
            id,
            name: input.workflow.name,
            definition: input.workflow,
            input: input.input,
            progress: initialProgress(input.workflow),
            status: "running",
            principal,
            createdAt: now,
            updatedAt: now,
          })
          .run();
        trace(runIdOf(id), "workflow_started", {
          workflow: input.workflow.name,
          steps: input.workflow.steps.map((s) => s.id),
          input: input.input,
          by: principal.name,
        });
      }
      await advance(id);
      return { id };
    },

    /** The bus hands an answer here when `replyTo.runId` is a workflow's: true when it was taken. */
    take(replyTo: ReplyTo, reply: { answer?: string; error?: string }): boolean {
      if (!replyTo.runId.startsWith(workflowPrefix)) return false;
      void answer(replyTo, reply).catch((error: unknown) => console.error("workflow step", error));
      return true;
    },

    /**
     * After an eviction (and on the watchdog): steps that were under way are sent again (idempotently)
     * — a tool step adopts the run written with its start — and ready ones started.
     */
    async recover(): Promise<void> {
      for (const row of db.select().from(schema.workflowRuns).where(eq(schema.workflowRuns.status, "running")).all()) {
        const progress = row.progress as WorkflowProgress;
        for (const step of (row.definition as Workflow).steps)
          if (progress.steps[step.id]?.state === "running") await launch(row, step, progress, true);
        await advance(row.id);
      }
    },

    /** A workflow as the API and the PWA show it: its graph, each step's state, answer and trace link. */
    view(id: string, agent: string) {
      const row = get(id);
      if (!row) return undefined;
      const workflow = row.definition as Workflow;
      const progress = row.progress as WorkflowProgress;
      const base = `/api/agents/${agent}`;
      const steps = workflow.steps.map((step) => {
        const record = progress.steps[step.id] ?? { state: "pending" as const };
        const trace =
          step.kind === "fanout"
            ? `${base}/fanouts/${fanOutIdOf(id, step.id)}`
            : step.kind === "tool" && record.ref
              ? `${base}/runs/${record.ref}`
              : step.kind === "ask"
                ? `/api/conversations/${runIdOf(id)}`
                : null;
        const what =
          step.kind === "ask"
            ? `asks ${step.agent}`
            : step.kind === "fanout"
              ? `${step.policy} of ${step.targets.join(", ")}`
              : step.kind === "tool"
                ? `runs ${step.tool}`
                : `${step.policy} of ${step.after.join(", ")}`;
        return { id: step.id, kind: step.kind, what, after: step.after, ...record, trace };
      });
      return {
        id,
        name: row.name,
        input: row.input,
        status: progress.status,
        output: progress.output ?? null,
        error: progress.error ?? null,
        steps,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      };
    },

    waiting(): number {
      return db
        .select({ id: schema.workflowRuns.id })
        .from(schema.workflowRuns)
        .where(eq(schema.workflowRuns.status, "running"))
        .all().length;
    },
  };
}

export type Workflows = ReturnType<typeof makeWorkflows>;
/** A workflow run as GET /api/agents/:name/workflows/:id answers it. */
export type WorkflowView = NonNullable<ReturnType<Workflows["view"]>>;

import type { AgentProfile } from "../../../core/agents";
import { PantheonError } from "../../../core/errors";
import type { RunState } from "../../../core/run";
import { makeWork } from "../../feature/work";
import type { WorkerRunInfo } from "../../feature/feature-do";
import type { RunEvent } from "../chat/live";
import type { makeSettingsStore } from "../chat/settings";

type SettingsStore = ReturnType<typeof makeSettingsStore>;
import type { SessionStore } from "../chat/sessions";
import type { AgentHost } from "../host";
import type { RunDriver } from "../runs/driver";
import type { Turns } from "../runs/turns";
import type { RunStore } from "../runs/store";
import { taskRefOf, workToolSource, type WorkBinding } from "./tools";
import type { Scope } from "../../../core/auth";

export { workToolNames, type WorkBinding } from "./tools";

/** A pending call as the approvals inbox lists it (runs/driver pendingApprovals). */
type Pending = {
  runId: string;
  callId: string;
  tool: string;
  arguments: Record<string, unknown>;
  requestedAt: number;
  approverScope: Scope;
};

/**
 * The work tools (features, plans, tasks, the workspace) and this agent's binding to the task it
 * works: below the run's context, which lists the tools, and the work feature, which binds.
 */
export function makeWorkTools(deps: { host: Pick<AgentHost, "env" | "project">; settings: SettingsStore }) {
  const binding = () => deps.settings.get<WorkBinding>("work") ?? null;
  const work = () => makeWork(deps.host.env, deps.host.project());
  return { binding, work, toolSource: (profile: AgentProfile) => workToolSource(profile, { work: work(), binding }) };
}

export type WorkTools = ReturnType<typeof makeWorkTools>;

/**
 * An agent's part in features: for a task's worker its binding to the task, the run that works it
 * (started once per attempt) and what it tells the feature (a question waiting for a person, a run
 * that ended).
 */
export function makeWorkFeature(deps: {
  host: Pick<AgentHost, "agentName" | "background">;
  tools: WorkTools;
  settings: SettingsStore;
  runs: RunStore;
  driver: Pick<RunDriver, "latest" | "pendingApprovals" | "decide">;
  sessions: Pick<SessionStore, "create">;
  /** A task's run is a turn of its worker (runs/turns.ts). */
  turns: Pick<Turns, "turn">;
}) {
  const { work, binding } = deps.tools;
  const me = () => ({ kind: "agent" as const, name: deps.host.agentName() });
  const driver = deps.driver;

  /** Starts a turn and resolves with its run id as soon as the run is written (it goes on after). */
  function startTurn(input: { content: string; session: string; title: string }): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      let started = false;
      // Only an admin starts a task (its route, or `task.start`, an admin tool): its worker's run acts as one.
      const principal = {
        id: "task",
        scope: "admin" as const,
        name: `worker of '${input.title}' (a task only an admin starts)`,
      };
      const done = deps.turns.turn({ content: input.content, session: input.session, principal }, (event) => {
        if (event.type === "run" && !started) {
          started = true;
          resolve(event.runId);
        }
      });
      deps.host.background(
        done.then(
          () => !started && reject(new Error("the task's turn ended before its run was written")),
          (error: unknown) => !started && reject(error),
        ),
      );
    });
  }

  function pendingQuestion(state: RunState): { callId: string; text: string } | null {
    if (state.status !== "waiting_approval") return null;
    const rc = state.calls.find((c) => c.status === "proposed" && c.call.name === "task.block");
    return rc ? { callId: rc.call.id, text: String(rc.call.arguments.question ?? "") } : null;
  }

  return {
    binding,

    /** Binds this agent to a task, once: an agent already working another task (or feature) is refused. */
    bind(next: WorkBinding): true {
      const current = binding();
      const same =
        current &&
        current.feature === next.feature &&
        (current.key && next.key ? current.key === next.key : current.task === next.task);
      if (current && !same) {
        throw new PantheonError(
          "conflict",
          `agent '${deps.host.agentName()}' works on task '${current.key ?? current.task}' of feature '${current.feature}'`,
          { details: { binding: current } },
        );
      }
      // A binding from before keys gains its task's key, so it follows the task through renumbering.
      if (!current || (!current.key && next.key)) deps.settings.set("work", next);
      return true;
    },

    /** Starts the task's run once per key: a repeated start (the caller was cut off) answers the same run. */
    async start(input: { key: string; content: string; title: string }): Promise<{ runId: string; sessionId: string }> {
      if (!binding()) throw new PantheonError("conflict", `agent '${deps.host.agentName()}' is not a task's worker`);
      const started = deps.settings.get<{ runId: string; sessionId: string }>(`work-run:${input.key}`);
      if (started) return started;
      const sessionId = deps.sessions.create(input.title).id;
      const runId = await startTurn({ content: input.content, session: sessionId, title: input.title });
      deps.settings.set(`work-run:${input.key}`, { runId, sessionId });
      return { runId, sessionId };
    },

    /** What the feature needs to know of this worker's runs: status, outcome, an open question, tokens, model. */
    runs(runIds: string[]): WorkerRunInfo[] {
      return runIds.flatMap((runId) => {
        const row = deps.runs.get(runId);
        if (!row) return [];
        const state = (driver.latest(runId) ?? row.state) as RunState;
        const models = state.modelUsage
          ? Object.entries(state.modelUsage).map(([model, u]) => ({ model, ...u }))
          : undefined;
        return [
          {
            runId,
            status: state.status,
            error: state.error ?? null,
            result: state.result ?? null,
            question: pendingQuestion(state),
            inputTokens: state.usage.inputTokens,
            outputTokens: state.usage.outputTokens,
            model: state.origin.model?.name ?? null,
            ...(models ? { models } : {}),
          },
        ];
      });
    },

    /**
     * Every question call of this worker waiting for a person goes on (answered: the feature has the
     * answer, which task.block returns) or is refused (the task moved on): none stays in the inbox.
     * Answers the runs it moved.
     */
    async settleQuestions(input: { approved: boolean; by: string; reason?: string }): Promise<string[]> {
      const moved: string[] = [];
      for (const p of driver.pendingApprovals().filter((x) => x.tool === "task.block")) {
        // The answer route needs `approve`; `task.block` itself needs only `chat`.
        await driver.decide(p.runId, {
          approved: input.approved,
          by: input.by,
          scope: "approve",
          callId: p.callId,
          ...(input.reason ? { reason: input.reason } : {}),
        });
        moved.push(p.runId);
      }
      return moved;
    },

    /** A question is answered only as an answer: approving or rejecting a task.block call is refused, naming the way. */
    refuseQuestionDecision(runId: string, callId?: string): void {
      const state = driver.latest(runId) as RunState | undefined;
      const pending = state?.calls.filter((c) => c.status === "proposed") ?? [];
      const target = callId ? pending.find((c) => c.call.id === callId) : pending.length === 1 ? pending[0] : undefined;
      if (target?.call.name !== "task.block") return;
      const b = binding();
      const where = b
        ? `pantheon tasks answer ${b.feature} ${b.key ?? b.task} "<answer>" (POST /api/features/${b.feature}/tasks/${b.key ?? b.task}/answer)`
        : "the task's answer route";
      throw new PantheonError(
        "conflict",
        `call '${target.call.id}' is a worker's question to a person: answer it with ${where}; approving would let the worker go on without an answer while its task stays blocked`,
        {
          details: {
            run: runId,
            callId: target.call.id,
            tool: "task.block",
            hint: b ? `pantheon tasks answer ${b.feature} ${b.key ?? b.task} "<answer>"` : undefined,
          },
        },
      );
    },

    /** The inbox entries of this agent, a worker's questions marked as such with their feature and task. */
    labelApprovals(pending: Pending[]) {
      const b = binding();
      return pending.map((p) =>
        p.tool === "task.block" && b
          ? {
              ...p,
              kind: "question" as const,
              feature: b.feature,
              task: b.task,
              taskKey: b.key ?? null,
              question: String(p.arguments.question ?? ""),
              answer: `pantheon tasks answer ${b.feature} ${b.key ?? b.task} "<answer>"`,
            }
          : { ...p, kind: "approval" as const },
      );
    },

    /** Tells the feature what a worker's run did: asked a person, or ended. Best effort: the feature reconciles on read. */
    onRunEvent(event: RunEvent, runId: string): void {
      // Called for every streamed token: only a status change or a run's end may concern the feature,
      // so the binding (a settings read) is looked up for those alone.
      if (event.type !== "status" && event.type !== "done") return;
      const b = binding();
      if (!b) return;
      const feature = () => work().feature(b.feature);
      const task = taskRefOf(b);
      if (event.type === "status" && event.status === "waiting_approval") {
        const state = driver.latest(runId);
        const question = state ? pendingQuestion(state as RunState) : null;
        if (question)
          deps.host.background(
            feature()
              .markBlocked(task, question.text, me())
              .catch((error: unknown) => console.error("work: markBlocked", error)),
          );
      }
      if (event.type === "done") {
        const state = driver.latest(runId) as RunState | undefined;
        deps.host.background(
          feature()
            .workerRunEnded(task, {
              runId,
              status: event.status,
              error: state?.error ?? null,
              result: state?.result ?? event.reply?.content ?? null,
            })
            .catch((error: unknown) => console.error("work: workerRunEnded", error)),
        );
      }
    },
  };
}

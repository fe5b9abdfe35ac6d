import type { AgentProfile } from "../../../core/agents";
import { PantheonError } from "../../../core/errors";
import type { RunState } from "../../../core/run";
import { makeWork } from "../../feature/work";
import type { WorkerRunInfo } from "../../feature/feature-do";
import type { RunEvent } from "../chat/live";
import type { makeSettingsStore } from "../chat/settings";

type SettingsStore = ReturnType<typeof makeSettingsStore>;
import type { RunDriver } from "../runs/driver";
import type { RunStore } from "../runs/store";
import { workToolSource, type WorkBinding } from "./tools";

export { workToolNames, type WorkBinding } from "./tools";

/**
 * An agent's part in features: its work tools, and for a task's worker its binding to the task, the
 * run that works it (started once per attempt) and what it tells the feature (a question waiting
 * for a person, a run that ended).
 */
export function makeWorkFeature(deps: {
  env: Env;
  project: () => string;
  agent: () => string;
  settings: SettingsStore;
  runs: RunStore;
  driver: () => RunDriver;
  newSession: (title: string) => string;
  /** Starts a turn and resolves with its run id as soon as the run is written (it goes on after). */
  startTurn: (input: { content: string; session: string; title: string }) => Promise<string>;
  waitUntil: (promise: Promise<unknown>) => void;
}) {
  const work = () => makeWork(deps.env, deps.project());
  const binding = () => deps.settings.get<WorkBinding>("work") ?? null;
  const me = () => ({ kind: "agent" as const, name: deps.agent() });

  function pendingQuestion(state: RunState): { callId: string; text: string } | null {
    if (state.status !== "waiting_approval") return null;
    const rc = state.calls.find((c) => c.status === "proposed" && c.call.name === "task.block");
    return rc ? { callId: rc.call.id, text: String(rc.call.arguments.question ?? "") } : null;
  }

  return {
    binding,
    toolSource: (profile: AgentProfile) => workToolSource(profile, { work: work(), binding }),

    /** Binds this agent to a task, once: an agent already working another task (or feature) is refused. */
    bind(next: WorkBinding): true {
      const current = binding();
      if (current && (current.feature !== next.feature || current.task !== next.task)) {
        throw new PantheonError("conflict", `agent '${deps.agent()}' works on task ${current.task} of feature '${current.feature}'`, { details: { binding: current } });
      }
      if (!current) deps.settings.set("work", next);
      return true;
    },

    /** Starts the task's run once per key: a repeated start (the caller was cut off) answers the same run. */
    async start(input: { key: string; content: string; title: string }): Promise<{ runId: string; sessionId: string }> {
      if (!binding()) throw new PantheonError("conflict", `agent '${deps.agent()}' is not a task's worker`);
      const started = deps.settings.get<{ runId: string; sessionId: string }>(`work-run:${input.key}`);
      if (started) return started;
      const sessionId = deps.newSession(input.title);
      const runId = await deps.startTurn({ content: input.content, session: sessionId, title: input.title });
      deps.settings.set(`work-run:${input.key}`, { runId, sessionId });
      return { runId, sessionId };
    },

    /** What the feature needs to know of this worker's runs: status, outcome, an open question, tokens, model. */
    runs(runIds: string[]): WorkerRunInfo[] {
      return runIds.flatMap((runId) => {
        const row = deps.runs.get(runId);
        if (!row) return [];
        const state = (deps.driver().latest(runId) ?? row.state) as RunState;
        return [{ runId, status: state.status, error: state.error ?? null, result: state.result ?? null, question: pendingQuestion(state), inputTokens: state.usage.inputTokens, outputTokens: state.usage.outputTokens, model: state.origin.model?.name ?? null }];
      });
    },

    /** A person answered the task's question (the feature has it): the waiting task.block call goes on. */
    async resumeWithAnswer(runId: string, by: string): Promise<void> {
      const state = deps.driver().latest(runId);
      const question = state ? pendingQuestion(state as RunState) : null;
      if (!question) throw new PantheonError("conflict", `run '${runId}' is not waiting on a question`, { details: { run: runId } });
      // The feature's answer route needs `approve`; `task.block` itself needs only `chat`.
      await deps.driver().decide(runId, { approved: true, by, scope: "approve", callId: question.callId });
    },

    /** Tells the feature what a worker's run did: asked a person, or ended. Best effort: the feature reconciles on read. */
    onRunEvent(event: RunEvent, runId: string): void {
      // Called for every streamed token: only a status change or a run's end may concern the feature,
      // so the binding (a settings read) is looked up for those alone.
      if (event.type !== "status" && event.type !== "done") return;
      const b = binding();
      if (!b) return;
      const feature = () => work().feature(b.feature);
      if (event.type === "status" && event.status === "waiting_approval") {
        const state = deps.driver().latest(runId);
        const question = state ? pendingQuestion(state as RunState) : null;
        if (question) deps.waitUntil(feature().markBlocked(b.task, question.text, me()).catch((error: unknown) => console.error("work: markBlocked", error)));
      }
      if (event.type === "done") {
        const state = deps.driver().latest(runId) as RunState | undefined;
        deps.waitUntil(
          feature()
            .workerRunEnded(b.task, { runId, status: event.status, error: state?.error ?? null, result: state?.result ?? event.reply?.content ?? null })
            .catch((error: unknown) => console.error("work: workerRunEnded", error)),
        );
      }
    },
  };
}

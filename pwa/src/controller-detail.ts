import type { Api, ScriptInfo } from "./api";
import { conversationOf, findConversations } from "./delegation";
import { describeError, isApiError } from "./errors";
import type { AgentDetail, Store } from "./state";
import type { Loadable } from "./types";

export interface DetailDeps {
  api: Api;
  store: Store;
}

/** How many recent runs the agent page lists and checks for delegation. */
const RECENT_RUNS = 10;

async function settle<T>(promise: Promise<T>): Promise<Loadable<T>> {
  try {
    return { status: "ready", data: await promise };
  } catch (error) {
    return { status: "error", error: describeError(error) };
  }
}

/**
 * The inspection half of the controller: one agent's page (script, schedules, runs, bus,
 * delegation), pausing a schedule, a run's trace and a delegation chain.
 */
export function makeDetailFeature({ api, store }: DetailDeps) {
  const set = store.set;
  const setDetail = (agent: string, update: (d: AgentDetail) => AgentDetail) =>
    set((s) => (s.detail?.agent === agent ? { ...s, detail: update(s.detail) } : s));

  /** An agent without a script answers 404 `not_found`: that is "no script", not a failure. */
  const scriptOf = (agent: string): Promise<ScriptInfo | null> =>
    api.getScript(agent).catch((error: unknown) => {
      if (isApiError(error) && error.status === 404 && error.code === "not_found") return null;
      throw error;
    });

  async function load(agent: string): Promise<void> {
    const loading = { status: "loading" } as const;
    set((s) => ({
      ...s,
      detail: {
        agent,
        info: loading,
        script: loading,
        schedules: loading,
        runs: loading,
        evals: loading,
        bus: loading,
        conversations: s.detail?.agent === agent ? s.detail.conversations : {},
        pausing: [],
        scheduleError: null,
      },
    }));
    const [info, script, schedules, runs, bus, evals] = await Promise.all([
      settle(api.getAgent(agent)),
      settle(scriptOf(agent)),
      settle(api.getSchedules(agent).then((r) => r.schedules)),
      settle(api.listRuns(agent, RECENT_RUNS).then((r) => r.runs)),
      settle(
        api.getBus().then((r) => {
          const mine = r.agents.find((a) => a.agent === agent);
          return { pending: mine?.pending ?? 0, inFlight: mine?.inFlight ?? 0, dead: mine?.dead ?? 0 };
        }),
      ),
      settle(api.listEvals(agent).then((r) => r.runs)),
    ]);
    setDetail(agent, (d) => ({ ...d, info, script, schedules, runs, bus, evals }));
    if (runs.status === "ready" && runs.data.length > 0) {
      const conversations = await findConversations(api, agent, runs.data).catch(() => ({}));
      setDetail(agent, (d) => ({ ...d, conversations }));
    }
  }

  async function setPaused(agent: string, behavior: string, paused: boolean): Promise<void> {
    setDetail(agent, (d) => ({ ...d, pausing: [...d.pausing, behavior], scheduleError: null }));
    try {
      const view = await api.setSchedulePaused(agent, behavior, paused);
      setDetail(agent, (d) => ({
        ...d,
        schedules:
          d.schedules.status === "ready"
            ? {
                status: "ready",
                data: d.schedules.data.map((s) =>
                  s.talent === view.talent && s.behavior === view.behavior ? view : s,
                ),
              }
            : d.schedules,
      }));
    } catch (error) {
      setDetail(agent, (d) => ({ ...d, scheduleError: describeError(error) }));
    } finally {
      setDetail(agent, (d) => ({ ...d, pausing: d.pausing.filter((b) => b !== behavior) }));
    }
  }

  async function loadTrace(agent: string, runId: string): Promise<void> {
    set((s) => ({ ...s, trace: { status: "loading" } }));
    try {
      const data = await api.getRun(agent, runId);
      set((s) => ({
        ...s,
        trace: { status: "ready", data: { ...data, conversation: conversationOf(data.run, data.trace) } },
      }));
    } catch (error) {
      set((s) => ({ ...s, trace: { status: "error", error: describeError(error) } }));
    }
  }

  async function loadConversation(id: string): Promise<void> {
    set((s) => ({ ...s, conversation: { status: "loading" } }));
    const conversation = await settle(api.getConversation(id));
    set((s) => ({ ...s, conversation }));
  }

  return { load, setPaused, loadTrace, loadConversation };
}

export type DetailFeature = ReturnType<typeof makeDetailFeature>;

import type { Api } from "./api";
import type { RunSummary, TraceStep } from "./types";

/** The agent that started a run, when another agent asked for it (trigger `agent:<asker>`). */
export function askerOf(run: Pick<RunSummary, "trigger">): string | null {
  return run.trigger?.startsWith("agent:") ? run.trigger.slice("agent:".length) || null : null;
}

/** Conversations a run asked other agents in: each `bus_sent` step names its conversation. */
export function conversationsInTrace(trace: TraceStep[]): string[] {
  const ids = trace.flatMap((s) => {
    const id = s.name === "bus_sent" ? (s.data as { conversationId?: unknown } | null)?.conversationId : undefined;
    return typeof id === "string" ? [id] : [];
  });
  return [...new Set(ids)];
}

/** How many of the asker's runs are searched for the question that started a run. */
const ASKER_RUNS = 10;

/**
 * The delegation conversation each run belongs to, or nothing for runs that neither asked nor were
 * asked. A run that asked has the id in its own trace. A run another agent started does not know
 * it, so the asker's runs from before it are searched for the question sent to this agent, and the
 * conversation whose hop started this very run wins. Runs are fetched in parallel and only once.
 *
 * @example
 * const chains = await findConversations(api, "github", runs); // { [runId]: conversationId }
 */
export async function findConversations(api: Api, agent: string, runs: RunSummary[]): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const traces = await Promise.all(runs.map((r) => api.getRun(agent, r.id).then((t) => t.trace, () => [] as TraceStep[])));
  const unresolved: RunSummary[] = [];
  runs.forEach((run, i) => {
    const id = conversationsInTrace(traces[i] ?? [])[0];
    if (id) found[run.id] = id;
    else if (askerOf(run)) unresolved.push(run);
  });
  const byAsker = new Map<string, RunSummary[]>();
  for (const run of unresolved) byAsker.set(askerOf(run)!, [...(byAsker.get(askerOf(run)!) ?? []), run]);
  await Promise.all([...byAsker].map(async ([asker, asked]) => {
    const candidates = await conversationsAskedOf(api, asker, agent, asked);
    const conversations = await Promise.all(candidates.map((id) => api.getConversation(id).catch(() => null)));
    for (const run of asked) {
      const hit = conversations.find((c) => c?.hops.some((h) => h.to === agent && h.runId === run.id));
      if (hit) found[run.id] = hit.conversationId;
    }
  }));
  return found;
}

/** Conversations in which `asker` sent a question to `agent`, from its runs that began before the asked ones ended. */
async function conversationsAskedOf(api: Api, asker: string, agent: string, asked: RunSummary[]): Promise<string[]> {
  const latest = Math.max(...asked.map((r) => Number(r.startedAt ?? 0)));
  const runs = await api.listRuns(asker, 50).then((r) => r.runs, () => [] as RunSummary[]);
  const before = runs.filter((r) => Number(r.startedAt ?? 0) <= latest).slice(0, ASKER_RUNS);
  const traces = await Promise.all(before.map((r) => api.getRun(asker, r.id).then((t) => t.trace, () => [] as TraceStep[])));
  const ids = traces.flatMap((trace) =>
    trace.flatMap((s) => {
      const data = s.data as { conversationId?: unknown; target?: unknown } | null;
      return s.name === "bus_sent" && data?.target === agent && typeof data.conversationId === "string" ? [data.conversationId] : [];
    }));
  return [...new Set(ids)];
}

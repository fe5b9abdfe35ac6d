import type { Api, RunSummary, TraceStep } from "./api";

/** The agent that started a run, when another agent asked for it (trigger `agent:<asker>`). */
export function askerOf(run: Pick<RunSummary, "trigger" | "askedBy">): string | null {
  if (run.askedBy) return run.askedBy;
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

/** A run's delegation conversation from what is already fetched: the summary (asked runs), else its trace (runs that asked). */
export function conversationOf(run: Pick<RunSummary, "conversationId">, trace: TraceStep[]): string | null {
  return run.conversationId ?? conversationsInTrace(trace)[0] ?? null;
}

/**
 * The delegation conversation each run belongs to, or nothing for runs that neither asked nor were
 * asked. A run another agent asked for carries its conversation in its summary; a run that asked has
 * it in its own trace, fetched with one request per such run, in parallel.
 *
 * @example
 * const chains = await findConversations(api, "github", runs); // { [runId]: conversationId }
 */
export async function findConversations(api: Api, agent: string, runs: RunSummary[]): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const rest = runs.filter((run) => {
    if (run.conversationId) found[run.id] = run.conversationId;
    return !run.conversationId;
  });
  const traces = await Promise.all(
    rest.map((r) =>
      api.getRun(agent, r.id).then(
        (t) => t.trace,
        () => [] as TraceStep[],
      ),
    ),
  );
  rest.forEach((run, i) => {
    const id = conversationsInTrace(traces[i] ?? [])[0];
    if (id) found[run.id] = id;
  });
  return found;
}

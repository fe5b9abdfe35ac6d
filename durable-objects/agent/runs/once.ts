import type { RunPrincipal } from "../../../core/auth";
import { isTerminal, type RunStatus } from "../../../core/run";
import type { Emit } from "../chat/live";
import type { MessageStore } from "../chat/messages";
import type { ChatInput, TurnOutcome } from "./contracts";
import type { RunStore } from "./store";

/**
 * The run id a client's message id stands for. Keyed by the sender's token as well, so the same id
 * sent with another token (another person, another device) is another message and never reads the
 * first one's outcome; another agent or project is another Durable Object, so it cannot meet it at all.
 */
export async function clientRunId(principal: RunPrincipal, clientId: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${principal.id}\n${clientId}`));
  const hex = [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `msg-${hex}`;
}

/**
 * Messages that arrive once: a turn sent with a client id (the PWA's outbox keeps one per message) is
 * run under the run id that id stands for, so a repeat of it — a send whose answer was lost, a
 * Background Sync retry, the page's own retry — answers the first one's outcome (its run, its reply
 * as it is now) and starts nothing. A repeat that arrives while the first is still under way waits
 * for it. A send lost before its run was written (an eviction before the model request left) left
 * nothing, so its repeat is a first send.
 * @example
 * const once = makeOnce({ runs, messages });
 * await once.turn(input, sink, (withRunId) => turns.turn(withRunId, sink));
 */
export function makeOnce(deps: { runs: Pick<RunStore, "get">; messages: Pick<MessageStore, "ofRun"> }) {
  const inFlight = new Map<string, Promise<TurnOutcome>>();

  /** The outcome of a run already written, as it is now (a run that waited may have finished since). */
  function stored(runId: string): TurnOutcome | null {
    const run = deps.runs.get(runId);
    if (!run) return null;
    const written = deps.messages.ofRun(run.sessionId, runId);
    const userMessage = written.find((m) => m.role === "user");
    if (!userMessage) return null;
    const reply = written.findLast((m) => m.role === "assistant" && !m.toolCalls?.length) ?? null;
    const state = run.state as { result?: string; error?: string };
    return {
      runId,
      sessionId: run.sessionId,
      status: run.status,
      userMessage,
      reply: run.status === "completed" ? reply : null,
      ...(state.result !== undefined ? { result: state.result } : {}),
      ...(state.error ? { error: state.error } : {}),
    };
  }

  /** What a stream that asked again sees: the first send's run and, once settled, its end. */
  function replay(outcome: TurnOutcome, sink: Emit): void {
    sink({ type: "run", runId: outcome.runId, sessionId: outcome.sessionId, userMessage: outcome.userMessage });
    sink({ type: "status", status: outcome.status });
    if (isTerminal(outcome as { status: RunStatus }))
      sink({ type: "done", runId: outcome.runId, status: outcome.status, reply: outcome.reply });
  }

  return {
    async turn(
      input: ChatInput & { clientId: string },
      sink: Emit,
      fresh: (input: ChatInput, sink: Emit) => Promise<TurnOutcome>,
    ): Promise<TurnOutcome> {
      const { clientId: _clientId, ...rest } = input;
      const runId = await clientRunId(input.principal, input.clientId);
      const pending = inFlight.get(runId);
      const earlier = (pending ? await pending.catch(() => null) : null) ?? stored(runId);
      if (earlier) {
        replay(earlier, sink);
        return earlier;
      }
      const first = fresh({ ...rest, runId }, sink);
      inFlight.set(runId, first);
      try {
        return await first;
      } finally {
        inFlight.delete(runId);
      }
    },
  };
}

export type Once = ReturnType<typeof makeOnce>;

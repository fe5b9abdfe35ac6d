import type { NewTraceStep } from "./store";

const noop = () => {};

/**
 * The writes (and events) of each run that is starting, held until its first model request has
 * left. A Durable Object holds every subrequest until its pending writes commit, so a turn that
 * wrote its run and request first waited a whole commit (about 1 ms here, a storage round trip in
 * production) before the model saw the request. Held, they are written as the request leaves, in
 * order and in one transaction, and the commit overlaps the model's answer. An eviction costs what
 * it did: before that commit the turn is lost with its caller's request, which fails; after it, the
 * run is carried on from its record. Anything else the run does (a tool, a finish) releases first.
 *
 * Trace steps go through here too: a transition's steps are written by one insert (`writeSteps`).
 * @example
 * const writes = makeHeldWrites({ transaction, appendTraces: (steps) => runs.appendTraces(steps) });
 * writes.hold(runId);
 * writes.write(runId, () => runs.create(...)); // queued
 * await writes.afterSent(runId, (onSent) => llm.complete({ ...request, onSent })); // written as the request leaves
 */
export function makeHeldWrites(deps: { transaction<T>(fn: () => T): T; appendTraces(steps: NewTraceStep[]): unknown }) {
  const held = new Map<string, (() => void)[]>();
  const steps: NewTraceStep[] = [];

  function writeSteps(): void {
    if (steps.length) deps.appendTraces(steps.splice(0));
  }
  function write(runId: string, work: () => void): void {
    const queue = held.get(runId);
    if (queue) queue.push(work);
    else work();
  }
  function release(runId: string): void {
    const queue = held.get(runId);
    if (!queue) return;
    held.delete(runId);
    if (queue.length)
      deps.transaction(() => {
        queue.forEach((work) => work());
        writeSteps();
      });
  }

  return {
    /** From now until `release`, the run's writes wait. */
    hold(runId: string): void {
      held.set(runId, []);
    },
    isHeld: (runId: string): boolean => held.has(runId),
    write,
    release,
    /** A trace step of the transition being carried out, written with the others by `writeSteps`. */
    step(row: NewTraceStep): void {
      write(row.runId, () => void steps.push(row));
    },
    writeSteps,
    /** A step from outside the run's loop (a background write's gate refusal): after the run's own held ones while it starts. */
    stepFromOutside(row: NewTraceStep): void {
      if (held.has(row.runId)) write(row.runId, () => void steps.push(row));
      else deps.appendTraces([row]);
    },
    /**
     * Makes a model call that reports when its request has left (`onSent`); a held run's writes go
     * out then, a turn of the event loop later so the runtime has put the request on the wire before
     * the commit (which locally runs on this thread) takes its turn, or once the call has settled.
     */
    async afterSent<T>(runId: string, call: (onSent: () => void) => Promise<T>): Promise<T> {
      let sent!: () => void;
      const leaving = new Promise<void>((resolve) => (sent = resolve));
      const answer = call(sent);
      if (held.has(runId)) {
        await Promise.race([leaving, answer.then(noop, noop)]);
        await new Promise((resolve) => setTimeout(resolve, 0));
        release(runId);
      }
      return answer;
    },
  };
}

export type HeldWrites = ReturnType<typeof makeHeldWrites>;

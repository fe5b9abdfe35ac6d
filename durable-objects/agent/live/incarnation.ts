import type { Connection } from "agents";
import { socketIncarnationHeader } from "../../../core/auth";
import type { OpenStreams } from "./stream";

// An agent's sockets are bound to the incarnation they opened on (AgentProfile.incarnation, drawn by
// the registry at each creation). The agent sends only to sockets of the incarnation it holds, and a
// socket of another is refused or closed. So even a close that never happened (the object was
// evicted, or died mid-delete) cannot let a deleted agent's or project's client hear a later agent
// of the same names.

/** Close code of a socket whose agent (or project) was deleted, or made again since it opened. */
export const deletedCloseCode = 4410;

export function incarnationTag(incarnation: string | undefined | null): string {
  return `incarnation:${incarnation ?? "none"}`;
}

/** The incarnation the worker saw in the registry when it let this socket through. */
export function socketIncarnation(request: Request): string | null {
  return request.headers.get(socketIncarnationHeader);
}

/** Sockets of `connections` not tagged with `incarnation`: opened on an agent since deleted. */
export function staleSockets(all: Iterable<Connection>, current: Iterable<Connection>): Connection[] {
  const kept = new Set([...current].map((c) => c.id));
  return [...all].filter((c) => !kept.has(c.id));
}

/** Why an agent's access ends: for a run's cancellation ("cancelled by …") and a socket's close reason. */
export interface EndCause {
  /** e.g. "the deletion of agent 'x'" */
  by: string;
  /** A socket close reason: at most 123 bytes, so kept short. */
  closeReason: string;
}

export interface IncarnationEnd {
  /** Runs not finished: created, running or waiting (for a tool, another agent or a person's approval). */
  unfinishedRuns(): string[];
  cancel(runId: string, by: string): Promise<unknown>;
  /** Drives of runs still under way (a model or tool call the cancellation aborted). */
  inFlight(): Promise<unknown>[];
  streams: OpenStreams;
  sockets(): Iterable<Connection>;
}

const settleWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => setTimeout(resolve, ms)),
  ]);

/**
 * Ends everything a client holds of this agent, before its storage is wiped: every unfinished run is
 * cancelled with the cause (a pending approval with it; SSE streams and sockets see the run end and
 * why), the drives still under way settle, the SSE streams still open end with an `agent_deleted`
 * error, and every socket closes with 4410 and the reason. Waits are bounded: a stuck call cannot
 * hold the deletion.
 */
export async function endIncarnation(
  deps: IncarnationEnd,
  cause: EndCause,
): Promise<{ runs: number; streams: number; sockets: number }> {
  const runs = deps.unfinishedRuns();
  for (const runId of runs) await settleWithin(deps.cancel(runId, cause.by), 5_000);
  await settleWithin(Promise.allSettled(deps.inFlight()), 5_000);
  const streams = deps.streams.endAll({
    type: "error",
    code: "agent_deleted",
    message: `this stream ended with ${cause.by}`,
  });
  const sockets = closeEach(deps.sockets(), deletedCloseCode, cause.closeReason.slice(0, 120));
  return { runs: runs.length, streams, sockets };
}

/** Closes each socket with the code and reason; how many. */
export function closeEach(sockets: Iterable<Connection>, code: number, reason: string): number {
  let closed = 0;
  for (const socket of [...sockets]) {
    socket.close(code, reason);
    closed += 1;
  }
  return closed;
}

/**
 * What an agent's socket hooks do with incarnations: tag each socket with the one it opened on,
 * send only to sockets of the one held now, refuse or close the others. `held` is read from the
 * profile in memory: no storage read per frame.
 */
export function makeSocketBinding(deps: {
  held(): string | undefined;
  adopt(incarnation: string): void;
  connections(tag?: string): Iterable<Connection>;
}) {
  const isCurrent = (request: Request) => {
    const held = deps.held();
    return held !== undefined && socketIncarnation(request) === held;
  };
  return {
    isCurrent,
    /** The incarnation tag; a profile from before incarnations adopts the registry's (the worker's header). */
    tag(request: Request, configured: boolean): string {
      const incarnation = socketIncarnation(request);
      if (configured && deps.held() === undefined && incarnation) deps.adopt(incarnation);
      return incarnationTag(incarnation);
    },
    broadcast(message: string | ArrayBuffer | ArrayBufferView, without?: string[]): void {
      for (const connection of deps.connections(incarnationTag(deps.held())))
        if (!without?.includes(connection.id)) connection.send(message as string | ArrayBuffer);
    },
    /** Closes a socket that opened on another incarnation; whether it did. */
    refused(connection: Connection, request: Request): boolean {
      if (isCurrent(request)) return false;
      connection.close(deletedCloseCode, "this agent was deleted or made again: reconnect");
      return true;
    },
    /** Sockets of an incarnation since deleted, whose close was missed while the object was away, close now. */
    closeStale(): void {
      closeEach(
        staleSockets(deps.connections(), deps.connections(incarnationTag(deps.held()))),
        deletedCloseCode,
        "this agent was deleted",
      );
    },
  };
}

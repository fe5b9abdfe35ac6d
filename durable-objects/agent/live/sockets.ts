import { socketTokenHeader } from "../../../core/auth";

// The worker (workers/sockets.ts) lets a socket through only for a token of this agent's project
// and says which token opened it. Clients only listen: the agent is the only writer of its state.

/** The tag a socket carries: the token that opened it, so revoking the token closes it. */
export function socketTokenTag(request: Request): string {
  return tokenTag(request.headers.get(socketTokenHeader) ?? "none");
}

export function tokenTag(tokenId: string): string {
  return `token:${tokenId}`;
}

/** Only the worker reaches the object, and it always names the token; a socket without one is refused. */
export function socketIsFromWorker(request: Request): boolean {
  return Boolean(request.headers.get(socketTokenHeader));
}

/**
 * Where a message is in its life. Requests: sent → delivered → applied → answered; replies:
 * sent → delivered → applied. `refused`, `timeout`, `dead` and `ignored` are final too.
 */
export const busLogStates = [
  "sent",
  "delivered",
  "applied",
  "answered",
  "refused",
  "timeout",
  "dead",
  "ignored",
] as const;
export type BusLogState = (typeof busLogStates)[number];

/** States after which nothing changes a message's record. */
export const finalBusStates: readonly BusLogState[] = ["answered", "refused", "timeout", "dead", "ignored"];

/** A record only moves forward: reports that arrive out of order (the queue does not order them) never move it back. */
export function stateRank(state: BusLogState, type: "request" | "response" | "error" | "cancel"): number {
  if (finalBusStates.includes(state)) return 3;
  if (state === "applied") return type === "request" ? 2 : 3;
  return state === "delivered" ? 1 : 0;
}

import { maxDelegationDepth, type BusErrorCode } from "./message";

export interface Refusal {
  code: BusErrorCode;
  error: string;
}

/**
 * The deterministic rules a request must pass before it leaves the asker and again when it is
 * delivered: a declared connection, a bounded depth, a deadline not yet passed.
 * @example
 * checkRequest({ from: "main", to: "github", connections: ["airtable"], depth: 1, deadlineAt, now });
 * // { code: "not_connected", error: "agent 'main' is not connected to 'github' (connections: airtable)" }
 */
export function checkRequest(input: {
  from: string;
  to: string;
  connections?: readonly string[];
  depth: number;
  deadlineAt: number;
  now: number;
  maxDepth?: number;
}): Refusal | undefined {
  const max = input.maxDepth ?? maxDelegationDepth;
  // Without `connections` (the receiving side, which cannot see the asker's) only depth and deadline count.
  if (input.connections && !input.connections.includes(input.to)) {
    return {
      code: "not_connected",
      error: `agent '${input.from}' is not connected to '${input.to}' (connections: ${input.connections.join(", ") || "none"})`,
    };
  }
  if (input.depth > max)
    return {
      code: "depth_exceeded",
      error: `delegation depth limit reached: this request would be hop ${input.depth}, at most ${max} allowed`,
    };
  if (input.now >= input.deadlineAt)
    return { code: "expired", error: `the request's deadline passed ${input.now - input.deadlineAt} ms ago` };
  return undefined;
}

/** Seconds before the next delivery attempt of a failing message: 1, 2, 4, 8 … capped at 60. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(60, 2 ** Math.max(0, attempts - 1));
}

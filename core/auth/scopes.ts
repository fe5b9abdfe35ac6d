import { z } from "zod";
import { lazySchema } from "../lazy-schema";

/**
 * What a token may do. Each scope includes the ones before it:
 * - `chat`: talk to agents, read their history, sessions and runs (phones, OpenAI and MCP clients);
 * - `approve`: chat, and decide pending approvals;
 * - `admin`: everything else — agents, scripts, runtime, gates, tools, secrets, MCP servers, memory, tokens.
 */
export const scopes = ["chat", "approve", "admin"] as const;
export type Scope = (typeof scopes)[number];

export const scopeSchema = lazySchema(() => z.enum(scopes, { error: "one of 'chat', 'approve' or 'admin'" }));

/**
 * True when a token of scope `have` may do what needs `need`.
 * @example
 * grants("approve", "chat"); // true
 * grants("chat", "approve"); // false
 */
export function grants(have: Scope, need: Scope): boolean {
  return scopes.indexOf(have) >= scopes.indexOf(need);
}

/**
 * Set by the worker on an agent socket's upgrade request: the id of the token that opened it
 * (`admin` for the admin secret). The worker drops a client's own copy, so the agent can trust it.
 */
export const socketTokenHeader = "x-pantheon-token-id";
/** The agent's incarnation (AgentProfile.incarnation) as the registry knew it when the worker let a socket through. */
export const socketIncarnationHeader = "x-pantheon-incarnation";

// The shape of the route inventory: who may call a route, how its family answers errors, and what
// a sample request is. The entries themselves are in one file per area beside this one.

/**
 * Who may call a route. Each scope includes the ones before it: `public` needs no token, `chat`
 * talks to agents and reads what they did, `approve` also decides approvals, `admin` configures.
 */
export type Scope = "public" | "chat" | "approve" | "admin";

/**
 * A route family answers errors in its own shape: `api`, `agui` (before its stream starts) and
 * `socket` `{ error: { code, message, requestId } }`, `openai` OpenAI's, `mcp` and `a2a` JSON-RPC's.
 */
export type RouteFamily = "api" | "openai" | "mcp" | "a2a" | "agui" | "socket";

/** Methods as `app.routes` spells them; `ALL` is a route registered with `app.all`. */
export type RouteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "ALL";

/** What samples act on: made once by `makeRouteFixture()` with the admin token, in project `default`. */
export interface RouteFixture {
  /** A plain agent (offline model): chat, history, memory, tools, context. */
  agent: string;
  /** `agent` connects to it (`/ask helper …` starts a conversation). */
  helper: string;
  /** An agent whose runs of `/tool clock.now` wait for approval. */
  gated: string;
  /** An agent with a script: a cron behavior `morning` in talent `brief`. */
  scripted: string;
  /** A session of `agent`. */
  session: string;
  /** A completed run of `agent`. */
  run: string;
  /** A memory of `agent`. */
  memory: string;
  /** A delegation chain started by `agent` (the id of its asking run). */
  conversation: string;
  /** The MCP test server (test/doubles/mcp-server.ts). */
  mcpUrl: string;
  /** An agent whose allowlist holds the MCP test server's host (loopback is let through in tests only). */
  mcpAgent: string;
  /** An orchestrating agent (offline model) with the work tools. */
  planner: string;
  /** A feature of `planner` with an approved plan, two synced tasks and a file `context/brief.md`. */
  feature: string;
  /** An image of `agent` (a 2x2 GIF header, all ASCII so a text sample carries it). */
  image: string;
}

/** One request: the path params fill `path`; `method` is needed for `ALL` routes. */
export interface RouteSample {
  method?: Exclude<RouteMethod, "ALL">;
  params: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** JSON (sent with `Content-Type: application/json`) or raw text with its own content type. */
  body?: { json: unknown } | { text: string; contentType: string };
}

export interface RouteEntry {
  method: RouteMethod;
  /** The path pattern exactly as `app.routes` has it, e.g. `/api/agents/:name/sessions/:id`. */
  path: string;
  family: RouteFamily;
  scope: Scope;
  /** What the sample answers with the admin token (a fallback route answers 404 by design). */
  expect: number;
  /**
   * Only the deployment's admin secret opens it (creating and deleting projects): a project's own
   * token of the route's scope gets 403 too.
   */
  deploymentAdminOnly?: true;
  /**
   * A valid request. Samples that consume their target (deletes, approvals, cancels) make a fresh
   * one on each call, so a sample can be replayed once per token.
   */
  sample(fixture: RouteFixture): RouteSample | Promise<RouteSample>;
}

import { auth } from "@modelcontextprotocol/client";
import type { Agent } from "agents";
import { makeSecretDetector } from "../../../core/redaction";
import { makeGuardedFetch, type FetchFn, type McpToolManifest, type OutboundPolicy } from "../../../core/tools";
import type { McpCredentials } from "./credentials";
import type { McpAnswer } from "./elicitation";

/** How the client speaks to a server: Streamable HTTP with SSE as the fallback (`auto`), or one of them only. */
export type McpTransport = "auto" | "streamable-http" | "sse";

/** One tool as the agents SDK lists it after discovery: the MCP manifest plus the server it came from. */
export interface McpListedTool {
  serverId: string;
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpToolManifest["annotations"];
}

/** A `tools/call` result (MCP spec): content blocks, optional structured content, `isError`. */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Pre-2025 servers answer `{ toolResult }` instead of content. */
  toolResult?: unknown;
}

/** What this feature needs of the agents SDK's MCP client; `mcpClientOf(agent)` provides it. */
export interface McpClient {
  /** With `callback`, a server that demands OAuth answers `authenticating` with the URL a person opens. */
  connect(
    name: string,
    url: string,
    id: string,
    transport?: McpTransport,
    callback?: { host: string; path: string },
  ): Promise<{ id: string; state: string; authUrl?: string }>;
  /** Completes an OAuth authorisation from its callback URL: only a `state` this agent issued and has not used. */
  completeAuthorization(callbackUrl: string): Promise<{ ok: true; serverId: string } | { ok: false; reason: string }>;
  remove(id: string): Promise<void>;
  servers(): {
    servers: Record<
      string,
      { name: string; server_url: string; state: string; error: string | null; auth_url?: string | null }
    >;
    tools: McpListedTool[];
  };
  callTool(
    params: { serverId: string; name: string; arguments: Record<string, unknown> },
    options: { signal?: AbortSignal },
  ): Promise<McpCallResult>;
  /** Waits (up to `timeoutMs`) for connections restored after the object woke up. */
  ready(timeoutMs: number): Promise<void>;
  /** Connections held in memory; a ready server is always one of them. */
  connectionCount(): number;
  /**
   * `text` with every credential lately sent to server `serverId` redacted: a server that echoes its
   * OAuth access token (which no project secret holds, so the run's redactor does not know it) in a
   * result or an error puts it in no trace, reply or memory.
   */
  redactSent(serverId: string, text: string): string;
  /**
   * For a ready OAuth server whose access token expires within `marginMs`: refreshes it with its
   * refresh token (the SDK's `auth()`), `refreshed`; when the authorization server refuses (no refresh
   * token, revoked, expired), the server waits for a person again (`authenticating` with a new consent
   * URL) and this answers `needs-authorisation`. `fresh` for any other server, or a token not expiring yet.
   */
  refreshIfExpiring(id: string, marginMs: number): Promise<"fresh" | "refreshed" | "needs-authorisation">;
  /**
   * After a server refused its token (a 401 the SDK could not cure by refreshing): the server waits
   * for a person again, at the consent URL the SDK made. False when no such URL was made.
   */
  awaitAuthorisation(id: string): boolean;
  /** Who answers a server's `elicitation/create` (form mode): the server's id, its message and schema. */
  onElicitation(
    handler: (
      serverId: string,
      request: { message: string; requestedSchema?: Record<string, unknown> },
      signal?: AbortSignal,
    ) => Promise<McpAnswer>,
  ): void;
  /** Calls `listener` when a ready server's tools changed (its `notifications/tools/list_changed`), with the server's own tool names. */
  onToolsChanged(listener: (change: McpToolsChange) => void): void;
}

/** A server's tool list changed: the names (the server's own) it added and removed. */
export interface McpToolsChange {
  serverId: string;
  added: string[];
  removed: string[];
}

/** The one method of the SDK's MCPClientManager (private in its types) every MCP connection is made by. */
interface ConnectionFactory {
  createConnection(
    id: string,
    url: string,
    options: { transport?: Record<string, unknown> } & Record<string, unknown>,
  ): unknown;
}

/**
 * Makes every MCP connection of `manager` use `fetch`. The SDK builds each connection (added,
 * re-added, restored from storage after the object restarts) in `createConnection`, and its
 * transports send every request, and every redirect hop, through `transport.fetch`; the option is
 * not persisted (a function cannot be), so restored connections get it here too. Throws when the
 * SDK no longer has that method: no guard means no MCP client.
 */
function guardConnections(manager: unknown, fetchFor: (id: string, url: string) => FetchFn): void {
  const factory = manager as ConnectionFactory;
  if (typeof factory.createConnection !== "function")
    throw new Error(
      "agents SDK: MCPClientManager.createConnection is missing; the MCP outbound guard cannot be installed",
    );
  const create = factory.createConnection.bind(factory);
  factory.createConnection = (id, url, options) =>
    create(id, url, { ...options, transport: { ...options.transport, fetch: fetchFor(id, url) } });
}

/**
 * The agents SDK's MCP client on an Agent, narrowed to what Pantheon uses. HTTP servers only:
 * Streamable HTTP first, SSE as the fallback (`transport.type: "auto"`).
 * No `callbackHost` is given, so a server that demands OAuth fails to connect with a message
 * saying so, instead of starting a flow whose callback Pantheon does not route yet.
 * Every request the client sends passes the outbound guard with `policy()` read at that moment,
 * carrying the server's headers from `credentials` (values read from the project's secrets then).
 */
export function mcpClientOf(
  agent: Pick<Agent<Env>, "addMcpServer" | "removeMcpServer" | "getMcpServers" | "mcp">,
  policy: () => OutboundPolicy,
  fetch: FetchFn = (input, init) => globalThis.fetch(input, init),
  credentials?: Pick<McpCredentials, "fetchFor">,
  /** When the token set stored under a key expires (oauth.ts `tokenExpiresAt`). */
  tokenExpiry?: (key: string) => Promise<number | undefined>,
): McpClient {
  const guarded = makeGuardedFetch(fetch, policy);
  const sent = makeSentCredentials();
  // The credentials' headers are added before `sent` sees the request: it notes what really left.
  const fetchFor = (id: string, url: string): FetchFn => {
    const noting = sent.noting(id, guarded);
    return credentials ? credentials.fetchFor(noting)(id, url) : noting;
  };
  guardConnections(agent.mcp, fetchFor);
  /** The SDK's connection `id` back to waiting for a person, at the consent URL its provider holds now. */
  const awaitAuthorisation = (id: string): boolean => {
    const connection = agent.mcp.mcpConnections[id];
    if (!connection?.options.transport.authProvider?.authUrl) return false;
    connection.connectionState = "authenticating";
    // Records the consent URL with the server (the SDK's own step when a connect meets a 401), so the
    // listing shows it and the callback is accepted for it; private in the SDK's types.
    (
      agent.mcp as unknown as { persistAuthContinuation(id: string, connection: unknown): unknown }
    ).persistAuthContinuation(id, connection);
    return true;
  };
  // The SDK refetches a server's tools on its `tools/list_changed` and then says only that some
  // server's state changed: each ready server's tool names are kept to tell what changed. A server
  // seen for the first time (connected, restored) is not a change.
  const seen = new Map<string, string[]>();
  const listeners: ((change: McpToolsChange) => void)[] = [];
  agent.mcp.onServerStateChanged(() => {
    const connections = agent.mcp.mcpConnections;
    for (const id of seen.keys()) if (!Object.hasOwn(connections, id)) seen.delete(id);
    for (const [id, connection] of Object.entries(connections)) {
      if (connection.connectionState !== "ready") continue;
      const names = connection.tools.map((tool) => tool.name);
      const before = seen.get(id);
      seen.set(id, names);
      if (!before) continue;
      const added = names.filter((name) => !before.includes(name));
      const removed = before.filter((name) => !names.includes(name));
      if (added.length || removed.length) for (const listener of listeners) listener({ serverId: id, added, removed });
    }
  });
  return {
    onToolsChanged: (listener) => void listeners.push(listener),
    onElicitation(handler) {
      // Form mode only (a URL-mode question would send the person to the server's own page). The
      // SDK advertises the capability to every server connected from now on and to those connected.
      agent.mcp.configureElicitationHandlers({
        form: (request, serverId, signal) =>
          handler(
            serverId,
            request.params as { message: string; requestedSchema?: Record<string, unknown> },
            signal,
          ) as never,
      });
    },
    awaitAuthorisation,
    async refreshIfExpiring(id, marginMs) {
      const connection = agent.mcp.mcpConnections[id];
      const provider = connection?.options.transport.authProvider as
        | (NonNullable<typeof connection>["options"]["transport"]["authProvider"] & {
            tokenKey?(clientId: string): string;
          })
        | undefined;
      // The SDK's provider throws from `clientId` on a server that never registered (no OAuth): nothing to refresh.
      let clientId: string | undefined;
      try {
        clientId = provider?.clientId;
      } catch {
        clientId = undefined;
      }
      if (connection?.connectionState !== "ready" || !provider || !clientId || !provider.tokenKey) return "fresh";
      const expiresAt = await tokenExpiry?.(provider.tokenKey(clientId));
      if (expiresAt === undefined || expiresAt - Date.now() > marginMs) return "fresh";
      provider.serverId = id;
      const url = connection.url.href;
      // Refreshes with the refresh token, or (refused: no refresh token, revoked) starts a new authorisation.
      const result = await auth(provider, { serverUrl: url, fetchFn: fetchFor(id, url) });
      if (result === "AUTHORIZED") return "refreshed";
      return awaitAuthorisation(id) ? "needs-authorisation" : "fresh";
    },
    connect: (name, url, id, transport = "auto", callback) =>
      agent.addMcpServer(name, url, {
        id,
        transport: { type: transport },
        ...(callback ? { callbackHost: callback.host, callbackPath: callback.path } : {}),
      }),
    async completeAuthorization(callbackUrl) {
      const request = new Request(callbackUrl);
      const manager = agent.mcp;
      if (!manager.isCallbackRequest(request))
        return { ok: false, reason: "no MCP server of this agent waits for an authorisation with this state" };
      // The SDK answers a used state with success once the server is connected; Pantheon refuses it.
      const state = new URL(callbackUrl).searchParams.get("state") ?? "";
      const serverId = state.slice(state.indexOf(".") + 1);
      const provider = manager.mcpConnections[serverId]?.options.transport.authProvider;
      const check = provider ? await provider.checkState(state) : { valid: false, error: "no such server" };
      if (!check.valid)
        return { ok: false, reason: `the authorisation's state is refused: ${check.error ?? "invalid"}` };
      const result = await manager.handleCallbackRequest(request);
      if (!result.authSuccess) return { ok: false, reason: result.authError ?? "the authorisation failed" };
      await manager.establishConnection(result.serverId);
      return { ok: true, serverId: result.serverId };
    },
    remove: (id) => agent.removeMcpServer(id),
    servers: () => agent.getMcpServers() as unknown as ReturnType<McpClient["servers"]>,
    callTool: async (params, options) =>
      (await agent.mcp.callTool(params, options.signal ? { signal: options.signal } : undefined)) as McpCallResult,
    ready: (timeoutMs) => agent.mcp.waitForConnections({ timeout: timeoutMs }),
    connectionCount: () => Object.keys(agent.mcp.mcpConnections).length,
    redactSent: (serverId, text) => sent.redact(serverId, text),
  };
}

/** How many of a server's latest credentials are kept to redact: a refresh replaces the token, and an answer may still echo the last one. */
const sentKept = 4;

/**
 * The credentials (the Authorization header's token) each MCP connection sent, in memory only and a
 * few per server: its OAuth access token lives in the SDK's sealed storage, never among the
 * project's secrets, so this is how a result echoing it is redacted.
 */
function makeSentCredentials() {
  const byServer = new Map<string, string[]>();
  const note = (serverId: string, authorization: string | null) => {
    const token = authorization?.replace(/^[A-Za-z][\w-]*\s+/, "").trim();
    if (!token) return;
    const kept = byServer.get(serverId) ?? [];
    if (kept.includes(token)) return;
    byServer.set(serverId, [token, ...kept].slice(0, sentKept));
  };
  return {
    noting(serverId: string, fetch: FetchFn): FetchFn {
      return (input, init) => {
        const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
        note(serverId, headers.get("authorization"));
        return fetch(input, init);
      };
    },
    redact(serverId: string, text: string): string {
      const tokens = byServer.get(serverId);
      if (!tokens?.length) return text;
      return makeSecretDetector(tokens.map((value, i) => ({ name: `mcp:${serverId}:credential:${i}`, value }))).redact(
        text,
      );
    },
  };
}

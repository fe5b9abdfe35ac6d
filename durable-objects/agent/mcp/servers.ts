import type { Agent } from "agents";
import { PantheonError, validationFailed } from "../../../core/errors";
import {
  checkOutboundUrl,
  fromMcpTool,
  makeGuardedFetch,
  toolNamePattern,
  type FetchFn,
  type McpToolManifest,
  type OutboundPolicy,
  type ToolImplementation,
  type ToolSpec,
} from "../../../core/tools";
import type { ToolSource } from "../runs/tools";
import type { McpCredentials, McpHeaders } from "./credentials";

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
}

/** An MCP tool as the agent sees it: its Pantheon name and the name the server knows it by. */
export interface McpToolView {
  name: string;
  mcpName: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The server says the tool is read-only or idempotent. */
  idempotent?: boolean;
}

export interface McpServerView {
  id: string;
  name: string;
  url: string;
  /** The SDK's connection state: `ready` when its tools are usable. */
  state: string;
  error: string | null;
  tools: McpToolView[];
  /** Set while the server waits for a person to authorise it (OAuth): the provider's consent page. */
  authUrl?: string;
  /** The headers it is sent: literal values, and secrets by name (never their values). */
  headers: McpHeaders;
}

export class McpToolError extends Error {
  override readonly name = "McpToolError";
}

/** Server names become the first segment of tool names, so they follow the tool-name rules. */
export const mcpServerNamePattern = /^[a-z][a-z0-9_-]{0,31}$/;

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
): McpClient {
  const guarded = makeGuardedFetch(fetch, policy);
  guardConnections(agent.mcp, credentials ? credentials.fetchFor(guarded) : () => guarded);
  return {
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
  };
}

/**
 * `<server>.<tool>` in lowercase slug form: camelCase splits at its humps, anything outside
 * `[a-z0-9_-]` becomes `_`. Undefined when the result is not a valid tool name (too long, say).
 * @example
 * mcpToolName("github", "listPullRequests"); // "github.list_pull_requests"
 */
export function mcpToolName(server: string, tool: string): string | undefined {
  const slug = tool
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const name = `${server}.${slug}`;
  return slug && name.length <= 64 && toolNamePattern.test(name) ? name : undefined;
}

/**
 * The text the model reads from a `tools/call` result. Text blocks verbatim; other blocks by a
 * short bracketed description (the model cannot see images); structured content as JSON when
 * there is no content. A result with `isError` throws, so the run records a failed tool call.
 * @example
 * mcpResultText({ content: [{ type: "text", text: "5" }] }); // "5"
 */
export function mcpResultText(result: McpCallResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    const b = (block ?? {}) as Record<string, unknown>;
    if (b.type === "text" && typeof b.text === "string") parts.push(b.text);
    else if (b.type === "image" || b.type === "audio")
      parts.push(`[${String(b.type)} ${String(b.mimeType ?? "")}]`.replace(" ]", "]"));
    else if (b.type === "resource") {
      const resource = (b.resource ?? {}) as Record<string, unknown>;
      parts.push(typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri ?? "")}]`);
    } else if (b.type === "resource_link")
      parts.push(`[resource ${String(b.uri ?? "")}${b.name ? ` (${String(b.name)})` : ""}]`);
    else parts.push(JSON.stringify(block));
  }
  let text = parts.join("\n");
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text && result.toolResult !== undefined)
    text = typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult);
  if (result.isError) throw new McpToolError(text || "the MCP server reported an error without details");
  return text;
}

/** How long a turn waits for MCP connections an eviction interrupted before running without them. */
const restoreWaitMs = 5_000;

/**
 * One agent's MCP servers: connecting, listing and removing them, and the ToolSource that adds
 * their tools to the agent's (through the same gates as every tool: declared, schema-checked,
 * timed, truncated). The SDK keeps the servers in the object's storage and reconnects after an
 * eviction; this module holds no state of its own.
 * @example
 * const policy = () => ({ allowHosts: profile.runtime.allowHosts });
 * const servers = makeMcpServers(mcpClientOf(this, policy, fetch, credentials), policy, credentials);
 * await servers.connect("calc", "https://mcp.example.com/mcp"); // { id: "calc", state: "ready", tools: [{ name: "calc.add", ... }] }
 * await servers.connect("gh", "https://api.githubcopilot.com/mcp/", { headers: { Authorization: { secret: "GITHUB_TOKEN", prefix: "Bearer " } } });
 * buildAgentTools(profile, { ..., extra: [servers.toolSource()] });
 */
export function makeMcpServers(
  client: McpClient,
  policy: () => OutboundPolicy,
  credentials: Pick<McpCredentials, "check" | "declare" | "declared" | "forget" | "load">,
  /** The path of this agent's OAuth callback (oauth.ts `mcpOAuthCallbackPath`). */
  callbackPath: () => string,
) {
  const outboundCheck = (url: string) => {
    const { allowHosts, ...options } = policy();
    return checkOutboundUrl(url, allowHosts, options);
  };

  const toolsOf = (serverId: string, serverName: string, listed: McpListedTool[]): McpToolView[] => {
    const views: McpToolView[] = [];
    for (const tool of listed) {
      if (tool.serverId !== serverId) continue;
      const name = mcpToolName(serverName, tool.name);
      if (!name || views.some((v) => v.name === name)) continue;
      const spec = fromMcpTool({
        name,
        inputSchema: tool.inputSchema,
        ...(tool.description ? { description: tool.description } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      });
      views.push({
        name,
        mcpName: tool.name,
        description: spec.description,
        parameters: spec.parameters,
        ...(spec.idempotent ? { idempotent: true } : {}),
      });
    }
    return views;
  };

  type Listed = Omit<McpServerView, "headers">;
  const withHeaders = async (server: Listed): Promise<McpServerView> => ({
    ...server,
    headers: await credentials.declared(server.id),
  });

  function list(): Listed[] {
    const state = client.servers();
    return Object.entries(state.servers).map(([id, server]) => {
      // A host that left the allowlist: the view says so (the SDK records no error for a refused restore).
      const check = outboundCheck(server.server_url);
      return {
        id,
        name: server.name,
        url: server.server_url,
        state: server.state,
        error: server.error ?? (check.ok ? null : `refused: ${check.reason}`),
        tools: toolsOf(id, server.name, state.tools),
        ...(server.state === "authenticating" && server.auth_url ? { authUrl: server.auth_url } : {}),
      };
    });
  }

  function find(id: string): Listed {
    const server = list().find((s) => s.id === id);
    if (!server)
      throw new PantheonError("not_found", `MCP server '${id}' is not connected to this agent`, {
        details: { mcpServer: id },
      });
    return server;
  }

  return {
    /** The servers once connections restored after an eviction have settled (or the wait ran out). */
    async list(): Promise<McpServerView[]> {
      await client.ready(restoreWaitMs);
      return Promise.all(list().map(withHeaders));
    },

    /**
     * Connects a server by URL and discovers its tools; the server's name is also its id. `headers`
     * go with every request (secrets by name, checked here: 400 naming the header when the project
     * lacks one); `transport` picks Streamable HTTP or SSE alone instead of trying both.
     */
    async connect(
      name: string,
      url: string,
      options: { transport?: McpTransport; headers?: McpHeaders; callbackOrigin?: string } = {},
    ): Promise<McpServerView> {
      if (!mcpServerNamePattern.test(name)) {
        throw validationFailed([
          { path: ["name"], message: "lowercase letters, digits, '-' or '_', starting with a letter, at most 32" },
        ]);
      }
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        parsed = undefined;
      }
      if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
        throw validationFailed([{ path: ["url"], message: "an http:// or https:// URL of an MCP server" }]);
      }
      const check = outboundCheck(parsed.href);
      if (!check.ok) {
        const message = check.host
          ? `${check.reason}; add "${check.host}" to runtime.allowHosts to connect this server`
          : `MCP server refused: ${check.reason}`;
        throw validationFailed([{ path: ["url"], message }], message);
      }
      await client.ready(restoreWaitMs);
      const existing = list().find((s) => s.id === name);
      if (existing) {
        if (new URL(existing.url).href === parsed.href && existing.state === "ready") return withHeaders(existing);
        throw new PantheonError(
          "conflict",
          `an MCP server named '${name}' already exists (${existing.url}, ${existing.state}); remove it first`,
          { details: { mcpServer: name } },
        );
      }
      const headers = options.headers ?? {};
      await credentials.check(headers);
      // Declared before the first request, which carries them.
      await credentials.declare(name, headers);
      try {
        // A server that answers 401 naming its authorization server starts the OAuth flow (the SDK's:
        // discovery, dynamic registration, PKCE), unless the operator sends an Authorization header.
        const oauth =
          options.callbackOrigin && !Object.keys(headers).some((header) => header.toLowerCase() === "authorization");
        await client.connect(
          name,
          parsed.href,
          name,
          options.transport,
          oauth ? { host: options.callbackOrigin!, path: callbackPath() } : undefined,
        );
      } catch (error) {
        // The SDK keeps a server it registered but could not reach; a failed connect leaves nothing behind.
        await client.remove(name).catch(() => undefined);
        await credentials.forget(name);
        const reason = (error instanceof Error ? error.message : String(error)).replace(
          /^Failed to connect to MCP server at \S+: /,
          "",
        );
        // The SDK refuses private and internal addresses with a plain Error; its text is the only signal.
        if (reason.startsWith("Blocked URL")) {
          throw validationFailed([
            { path: ["url"], message: "MCP servers on private or internal addresses are not allowed" },
          ]);
        }
        throw new PantheonError("tool_failed", `could not connect to the MCP server at ${parsed.href}: ${reason}`, {
          details: { mcpServer: name, url: parsed.href },
          cause: error,
        });
      }
      return withHeaders(find(name));
    },

    /**
     * The person authorised a server at its provider and the browser came back with `code` and
     * `state`: the code is exchanged for tokens (kept sealed: oauth.ts) and the server connects. A
     * state this agent did not issue, or one already used, is a 400 and changes nothing.
     */
    async completeAuthorization(callbackUrl: string): Promise<McpServerView> {
      const outcome = await client.completeAuthorization(callbackUrl);
      if (!outcome.ok)
        throw validationFailed(
          [{ path: ["state"], message: outcome.reason }],
          `MCP authorisation refused: ${outcome.reason}`,
        );
      await client.ready(restoreWaitMs);
      return withHeaders(find(outcome.serverId));
    },

    async remove(id: string): Promise<void> {
      await client.ready(restoreWaitMs);
      find(id);
      await client.remove(id);
      await credentials.forget(id);
    },

    /** Removes every server (the agent was deleted). */
    async removeAll(): Promise<void> {
      for (const server of list()) {
        await client.remove(server.id).catch(() => undefined);
        await credentials.forget(server.id);
      }
    },

    /** Restored connections settled, and the secrets their headers name known (so every trace is redacted of them). */
    async ready(): Promise<void> {
      await client.ready(restoreWaitMs);
      if (client.connectionCount() > 0) await credentials.load(list().map((server) => server.id));
    },

    /** Whether the agent has any MCP connection (its tools may then change at any moment, as servers come and go). */
    hasConnections: (): boolean => client.connectionCount() > 0,

    /** The tools of every ready server, as the agent's tools see them right now. */
    toolSource(): ToolSource {
      const specs: ToolSpec[] = [];
      // No prototype: a tool the server names `__proto__` or `constructor` is a key like any other.
      const implementations: Record<string, ToolImplementation> = Object.create(null) as Record<
        string,
        ToolImplementation
      >;
      // Asked on every turn; an agent without a connection has no ready server, and listing the
      // servers would read the SDK's table for nothing.
      if (client.connectionCount() === 0) return { specs, implementations };
      for (const server of list()) {
        // A server whose host left the allowlist offers no tools (its requests would be refused anyway).
        if (server.state !== "ready" || !outboundCheck(server.url).ok) continue;
        for (const tool of server.tools) {
          specs.push({
            ...fromMcpTool({ name: tool.name, description: tool.description, inputSchema: tool.parameters }),
            ...(tool.idempotent ? { idempotent: true } : {}),
          });
          implementations[tool.name] = async (args, ctx) =>
            mcpResultText(
              await client.callTool(
                { serverId: server.id, name: tool.mcpName, arguments: args },
                { signal: ctx.signal },
              ),
            );
        }
      }
      return { specs, implementations };
    },
  };
}

export type McpServers = ReturnType<typeof makeMcpServers>;

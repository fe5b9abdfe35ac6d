import { PantheonError, validationFailed } from "../../../core/errors";
import {
  checkOutboundUrl,
  fromMcpTool,
  type OutboundPolicy,
  type ToolCallContext,
  type ToolImplementation,
  type ToolSpec,
} from "../../../core/tools";
import type { ToolSource } from "../runs/tools";
import type { McpClient, McpTransport } from "./client";
import { toolsOf, type McpToolView } from "./tool-views";
import type { McpCredentials, McpHeaders, McpHeaderStore } from "./credentials";
import { mcpReservedServerNameMessage, mcpReservedServerNames, mcpServerNamePattern, mcpToolName } from "./names";
import { McpToolError, mcpResultText } from "./results";
import {
  makeMcpQuestions,
  type McpAnswer,
  type McpQuestion,
  type McpQuestionCall,
  type McpQuestionStore,
} from "./elicitation";
import { makeProjectMcp, type ProjectMcpServers, type ProjectMcpToken } from "./project";
import {
  isUnauthorized,
  makeReauthorisations,
  needsAuthorisingState,
  refreshMarginMs,
  unavailableLine,
} from "./reauthorise";

export type { McpToolView };

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
  /** Declared by the project for all its agents (removed there, not on the agent). */
  project?: true;
}

/** The run's call a tool runs for: its idempotency key is `<run>:<call>` (runs/effects.ts), the same after a restart. */
const callOf = (ctx: ToolCallContext): McpQuestionCall | undefined =>
  ctx.run && ctx.idempotencyKey?.startsWith(`${ctx.run.id}:`)
    ? { run: ctx.run.id, id: ctx.idempotencyKey.slice(ctx.run.id.length + 1) }
    : undefined;

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
  /** Where the servers that need authorising again and the servers' questions are kept: the object's storage. */
  store: Pick<McpHeaderStore, "get" | "put"> & McpQuestionStore,
  /** Whether a run still waits on its tool call's outcome (elicitation.ts: a question outlives a restart while it does). */
  callOpen: (call: McpQuestionCall) => boolean = () => false,
  /** The project's MCP servers for all its agents, from its registry (project.ts): none when not given. */
  projectServers: () => Promise<ProjectMcpServers> = async () => ({ version: 0, servers: [] }),
  /** The project's token for one of its servers it authorises by OAuth (the registry's: registry/mcp-oauth.ts). */
  projectToken?: (name: string, refused?: string) => Promise<ProjectMcpToken>,
) {
  const reauth = makeReauthorisations(store);
  /** The project's servers, connected by this agent as its own are (their headers' secrets through the agent's). */
  const project = makeProjectMcp({
    store,
    fetch: projectServers,
    connected: () => Object.keys(client.servers().servers),
    connect: async (server) =>
      void (await servers.connect(server.name, server.url, {
        headers: server.headers,
        fromProject: true,
        ...(server.transport ? { transport: server.transport } : {}),
      })),
    remove: async (id) => {
      await client.remove(id);
      await credentials.forget(id);
      await reauth.clear(id);
    },
    ...(projectToken ? { token: projectToken } : {}),
  });
  /** Questions the servers ask while their tools run (`elicitation/create`), waiting for a person. */
  /** Who hears that a question waits or waits no more (push, attached once the agent's features exist). */
  const questionListeners: ((question: McpQuestion, open: boolean) => void)[] = [];
  const questions = makeMcpQuestions({
    store,
    callOpen,
    told: (question, open) => {
      for (const listener of questionListeners) listener(question, open);
    },
  });
  client.onElicitation((serverId, request, signal) => questions.ask(serverId, request, signal));
  /** Connections restored after an eviction settled (or the wait ran out), and which need authorising again known. */
  const settled = async () => {
    await client.ready(restoreWaitMs);
    await reauth.load();
    await project.load();
  };
  /** Tool list changes since the last run began, told to that run's trace (`turnNotes`). */
  const changes: { server: string; added: string[]; removed: string[] }[] = [];
  const pantheonName = (server: string, tool: string) => mcpToolName(server, tool) ?? tool;
  client.onToolsChanged(({ serverId, added, removed }) => {
    if (changes.length >= 50) changes.shift();
    changes.push({
      server: serverId,
      added: added.map((tool) => pantheonName(serverId, tool)),
      removed: removed.map((tool) => pantheonName(serverId, tool)),
    });
  });

  const outboundCheck = (url: string) => {
    const { allowHosts, ...options } = policy();
    return checkOutboundUrl(url, allowHosts, options);
  };

  type Listed = Omit<McpServerView, "headers">;
  const withHeaders = async (server: Listed): Promise<McpServerView> => ({
    ...server,
    headers: await credentials.declared(server.id),
    ...(project.isProject(server.id) ? { project: true as const } : {}),
  });

  function list(taken?: (providerName: string) => boolean): Listed[] {
    const state = client.servers();
    const entries = Object.entries(state.servers);
    const tools = toolsOf(
      entries.map(([id, server]) => ({ id, name: server.name })),
      state.tools,
      taken,
    );
    return entries.map(([id, server]) => {
      // A host that left the allowlist: the view says so (the SDK records no error for a refused restore).
      const check = outboundCheck(server.server_url);
      // Waiting for a person again, after it was authorised once: said as such, with why.
      // The project's OAuth server is ready while the project holds no token for it: it needs authorising too.
      const again = (server.state !== "ready" ? reauth.reason(id) : undefined) ?? project.unauthorised(id);
      return {
        id,
        name: server.name,
        url: server.server_url,
        state: again ? needsAuthorisingState : server.state,
        error: again
          ? `needs authorising again: ${again}`
          : (server.error ?? (check.ok ? null : `refused: ${check.reason}`)),
        tools: tools.get(id) ?? [],
        ...((server.state === "authenticating" || again) && server.auth_url ? { authUrl: server.auth_url } : {}),
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

  const servers = {
    /** The servers once connections restored after an eviction have settled (or the wait ran out), the project's too. */
    async list(): Promise<McpServerView[]> {
      await settled();
      await project.sync();
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
      options: { transport?: McpTransport; headers?: McpHeaders; callbackOrigin?: string; fromProject?: true } = {},
    ): Promise<McpServerView> {
      if (!mcpServerNamePattern.test(name)) {
        throw validationFailed([
          { path: ["name"], message: "lowercase letters, digits, '-' or '_', starting with a letter, at most 32" },
        ]);
      }
      if (mcpReservedServerNames().has(name)) {
        const message = mcpReservedServerNameMessage(name);
        throw validationFailed([{ path: ["name"], message }], message);
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
      await settled();
      let existing = list().find((s) => s.id === name);
      // The agent's own server of a name wins over the project's: the project's is let go for this agent.
      if (existing && project.isProject(name) && !options.fromProject) {
        await client.remove(name).catch(() => undefined);
        await credentials.forget(name);
        await project.release(name);
        existing = undefined;
      }
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
      await reauth.clear(outcome.serverId);
      await settled();
      return withHeaders(find(outcome.serverId));
    },

    async remove(id: string): Promise<void> {
      await settled();
      find(id);
      if (project.isProject(id))
        throw new PantheonError(
          "conflict",
          `MCP server '${id}' is the project's, for all its agents: remove it from the project (pantheon mcp remove --project-wide ${id})`,
          { details: { mcpServer: id } },
        );
      await client.remove(id);
      await credentials.forget(id);
      await reauth.clear(id);
    },

    /** Removes every server (the agent was deleted). */
    async removeAll(): Promise<void> {
      for (const server of list()) {
        await client.remove(server.id).catch(() => undefined);
        await credentials.forget(server.id);
        await reauth.clear(server.id);
      }
      await project.wipe();
    },

    /**
     * Restored connections settled, the secrets their headers name known (so every trace is redacted
     * of them), and each OAuth token that expires within a minute refreshed; a server whose token
     * could not be refreshed needs authorising again (its tools are left out; `turnNotes` says so).
     */
    async ready(): Promise<void> {
      await settled();
      await project.sync();
      await project.checkTokens();
      if (client.connectionCount() === 0) return;
      const servers = list();
      await credentials.load(servers.map((server) => server.id));
      for (const server of servers) {
        if (server.state !== "ready") continue;
        try {
          if ((await client.refreshIfExpiring(server.id, refreshMarginMs)) === "needs-authorisation")
            await reauth.flag(server.id, "its token could not be refreshed");
        } catch (error) {
          // The authorization server could not be reached: the token is tried again next turn.
          console.warn(
            `MCP server '${server.id}': refreshing its token failed`,
            error instanceof Error ? error.message : error,
          );
        }
      }
    },

    /** Tells `listener` each time a server's question begins to wait for a person, and once it waits no more. */
    onQuestion(listener: (question: McpQuestion, open: boolean) => void): void {
      questionListeners.push(listener);
    },

    /** The project's token for its OAuth server `id` (credentials.ts sends it), held until near its expiry. */
    projectToken: (id: string): Promise<ProjectMcpToken> => project.tokenOf(id),

    /** The project's new declarations (workers/api/mcp-project.ts): kept, and connected before the next turn. */
    projectChanged: (next: ProjectMcpServers): Promise<void> => project.keep(next),

    /** The questions the servers asked that wait for a person (`elicitation/create`), oldest first. */
    questions: (): Promise<McpQuestion[]> => questions.list(),

    /**
     * Sends a person's answer (accept with content, decline, cancel) back to the server that asked:
     * 404 when it waits no more, 409 when the call that asked it ended in a restart (elicitation.ts).
     */
    async answerQuestion(id: string, answer: McpAnswer): Promise<{ sent: boolean }> {
      const outcome = await questions.answer(id, answer);
      if (!outcome.ok) throw new PantheonError(outcome.code, outcome.message, { details: { question: id } });
      return { sent: outcome.sent };
    },

    /** The servers that need authorising again, with why: read from storage, no connection woken (the doctor). */
    needsAuthorising: () => reauth.all(),

    /**
     * What a run that begins is told of its MCP servers: trace steps (`mcp_tools_changed`: a server's
     * tools added and removed since the last run began).
     */
    turnNotes(): { trace: { name: string; data: Record<string, unknown> }[]; system: string[] } {
      const trace: { name: string; data: Record<string, unknown> }[] = changes
        .splice(0)
        .map((change) => ({ name: "mcp_tools_changed", data: change }));
      const system: string[] = [];
      for (const server of list()) {
        const reason =
          server.state === needsAuthorisingState
            ? (reauth.reason(server.id) ?? project.unauthorised(server.id))
            : undefined;
        if (!reason) continue;
        system.push(unavailableLine(server.id, reason));
        trace.push({ name: "mcp_unavailable", data: { server: server.id, state: server.state, reason } });
      }
      return { trace, system };
    },

    /** Whether the agent has any MCP connection (its tools may then change at any moment, as servers come and go). */
    hasConnections: (): boolean => client.connectionCount() > 0,

    /** The tools of every ready server, as the agent's tools see them right now. */
    /**
     * The tools of every ready server, as the agent's tools see them right now. They are named last
     * (`late`): a tool whose name another source declared is offered as `mcp.<server>.<tool>`.
     */
    toolSource(): ToolSource {
      const none = { specs: [], implementations: {} };
      // Asked on every turn; an agent without a connection has no ready server, and listing the
      // servers would read the SDK's table for nothing.
      if (client.connectionCount() === 0) return none;
      return {
        ...none,
        late: (taken) => {
          const specs: ToolSpec[] = [];
          // No prototype: a tool the server names `__proto__` or `constructor` is a key like any other.
          const implementations = Object.create(null) as Record<string, ToolImplementation>;
          for (const server of list(taken)) {
            // A server whose host left the allowlist offers no tools (its requests would be refused anyway).
            if (server.state !== "ready" || !outboundCheck(server.url).ok) continue;
            for (const tool of server.tools) {
              specs.push({
                ...fromMcpTool({ name: tool.name, description: tool.description, inputSchema: tool.parameters }),
                ...(tool.idempotent ? { idempotent: true } : {}),
              });
              implementations[tool.name] = async (args, ctx) => {
                const invoke = async () => {
                  try {
                    const result = await questions.during(server.id, callOf(ctx), () =>
                      client.callTool(
                        { serverId: server.id, name: tool.mcpName, arguments: args },
                        { signal: ctx.signal },
                      ),
                    );
                    return client.redactSent(server.id, mcpResultText(result));
                  } catch (error) {
                    // The error keeps its type (a 401 is told apart below); only its words are redacted.
                    if (error instanceof Error) error.message = client.redactSent(server.id, error.message);
                    throw error;
                  }
                };
                try {
                  return await invoke();
                } catch (error) {
                  // The project's server refused the project's token: the registry refreshes it once, or it needs a person.
                  if (isUnauthorized(error) && project.isOAuth(server.id)) {
                    const reason = await project.refused(server.id);
                    if (reason === undefined) return invoke();
                    throw new McpToolError(unavailableLine(server.id, reason), { cause: error });
                  }
                  // Refused its token and the SDK could not refresh it: a person must authorise it again.
                  if (!isUnauthorized(error) || !client.awaitAuthorisation(server.id)) throw error;
                  const reason = "it refused its token";
                  await reauth.flag(server.id, reason);
                  throw new McpToolError(unavailableLine(server.id, reason), { cause: error });
                }
              };
            }
          }
          return { specs, implementations };
        },
      };
    },
  };
  return servers;
}

export type McpServers = ReturnType<typeof makeMcpServers>;

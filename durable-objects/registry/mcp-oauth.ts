import { auth } from "@modelcontextprotocol/client";
import { DurableObjectOAuthClientProvider } from "agents";
import { PantheonError, validationFailed, type Result } from "../../core/errors";
import { makeSecretCipher, readDeploymentSecret, type SecretCipher } from "../../core/secrets";
import { makeGuardedFetch, outboundSettingsFrom, type FetchFn, type OutboundOptions } from "../../core/tools";
import { refreshMarginMs } from "../agent/mcp/reauthorise";
import { sealedTokenStorage, tokenExpiresAt } from "../agent/mcp/oauth";
import type { McpServerStore, ProjectMcpServer, ProjectMcpServers } from "./mcp-server-store";

/**
 * Where a person's browser returns after authorising one of the project's MCP servers (the worker's
 * public route, workers/api/mcp-oauth.ts): the project picks the registry, the `state` it issued the server.
 */
export const mcpProjectOAuthCallbackPath = (project: string) =>
  `/api/oauth/mcp-project/${encodeURIComponent(project)}/callback`;

/** Everything of a project server's authorisation is kept under this prefix (the SDK's keys and ours). */
export const mcpOAuthPrefix = "/mcp-oauth/";

/** What the project knows of a server's authorisation; the listing shows it, never a token. */
export type ProjectMcpAuthorisation =
  | { state: "authorised"; expiresAt?: number }
  | { state: "authenticating"; authUrl?: string }
  | { state: "needs_reauthorization"; reason: string };

/** A token for an agent's requests to the project's server, or why there is none. */
export type ProjectMcpToken = { ok: true; token: string; expiresAt?: number } | { ok: false; reason: string };

/** The registry's storage as the SDK's provider takes it (named through the SDK, so builds without the Workers types read it too). */
type Storage = ConstructorParameters<typeof DurableObjectOAuthClientProvider>[0];

/** Ours beside the SDK's keys: the client it registered, its redirect URL, the consent page, why it needs a person. */
interface Record_ {
  /** The URL the server was authorised for: a token is never sent to another (an import may change it). */
  url?: string;
  clientId?: string;
  redirectUrl?: string;
  authUrl?: string;
  needs?: string;
}

/** The SDK's provider, with a client name that tells the person on the consent page who asks. */
class ProjectProvider extends DurableObjectOAuthClientProvider {
  constructor(
    storage: Storage,
    private readonly project: string,
    redirectUrl: string,
  ) {
    super(storage, mcpOAuthPrefix.slice(1, -1), redirectUrl);
  }
  override get clientMetadata() {
    return { ...super.clientMetadata, client_name: `Pantheon (project ${this.project})` };
  }
}

export interface ProjectMcpOAuthDeps {
  storage: Storage;
  cipher: () => Promise<SecretCipher>;
  project: () => string;
  /** The project's declaration of server `name` (only one that says `oauth` is authorised here). */
  server(name: string): ProjectMcpServer | undefined;
  /** The declarations' version grows (a server authorised): the agents handed them connect it again. */
  changed(): ProjectMcpServers;
  /** The deployment's loopback and private-host rules (PANTHEON_ALLOW_LOOPBACK_OUTBOUND, …). */
  outbound: OutboundOptions;
  fetch?: FetchFn;
}

/**
 * The OAuth authorisations of the project's MCP servers: one token set per server, authorised once
 * by an admin and used by every agent of the project. The flow is the MCP SDK's `auth()` (discovery
 * from the server, dynamic client registration, PKCE, refresh) over the agents SDK's
 * DurableObjectOAuthClientProvider, its token sets sealed for this project (agent/mcp/oauth.ts), as
 * an agent's own servers are; the registry refreshes a token before it expires, once for all
 * agents, so a rotating refresh token is never spent twice. Its requests pass the outbound guard:
 * public hosts only, unless the deployment opens loopback or private ones.
 * @example
 * const oauth = makeProjectMcpOAuth({ storage: ctx.storage, cipher, project, server, changed, outbound });
 * await oauth.start("github", "https://pantheon.example.com"); // { state: "authenticating", authUrl }
 * await oauth.token("github"); // { ok: true, token } for an agent's request
 */
export function makeProjectMcpOAuth(deps: ProjectMcpOAuthDeps) {
  const base = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
  // Each request may reach its own host (the server's, its authorization server's) when it is public.
  const fetchFn: FetchFn = (input, init) => {
    const host = new URL(input instanceof Request ? input.url : String(input)).hostname;
    return makeGuardedFetch(base, () => ({ ...deps.outbound, allowHosts: [host.replace(/^\[|\]$/g, "")] }))(
      input,
      init,
    );
  };
  const recordKey = (name: string) => `${mcpOAuthPrefix}${name}/pantheon`;
  const record = async (name: string) => (await deps.storage.get<Record_>(recordKey(name))) ?? {};
  const save = (name: string, next: Record_) => deps.storage.put(recordKey(name), next);
  const storage = () => sealedTokenStorage(deps.storage, deps.cipher, deps.project) as Storage;
  const refreshing = new Map<string, Promise<ProjectMcpToken>>();

  function provider(name: string, redirectUrl: string, clientId?: string) {
    const p = new ProjectProvider(storage(), deps.project(), redirectUrl);
    p.serverId = name;
    if (clientId) p.clientId = clientId;
    return p;
  }
  const clientOf = (p: ProjectProvider): string | undefined => {
    try {
      return p.clientId;
    } catch {
      return undefined;
    }
  };
  const oauthServer = (name: string): ProjectMcpServer => {
    const server = deps.server(name);
    if (!server?.oauth)
      throw new PantheonError("not_found", `the project declares no MCP server '${name}' that is authorised by OAuth`, {
        details: { mcpServer: name },
      });
    return server;
  };

  async function refresh(name: string, refused: boolean): Promise<ProjectMcpToken> {
    const server = oauthServer(name);
    const kept = await record(name);
    const p = provider(name, kept.redirectUrl ?? "", kept.clientId);
    let outcome: string;
    try {
      outcome = await auth(p, { serverUrl: server.url, fetchFn });
    } catch (error) {
      // The authorization server could not be reached: tried again at the next request.
      return { ok: false, reason: `its token could not be refreshed now (${(error as Error).message})` };
    }
    const tokens = outcome === "AUTHORIZED" ? await p.tokens() : undefined;
    if (!tokens) {
      const needs = refused ? "it refused its token" : "its token could not be refreshed";
      await save(name, { ...kept, needs, ...(p.authUrl ? { authUrl: p.authUrl } : {}) });
      return { ok: false, reason: needs };
    }
    const clientId = clientOf(p);
    return {
      ok: true,
      token: tokens.access_token,
      ...withExpiry(clientId ? await tokenExpiresAt(deps.storage, p.tokenKey(clientId)) : undefined),
    };
  }
  const withExpiry = (expiresAt: number | undefined) => (expiresAt === undefined ? {} : { expiresAt });

  return {
    /**
     * Starts (or starts again) the authorisation of server `name`: the consent page's URL a person
     * opens; the browser comes back to this project's callback at `origin`.
     */
    async start(name: string, origin: string): Promise<Result<ProjectMcpAuthorisation>> {
      const server = oauthServer(name);
      const kept = await record(name);
      const redirectUrl = new URL(mcpProjectOAuthCallbackPath(deps.project()), origin).href;
      // A client registered for another callback address cannot be sent to this one.
      const p = provider(name, redirectUrl, kept.redirectUrl === redirectUrl ? kept.clientId : undefined);
      try {
        const outcome = await auth(p, { serverUrl: server.url, fetchFn, forceReauthorization: true });
        await save(name, {
          ...kept,
          url: server.url,
          redirectUrl,
          ...(clientOf(p) ? { clientId: clientOf(p) } : {}),
          authUrl: p.authUrl,
        });
        if (outcome === "AUTHORIZED") return { ok: true, value: { state: "authorised" } };
        return { ok: true, value: { state: "authenticating", ...(p.authUrl ? { authUrl: p.authUrl } : {}) } };
      } catch (error) {
        return new PantheonError(
          "tool_failed",
          `could not start the authorisation of the MCP server at ${server.url}: ${(error as Error).message}`,
          { details: { mcpServer: name, url: server.url } },
        ).toFailure();
      }
    },

    /**
     * The browser came back from the consent page: only a `state` this project issued for a server
     * it declares, not used before and not expired, completes; the code is exchanged for tokens
     * (kept sealed) and every agent connects the server again before its next turn.
     */
    async complete(callbackUrl: string): Promise<Result<{ server: string; servers: ProjectMcpServers }>> {
      const url = new URL(callbackUrl);
      const state = url.searchParams.get("state") ?? "";
      const name = state.slice(state.indexOf(".") + 1);
      const refuse = (reason: string) =>
        validationFailed([{ path: ["state"], message: reason }], `MCP authorisation refused: ${reason}`).toFailure();
      const server = state.includes(".") ? deps.server(name) : undefined;
      if (!server?.oauth) return refuse("no MCP server of this project waits for an authorisation with this state");
      const kept = await record(name);
      const p = provider(name, kept.redirectUrl ?? new URL(callbackUrl).origin, kept.clientId);
      const check = await p.checkState(state);
      if (!check.valid) return refuse(`the authorisation's state is refused: ${check.error ?? "invalid"}`);
      await p.consumeState(state);
      const code = url.searchParams.get("code");
      if (!code) return refuse(url.searchParams.get("error_description") ?? url.searchParams.get("error") ?? "no code");
      try {
        await p.runWithCodeVerifierState(state, async () => {
          await auth(p, {
            serverUrl: server.url,
            authorizationCode: code,
            fetchFn,
            ...(url.searchParams.get("iss") ? { iss: url.searchParams.get("iss")! } : {}),
          });
          await p.deleteCodeVerifier();
        });
      } catch (error) {
        return refuse(`the code could not be exchanged: ${(error as Error).message}`);
      }
      const { needs: _needs, authUrl: _authUrl, ...rest } = kept;
      await save(name, { ...rest, url: server.url });
      return { ok: true, value: { server: name, servers: deps.changed() } };
    },

    /**
     * The access token an agent sends server `name`, refreshed first when it expires within a minute
     * (or when `refused` is the token the server just refused); none while a person must authorise.
     */
    async token(name: string, refused?: string): Promise<ProjectMcpToken> {
      const server = deps.server(name);
      if (!server?.oauth) return { ok: false, reason: "the project does not authorise it by OAuth" };
      const kept = await record(name);
      if (kept.needs) return { ok: false, reason: kept.needs };
      if (kept.url !== server.url) return { ok: false, reason: "it has not been authorised at its URL" };
      const p = provider(name, kept.redirectUrl ?? "", kept.clientId);
      const tokens = kept.clientId ? await p.tokens() : undefined;
      if (!tokens) return { ok: false, reason: "it has not been authorised yet" };
      const expiresAt = await tokenExpiresAt(deps.storage, p.tokenKey(kept.clientId!));
      const stale = refused !== undefined && refused === tokens.access_token;
      if (!stale && (expiresAt === undefined || expiresAt - Date.now() > refreshMarginMs))
        return { ok: true, token: tokens.access_token, ...withExpiry(expiresAt) };
      // One refresh for all the agents that ask meanwhile.
      let pending = refreshing.get(name);
      if (!pending) {
        pending = refresh(name, stale).finally(() => refreshing.delete(name));
        refreshing.set(name, pending);
      }
      return pending;
    },

    /** Each OAuth server's state, for the listing (no token). */
    async status(name: string): Promise<ProjectMcpAuthorisation> {
      const kept = await record(name);
      if (kept.needs) return { state: "needs_reauthorization", reason: kept.needs };
      if (kept.url && kept.url !== deps.server(name)?.url)
        return { state: "needs_reauthorization", reason: "its URL changed" };
      const p = provider(name, kept.redirectUrl ?? "", kept.clientId);
      if (kept.clientId && (await p.tokens())) {
        const expiresAt = await tokenExpiresAt(deps.storage, p.tokenKey(kept.clientId));
        return { state: "authorised", ...withExpiry(expiresAt) };
      }
      return { state: "authenticating", ...(kept.authUrl ? { authUrl: kept.authUrl } : {}) };
    },

    /** Forgets everything of server `name`'s authorisation (it was removed, or changed its URL). */
    async forget(name: string): Promise<void> {
      const keys = [...(await deps.storage.list({ prefix: `${mcpOAuthPrefix}${name}/` })).keys()];
      for (let i = 0; i < keys.length; i += 128) await deps.storage.delete(keys.slice(i, i + 128));
    },
  };
}

export type ProjectMcpOAuth = ReturnType<typeof makeProjectMcpOAuth>;

/**
 * The project's servers with their OAuth, as the registry holds them: a server removed, or given
 * another URL, or no longer authorised by OAuth, has the tokens it was given forgotten.
 * @example
 * const mcp = makeRegistryMcp(makeMcpServerStore(ctx.storage.kv), { storage: ctx.storage, env, project });
 * await mcp.put({ name: "github", url, headers: {}, oauth: true }); await mcp.oauth.start("github", origin);
 */
export function makeRegistryMcp(store: McpServerStore, deps: { storage: Storage; env: Env; project: () => string }) {
  const oauth = makeProjectMcpOAuth({
    storage: deps.storage,
    cipher: async () => makeSecretCipher(await readDeploymentSecret(deps.env as never, "PANTHEON_SECRETS_KEY")),
    project: deps.project,
    server: (name) => store.get(name),
    changed: () => store.touch(),
    outbound: outboundSettingsFrom(deps.env),
  });
  return {
    oauth,
    async put(server: ProjectMcpServer) {
      const before = store.get(server.name);
      if (before && (before.url !== server.url || !server.oauth)) await oauth.forget(server.name);
      return store.put(server);
    },
    async remove(name: string) {
      await oauth.forget(name);
      return store.remove(name);
    },
  };
}

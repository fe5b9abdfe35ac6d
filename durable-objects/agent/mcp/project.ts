import type { ProjectMcpToken } from "../../registry/mcp-oauth";
import type { ProjectMcpServer, ProjectMcpServers } from "../../registry/mcp-server-store";
import { refreshMarginMs } from "./reauthorise";

export type { ProjectMcpServer, ProjectMcpServers, ProjectMcpToken };

/** The object's storage as the project's servers use it (a Durable Object's own storage fits). */
export interface ProjectMcpStore {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export interface ProjectMcpDeps {
  store: ProjectMcpStore;
  /** The project's declarations from its registry: read once, when the agent keeps no copy yet. */
  fetch(): Promise<ProjectMcpServers>;
  /** The ids of the servers the agent's MCP client holds now. */
  connected(): string[];
  /** Connects a declared server for this agent (throws why it could not). */
  connect(server: ProjectMcpServer): Promise<void>;
  remove(id: string): Promise<void>;
  /**
   * The project's access token for its OAuth server `name` (the registry's, refreshed there once for
   * all its agents); `refused` is the token the server just refused.
   */
  token?(name: string, refused?: string): Promise<ProjectMcpToken>;
}

const copyKey = "pantheon:mcp:project:copy";
/** Which of the client's servers are the project's, each with the declaration it was connected from. */
const idsKey = "pantheon:mcp:project:ids";
/** The declarations that could not connect, with the copy's version then: tried again at the next change. */
const failedKey = "pantheon:mcp:project:failed";

/**
 * The MCP servers the project declares for all its agents, connected by this agent with its own
 * client, so they pass its outbound guard and its gates like its own servers, and their headers'
 * secrets are read from the project through its secrets (never stored with the declaration). The
 * agent keeps a copy of the project's declarations, handed to it on every change
 * (workers/api/mcp-project.ts), and brings its connections in line before a turn. A server of its own
 * with the same name wins: the project's is not connected for this agent.
 * @example
 * const project = makeProjectMcp({ store: ctx.storage, fetch, connected, connect, remove });
 * await project.sync(); // before a turn: the project's servers connected, the removed ones gone
 */
export function makeProjectMcp(deps: ProjectMcpDeps) {
  /** The declaration version this incarnation last brought the connections in line with. */
  let synced: number | undefined;
  let syncing: Promise<void> | undefined;
  let ids: Record<string, string> = {};
  /** The project's tokens this incarnation holds (memory only), and why a server has none. */
  const tokens = new Map<string, { token: string; expiresAt?: number }>();
  const unauthorised = new Map<string, string>();
  const isOAuth = (id: string): boolean =>
    id in ids && (JSON.parse(ids[id]!) as Partial<ProjectMcpServer>).oauth === true;
  const noted = (name: string, got: ProjectMcpToken): ProjectMcpToken => {
    if (got.ok) {
      tokens.set(name, { token: got.token, ...(got.expiresAt ? { expiresAt: got.expiresAt } : {}) });
      unauthorised.delete(name);
    } else {
      tokens.delete(name);
      unauthorised.set(name, got.reason);
    }
    return got;
  };
  async function tokenOf(name: string): Promise<ProjectMcpToken> {
    const held = tokens.get(name);
    if (held && (held.expiresAt === undefined || held.expiresAt - Date.now() > refreshMarginMs))
      return { ok: true, token: held.token };
    return noted(name, (await deps.token?.(name)) ?? { ok: false, reason: "the project holds no token for it" });
  }

  async function copy(): Promise<ProjectMcpServers> {
    const kept = await deps.store.get<ProjectMcpServers>(copyKey);
    if (kept) return kept;
    const fetched = await deps.fetch();
    await keep(fetched);
    return (await deps.store.get<ProjectMcpServers>(copyKey)) ?? fetched;
  }

  /** Keeps a copy unless a newer one is kept already (two copies may arrive out of order). */
  async function keep(next: ProjectMcpServers): Promise<void> {
    const kept = await deps.store.get<ProjectMcpServers>(copyKey);
    if (!kept || next.version >= kept.version) await deps.store.put(copyKey, next);
  }

  async function run(): Promise<void> {
    const declared = await copy();
    if (declared.version === synced) return;
    // A new version may be an authorisation: the tokens are asked for again.
    tokens.clear();
    unauthorised.clear();
    // A map of its own while connecting: connecting settles the client, which reads `ids` (load) meanwhile.
    const mine = { ...((await deps.store.get<Record<string, string>>(idsKey)) ?? {}) };
    const failed = (await deps.store.get<Record<string, { version: number; reason: string }>>(failedKey)) ?? {};
    const connected = new Set(deps.connected());
    const names = new Set(declared.servers.map((server) => server.name));
    // Gone from the project, or no longer in the client: forgotten (a changed one is connected anew below).
    for (const id of Object.keys(mine)) {
      const now = declared.servers.find((server) => server.name === id);
      if (names.has(id) && connected.has(id) && JSON.stringify(now) === mine[id]) continue;
      if (connected.has(id)) await deps.remove(id).catch(() => undefined);
      connected.delete(id);
      delete mine[id];
    }
    for (const server of declared.servers) {
      // Connected already, or the agent's own server of that name (which wins).
      if (connected.has(server.name)) continue;
      if (failed[server.name]?.version === declared.version) continue;
      try {
        // One the project authorises by OAuth is sent its token (credentials.ts reads it at each request).
        await deps.connect(
          server.oauth ? { ...server, headers: { ...server.headers, Authorization: { oauth: "project" } } } : server,
        );
        mine[server.name] = JSON.stringify(server);
        delete failed[server.name];
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        failed[server.name] = { version: declared.version, reason };
        console.warn(`project MCP server '${server.name}' did not connect`, reason);
      }
    }
    for (const name of Object.keys(failed)) if (!names.has(name)) delete failed[name];
    ids = mine;
    await deps.store.put(idsKey, mine);
    await deps.store.put(failedKey, failed);
    synced = declared.version;
  }

  return {
    keep,
    /** Brings the connections in line with the project's declarations (once per version per incarnation). */
    sync(): Promise<void> {
      syncing ??= run().finally(() => {
        syncing = undefined;
      });
      return syncing;
    },
    isOAuth,
    /** The project's token for its server `name`, held until a minute before it expires. */
    tokenOf,
    /** Why the project's OAuth server `id` has no token (it needs authorising again), if it has none. */
    unauthorised: (id: string): string | undefined => (isOAuth(id) ? unauthorised.get(id) : undefined),
    /** Before a turn: each connected OAuth server's token asked for (refreshed by the registry when it expires soon). */
    async checkTokens(): Promise<void> {
      for (const id of Object.keys(ids)) if (isOAuth(id)) await tokenOf(id).catch(() => undefined);
    },
    /** The server refused the token it was sent: a fresh one if the project has it (undefined), else why not. */
    async refused(id: string): Promise<string | undefined> {
      const got = noted(
        id,
        (await deps.token?.(id, tokens.get(id)?.token)) ?? { ok: false, reason: "it refused its token" },
      );
      return got.ok ? undefined : got.reason;
    },
    /** Whether the client's server `id` is the project's (not the agent's own). */
    isProject: (id: string): boolean => id in ids,
    /** Reads which servers are the project's (after an eviction, before listing). */
    async load(): Promise<void> {
      if (!syncing) ids = (await deps.store.get<Record<string, string>>(idsKey)) ?? {};
    },
    /** The project's server `id` was replaced by the agent's own of the same name. */
    async release(id: string): Promise<void> {
      delete ids[id];
      await deps.store.put(idsKey, ids);
    },
    /** Why the project's servers that could not connect did not (the listing says so). */
    failures: async () => (await deps.store.get<Record<string, { version: number; reason: string }>>(failedKey)) ?? {},
    async wipe(): Promise<void> {
      ids = {};
      synced = undefined;
      for (const key of [copyKey, idsKey, failedKey]) await deps.store.delete(key);
    },
  };
}

export type ProjectMcp = ReturnType<typeof makeProjectMcp>;

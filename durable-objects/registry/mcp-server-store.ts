import { PantheonError, type Result } from "../../core/errors";

/** A header a project's MCP server is sent: a literal value, or a project secret by name (never its value). */
export type ProjectMcpHeaderValue = string | { secret: string; prefix?: string } | { oauth: "project" };

/** An MCP server a project declares for all its agents: names and references only, no credential. */
export interface ProjectMcpServer {
  name: string;
  url: string;
  transport?: "auto" | "streamable-http" | "sse";
  headers: Record<string, ProjectMcpHeaderValue>;
  /** Authorised once by OAuth for the whole project (./mcp-oauth.ts): every agent sends the project's token. */
  oauth?: true;
}

/** The project's declarations as an agent keeps them: `version` grows with every change, so a newer copy wins. */
export interface ProjectMcpServers {
  version: number;
  servers: ProjectMcpServer[];
}

/** The registry's key-value storage (SQLite-backed): a record per server, no schema needed. */
interface Kv {
  get<T>(key: string): T | undefined;
  put(key: string, value: unknown): void;
  delete(key: string): boolean;
  list<T>(options: { prefix: string }): Iterable<[string, T]>;
}

const prefix = "mcp-server/";
const versionKey = "mcp-server-version";
/** A project's servers are connected by every agent of it at each turn: a handful, not a catalogue. */
export const maxProjectMcpServers = 16;

/**
 * The MCP servers a project declares for all its agents, kept in the registry beside its agents.
 * Each agent of the project connects them itself (durable-objects/agent/mcp/project.ts): the registry
 * holds only the declaration (URL, transport, headers naming secrets), so it never holds a token.
 * @example
 * const servers = makeMcpServerStore(ctx.storage.kv);
 * servers.put({ name: "docs", url: "https://mcp.example.com/mcp", headers: {} }); // { version: 1, servers: [...] }
 */
export function makeMcpServerStore(kv: Kv) {
  const all = (): ProjectMcpServers => ({
    version: kv.get<number>(versionKey) ?? 0,
    servers: [...kv.list<ProjectMcpServer>({ prefix })].map(([, s]) => s).sort((a, b) => a.name.localeCompare(b.name)),
  });
  const bump = () => kv.put(versionKey, (kv.get<number>(versionKey) ?? 0) + 1);
  return {
    list: all,
    get: (name: string): ProjectMcpServer | undefined => kv.get<ProjectMcpServer>(`${prefix}${name}`),
    /** The agents connect again before their next turn (a server was authorised), the declarations unchanged. */
    touch(): ProjectMcpServers {
      bump();
      return all();
    },
    /** Declares (or replaces) a server; the same declaration again changes nothing, not even the version. */
    put(server: ProjectMcpServer): Result<ProjectMcpServers> {
      const before = kv.get<ProjectMcpServer>(`${prefix}${server.name}`);
      if (before && JSON.stringify(before) === JSON.stringify(server)) return { ok: true, value: all() };
      if (!before && all().servers.length >= maxProjectMcpServers)
        return new PantheonError(
          "conflict",
          `a project declares at most ${maxProjectMcpServers} MCP servers; remove one first`,
          { details: { limit: maxProjectMcpServers } },
        ).toFailure();
      kv.put(`${prefix}${server.name}`, server);
      bump();
      return { ok: true, value: all() };
    },
    remove(name: string): Result<ProjectMcpServers> {
      if (!kv.delete(`${prefix}${name}`))
        return new PantheonError("not_found", `the project declares no MCP server '${name}'`, {
          details: { mcpServer: name },
        }).toFailure();
      bump();
      return { ok: true, value: all() };
    },
  };
}

export type McpServerStore = ReturnType<typeof makeMcpServerStore>;

import { PantheonError, validationFailed, type FieldIssue } from "../../../core/errors";
import { toolSecretRefusal, type FetchFn } from "../../../core/tools";

/**
 * A header an MCP server is sent with every request: a literal value, or a project secret by name
 * (`prefix` before it, e.g. `"Bearer "`, so the secret holds the token alone and the redactor knows
 * the token itself).
 */
export type McpHeaderValue = string | { secret: string; prefix?: string } | ProjectOAuthHeader;
/** `Authorization: Bearer <the project's token>` for a server the project authorises by OAuth (project.ts). */
export type ProjectOAuthHeader = { oauth: "project" };
const isProjectOAuth = (value: McpHeaderValue): value is ProjectOAuthHeader =>
  typeof value === "object" && "oauth" in value;
export type McpHeaders = Record<string, McpHeaderValue>;

/** Where a server's header declarations are kept: the object's key-value storage (names only, never a value). */
export interface McpHeaderStore {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
}

export interface McpCredentialsDeps {
  store: McpHeaderStore;
  /** The project's secret `name` as the agent's tools read it (secrets/ `get(name, "tool")`), loaded when needed. */
  secret(name: string): Promise<string | undefined>;
  /**
   * Reads `names` from the project again: no profile names them, so the registry tells this agent of
   * no change to them (secrets/ `refresh`).
   */
  refresh(names: string[]): Promise<void> | undefined;
  project(): string;
  /** The project's access token for its server `serverId` (project.ts), or why there is none. */
  projectToken?(serverId: string): Promise<{ ok: true; token: string } | { ok: false; reason: string }>;
}

const keyOf = (serverId: string) => `pantheon:mcp:headers:${serverId}`;
const secretNames = (headers: McpHeaders): string[] =>
  Object.values(headers).flatMap((value) => (typeof value === "string" || isProjectOAuth(value) ? [] : [value.secret]));

/**
 * The headers of each MCP server, resolved at each request: the declaration (secret names) is kept
 * in the object's storage, the values are read from the project's secrets when a request is sent,
 * so a value never reaches the SDK's stored server options, a listing, an export or a trace, and a
 * secret replaced in the project is the one the next request carries. Loading a value through the
 * agent's secrets also puts it on the list of secrets every trace, error and span is redacted of.
 * @example
 * const credentials = makeMcpCredentials({ store: ctx.storage, secret: (n) => secrets.get(n, "tool"), project });
 * await credentials.declare("github", { Authorization: { secret: "GITHUB_TOKEN", prefix: "Bearer " } });
 * const fetchFor = credentials.fetchFor(guardedFetch); // fetchFor("github") adds the header
 */
export function makeMcpCredentials(deps: McpCredentialsDeps) {
  /** Declarations read this incarnation (a missing one as `{}`), so a request costs no storage read. */
  const cache = new Map<string, McpHeaders>();

  async function declared(serverId: string): Promise<McpHeaders> {
    let headers = cache.get(serverId);
    if (!headers) {
      headers = (await deps.store.get<McpHeaders>(keyOf(serverId))) ?? {};
      cache.set(serverId, headers);
    }
    return headers;
  }

  /** The values to send; throws (naming header and secret, never a value) when a named secret is gone. */
  async function resolve(serverId: string): Promise<[string, string][]> {
    const out: [string, string][] = [];
    for (const [header, value] of Object.entries(await declared(serverId))) {
      if (typeof value === "string") {
        out.push([header, value]);
        continue;
      }
      if (isProjectOAuth(value)) {
        const token = (await deps.projectToken?.(serverId)) ?? { ok: false, reason: "no project token" };
        if (!token.ok)
          throw new PantheonError("unauthorized", `MCP server '${serverId}' needs authorising again: ${token.reason}`, {
            details: { mcpServer: serverId },
          });
        out.push([header, `Bearer ${token.token}`]);
        continue;
      }
      const secret = await deps.secret(value.secret);
      if (secret === undefined)
        throw new PantheonError(
          "validation_failed",
          `MCP server '${serverId}': header ${header} names secret '${value.secret}', which project '${deps.project()}' no longer has`,
          { details: { mcpServer: serverId, header, secret: value.secret } },
        );
      out.push([header, `${value.prefix ?? ""}${secret}`]);
    }
    return out;
  }

  return {
    declared,

    /**
     * Refuses (400 naming `headers.<name>.secret`) a declaration whose secret the project does not
     * have or no tool may hold (Pantheon's own, a model key). Reads each value once, which loads it.
     */
    async check(headers: McpHeaders): Promise<void> {
      await deps.refresh(secretNames(headers));
      const issues: FieldIssue[] = [];
      for (const [header, value] of Object.entries(headers)) {
        if (typeof value === "string" || isProjectOAuth(value)) continue;
        const found = await deps.secret(value.secret);
        const refusal = toolSecretRefusal(value.secret, found === undefined ? [] : [value.secret], deps.project(), {
          list: false,
        });
        if (refusal) issues.push({ path: ["headers", header, "secret"], message: refusal });
      }
      if (issues.length) throw validationFailed(issues, issues[0]!.message);
    },

    async declare(serverId: string, headers: McpHeaders): Promise<void> {
      cache.set(serverId, headers);
      if (Object.keys(headers).length) await deps.store.put(keyOf(serverId), headers);
      else await deps.store.delete(keyOf(serverId));
    },

    async forget(serverId: string): Promise<void> {
      cache.delete(serverId);
      await deps.store.delete(keyOf(serverId));
    },

    /**
     * Reads every secret the headers of `serverIds` name again (one round trip, none without such a
     * header), before a turn: the turn's requests carry the values the project has now, and the
     * redactor knows them before the run writes.
     */
    async load(serverIds: string[]): Promise<void> {
      const names = new Set<string>();
      for (const id of serverIds) for (const name of secretNames(await declared(id))) names.add(name);
      await deps.refresh([...names]);
    },

    /**
     * `fetch` for the connection `serverId` at `url`: its headers added to every request to the
     * server's origin (before the guard, which drops credentials on a redirect to another origin);
     * requests elsewhere (an OAuth authorization server) get none.
     */
    fetchFor(fetch: FetchFn) {
      return (serverId: string, url: string): FetchFn =>
        async (input, init) => {
          const target = input instanceof Request ? input.url : String(input);
          if (new URL(target).origin !== new URL(url).origin) return fetch(input, init);
          const values = await resolve(serverId);
          if (!values.length) return fetch(input, init);
          const headers = new Headers(input instanceof Request && !init?.headers ? input.headers : init?.headers);
          for (const [name, value] of values) headers.set(name, value);
          return fetch(input, { ...init, headers });
        };
    },
  };
}

export type McpCredentials = ReturnType<typeof makeMcpCredentials>;

import type { McpHeaderStore } from "./credentials";

/** How long before its access token expires a server's token is refreshed (before a turn lists or calls its tools). */
export const refreshMarginMs = 60_000;

const key = "pantheon:mcp:reauthorise";

/** What "needs authorising again" reads as, for the API's listing, the CLI, the doctor and the model. */
export const needsAuthorisingState = "needs_reauthorization";

/**
 * The OAuth servers that need a person to authorise them again (their token could not be refreshed,
 * or they refused it), with why: kept in the object's storage so the state outlives an eviction and
 * the doctor can read it without waking any connection; cleared when a person authorises again or
 * the server is removed.
 * @example
 * const reauth = makeReauthorisations(ctx.storage);
 * await reauth.load(); await reauth.flag("notes", "its token could not be refreshed");
 * reauth.reason("notes"); // "its token could not be refreshed"
 */
export function makeReauthorisations(store: Pick<McpHeaderStore, "get" | "put">) {
  let reasons: Map<string, string> | undefined;
  const save = () => store.put(key, Object.fromEntries(reasons ?? []));
  return {
    async load(): Promise<void> {
      reasons ??= new Map(Object.entries((await store.get<Record<string, string>>(key)) ?? {}));
    },
    /** Why `serverId` needs authorising again; undefined when it does not (or before `load`). */
    reason: (serverId: string): string | undefined => reasons?.get(serverId),
    async flag(serverId: string, reason: string): Promise<void> {
      await this.load();
      reasons!.set(serverId, reason);
      await save();
    },
    async clear(serverId: string): Promise<void> {
      await this.load();
      if (reasons!.delete(serverId)) await save();
    },
    async all(): Promise<{ server: string; reason: string }[]> {
      await this.load();
      return [...reasons!].map(([server, reason]) => ({ server, reason }));
    },
  };
}

/** The SDK's error for a server that refused its token and could not be re-authorised without a person. */
export function isUnauthorized(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === "object" && depth < 4;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { name, status, code, message } = e as {
      name?: unknown;
      status?: unknown;
      code?: unknown;
      message?: unknown;
    };
    if (name === "UnauthorizedError" || status === 401 || code === 401) return true;
    if (typeof message === "string" && /\bunauthori[sz]ed\b/i.test(message)) return true;
  }
  return false;
}

/** The line a run's model is given for a server whose tools are unavailable until a person authorises it again. */
export const unavailableLine = (server: string, reason: string) =>
  `The MCP server '${server}' needs authorising again (${reason}): its tools are unavailable in this turn. ` +
  "If the request needs them, say so; a person can authorise it again from your tools page in Pantheon.";

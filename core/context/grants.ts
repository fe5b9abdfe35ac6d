/**
 * Who may use another agent's context source. A source is shared only by its owner's script
 * (`grants`): a bare name grants it to the owner's connections, an object names the agents it is
 * granted to and how far (`read` lists its items and searches it; `search` only answers queries).
 * "Connected" is either direction: agents the owner's `connections` name and agents whose own
 * connections name the owner (its `askedBy`) — the same graph the agents talk along.
 */

/** What a grant lets a grantee do: `read` includes `search`. */
export type GrantAccess = "read" | "search";
export const grantAccesses: readonly GrantAccess[] = ["read", "search"];

/** A grant as a script writes it: a bare source name (the default grant) or an object. */
export type GrantSpec = string | { source: string; to?: string[]; access?: GrantAccess };

/** A grant with its defaults filled in; `to` undefined means the owner's connections. */
export interface SourceGrant {
  source: string;
  to?: string[];
  access: GrantAccess;
}

/** The owner's side of the connection graph. */
export interface GrantOwner {
  name: string;
  connections: readonly string[];
  askedBy?: readonly string[];
}

export type GrantDecision = { allow: true; access: GrantAccess } | { allow: false; reason: string };

/**
 * Grants with defaults: a bare name is read access for the owner's connections.
 * @example
 * normalizeGrants(["docs", { source: "vault", to: ["c"], access: "search" }])
 * // [{ source: "docs", access: "read" }, { source: "vault", to: ["c"], access: "search" }]
 */
export function normalizeGrants(grants: readonly GrantSpec[] | undefined): SourceGrant[] {
  return (grants ?? []).map((g) =>
    typeof g === "string"
      ? { source: g, access: "read" }
      : { source: g.source, ...(g.to ? { to: [...g.to] } : {}), access: g.access ?? "read" },
  );
}

/** The grant's source name (a spec may be a bare string). */
export function grantSource(grant: GrantSpec): string {
  return typeof grant === "string" ? grant : grant.source;
}

/** Whether `requester` is connected with `owner`, either direction. */
export function isConnected(owner: GrantOwner, requester: string): boolean {
  return owner.connections.includes(requester) || (owner.askedBy ?? []).includes(requester);
}

/**
 * Whether `requester` may `need` the owner's `source`, and why not. Several grants of one source
 * add up: the widest one that reaches the requester wins.
 * @example
 * decideGrant(normalizeGrants(["docs"]), { name: "a", connections: ["b"] }, "docs", "c", "search")
 * // { allow: false, reason: "agent 'c' is not connected with 'a' (the grant of 'docs' reaches a's connections only)" }
 */
export function decideGrant(
  grants: readonly SourceGrant[],
  owner: GrantOwner,
  source: string,
  requester: string,
  need: GrantAccess,
): GrantDecision {
  const ofSource = grants.filter((g) => g.source === source);
  if (ofSource.length === 0)
    return { allow: false, reason: `agent '${owner.name}' does not grant its source '${source}'` };
  const reaching = ofSource.filter((g) => (g.to ? g.to.includes(requester) : isConnected(owner, requester)));
  if (reaching.length === 0) {
    const named = ofSource.flatMap((g) => g.to ?? []);
    const toConnections = ofSource.some((g) => !g.to);
    const who = [
      ...(toConnections ? [`${owner.name}'s connections`] : []),
      ...(named.length ? [`the agents ${named.map((n) => `'${n}'`).join(", ")}`] : []),
    ].join(" and ");
    const why = toConnections
      ? `agent '${requester}' is not connected with '${owner.name}'`
      : `agent '${requester}' is not named by the grant`;
    return { allow: false, reason: `${why} (the grant of '${source}' reaches ${who} only)` };
  }
  const access: GrantAccess = reaching.some((g) => g.access === "read") ? "read" : "search";
  if (need === "read" && access !== "read")
    return {
      allow: false,
      reason: `agent '${owner.name}' grants '${source}' to '${requester}' for search only, not to read its items`,
    };
  return { allow: true, access };
}

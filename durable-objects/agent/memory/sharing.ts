import type { AgentProfile } from "../../../core/agents";
import {
  decideGrant,
  normalizeGrants,
  type GrantAccess,
  type GrantSpec,
  type MemoryItem,
  type SourceGrant,
} from "../../../core/context";
import { PantheonError } from "../../../core/errors";
import type { SharedHits } from "./context-store";
import type { MemoryStore } from "./store";

/** A source as an agent choosing sources sees it: its name, what it is, and what it may do with it. */
export interface SourceListing {
  source: string;
  label?: string;
  description?: string;
  access: GrantAccess;
}

/** The script's sources, grants and source details, read defensively (a profile may have no script). */
export function scriptOf(profile: AgentProfile): {
  contextSources?: string[];
  grants: SourceGrant[];
  details: Record<string, { label?: string; description?: string }>;
} {
  const script = (profile.script ?? null) as {
    contextSources?: unknown;
    grants?: unknown;
    sourceDetails?: unknown;
  } | null;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
  const contextSources = strings(script?.contextSources);
  const specs = Array.isArray(script?.grants)
    ? (script.grants as unknown[]).filter(
        (g): g is GrantSpec =>
          typeof g === "string" ||
          (typeof g === "object" && g !== null && typeof (g as { source?: unknown }).source === "string"),
      )
    : [];
  const details =
    script?.sourceDetails && typeof script.sourceDetails === "object"
      ? (script.sourceDetails as Record<string, { label?: string; description?: string }>)
      : {};
  return { ...(contextSources ? { contextSources } : {}), grants: normalizeGrants(specs), details };
}

const ownerOf = (profile: AgentProfile) => ({
  name: profile.name,
  connections: profile.connections,
  ...(profile.askedBy ? { askedBy: profile.askedBy } : {}),
});

/** Throws `forbidden` with the owner's reason unless `requester` may `need` the source. */
function checkGrant(profile: AgentProfile, source: string, requester: string, need: GrantAccess): void {
  const decision = decideGrant(scriptOf(profile).grants, ownerOf(profile), source, requester, need);
  if (!decision.allow)
    throw new PantheonError("forbidden", decision.reason, { details: { agent: profile.name, source, requester } });
}

const shareable = ({
  id,
  kind,
  text,
  source,
  importance,
  createdAt,
  occurredAt,
  lastUsedAt,
}: MemoryItem): MemoryItem => ({
  id,
  kind,
  text,
  source,
  importance,
  createdAt,
  ...(occurredAt !== undefined ? { occurredAt } : {}),
  ...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
});

/**
 * The owner's side of shared sources: another agent of the project searches, reads or lists what
 * this agent's script grants it, and nothing else. Every answer is decided per requester.
 *
 * @example
 * const sharing = makeSharing(memory);
 * await sharing.search(profile, { source: "docs", query: "restart billing", limit: 5, requester: "ops" });
 */
export function makeSharing(memory: MemoryStore) {
  return {
    /** Hits for one query in a granted source (search or read access). */
    async search(
      profile: AgentProfile,
      request: { source: string; query: string; limit: number; requester: string },
    ): Promise<SharedHits> {
      checkGrant(profile, request.source, request.requester, "search");
      const limit = Math.min(Math.max(1, request.limit), 50);
      const lexical = memory.lexical(request.query, { sources: [request.source], limit });
      const semantic = await memory.semantic(request.query, { sources: [request.source], limit }).catch(() => []);
      const items = memory.get([...new Set([...lexical, ...semantic].map((h) => h.id))]).map(shareable);
      return { items, lexical, semantic };
    },

    /** A granted source's newest items (read access only). */
    read(profile: AgentProfile, request: { source: string; limit: number; requester: string }): MemoryItem[] {
      checkGrant(profile, request.source, request.requester, "read");
      return memory.list({ source: request.source, limit: Math.min(Math.max(1, request.limit), 50) }).map(shareable);
    },

    /** The sources this agent grants `requester`, with their label, description and access. */
    listFor(profile: AgentProfile, requester: string): SourceListing[] {
      const { grants, details } = scriptOf(profile);
      const out: SourceListing[] = [];
      for (const source of new Set(grants.map((g) => g.source))) {
        const decision = decideGrant(grants, ownerOf(profile), source, requester, "search");
        if (decision.allow)
          out.push({ source: `${profile.name}/${source}`, ...details[source], access: decision.access });
      }
      return out;
    },
  };
}

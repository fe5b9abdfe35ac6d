import type { ContextStore, GraphEdge, MemoryItem, RetrieveOptions, ScoredId } from "../../../core/context";
import type { Message } from "../../../core/ports";
import type { MemoryStore } from "./store";
import { isPantheonError } from "../../../core/errors";

/** What an agent that grants a source returns for one query (see AgentDO `searchShared`). */
export interface SharedHits {
  items: MemoryItem[];
  lexical: ScoredId[];
  semantic: ScoredId[];
}

/** Asks another agent of the project for hits in one of its sources; rejects when not granted. */
export type ForeignSearch = (owner: string, source: string, query: string, limit: number) => Promise<SharedHits>;

/** One stored message with its position, oldest first. */
export interface HistoryRow {
  seq: number;
  message: Message;
}

/** The session's messages after `afterSeq` (those not yet folded into the summary): the last `limit`, oldest first. */
export type HistoryReader = (sessionId: string, limit: number, afterSeq: number) => HistoryRow[];

/** `owner/source` names a source another agent owns; a bare name is the agent's own. */
export function splitSource(source: string): { owner?: string; name: string } {
  const slash = source.indexOf("/");
  return slash > 0 ? { owner: source.slice(0, slash), name: source.slice(slash + 1) } : { name: source };
}

export interface TurnContextStore extends ContextStore {
  /** The rows `recent` returned, so the caller can tell which `seq`s an overflow covers. */
  readonly historyRows: HistoryRow[];
  /** Problems with foreign sources (not granted, agent missing); own retrieval is unaffected. */
  readonly warnings: string[];
  /** Foreign sources whose owner refused this agent, and why (traced on the run). */
  readonly refused: SourceRefusal[];
}

/** A source another agent would not share with this one, with the owner's reason. */
export interface SourceRefusal {
  source: string;
  reason: string;
}

/**
 * The engine's ContextStore for one compile: recent messages from the `messages` table (after the
 * folded part), lexical hits from FTS5 bm25, semantic hits from the embedder + vector index, graph
 * neighbours from `memory_edges`, and for `owner/source` names the hits another agent shares.
 * Foreign results are fetched once per compile and their ids prefixed with the owner.
 *
 * @example
 * const store = makeTurnContextStore({ memory, history, foldedThrough: 42, foreign });
 * const compiled = await makeContextEngine({ store, clock }).compile({ ...input, sources: ["memory", "docs", "ops/runbooks"] });
 */
export function makeTurnContextStore(deps: {
  memory: MemoryStore;
  history: HistoryReader;
  foldedThrough: number;
  foreign?: ForeignSearch;
  /** Memories stored before this are left out (the agent's memory time to live). */
  notBefore?: number;
}): TurnContextStore {
  const historyRows: HistoryRow[] = [];
  const warnings: string[] = [];
  const refused: SourceRefusal[] = [];
  const foreignCache = new Map<string, Promise<SharedHits>>();
  const foreignItems = new Map<string, MemoryItem>();

  function own(sources: string[]): string[] {
    return sources.filter((s) => !splitSource(s).owner);
  }

  function foreignHits(source: string, query: string, limit: number): Promise<SharedHits> {
    const key = `${source}\u0000${query}\u0000${limit}`;
    let pending = foreignCache.get(key);
    if (!pending) {
      const { owner, name } = splitSource(source);
      const empty: SharedHits = { items: [], lexical: [], semantic: [] };
      pending = !deps.foreign
        ? Promise.resolve(empty)
        : deps.foreign(owner!, name, query, limit).then(
            (hits) => {
              const prefix = (id: string) => `${owner}/${id}`;
              for (const item of hits.items)
                foreignItems.set(prefix(item.id), { ...item, id: prefix(item.id), source, entities: [] });
              return {
                items: hits.items,
                lexical: hits.lexical.map((h) => ({ ...h, id: prefix(h.id) })),
                semantic: hits.semantic.map((h) => ({ ...h, id: prefix(h.id) })),
              };
            },
            (error: unknown) => {
              if (isPantheonError(error) && error.code === "forbidden" && !refused.some((r) => r.source === source))
                refused.push({ source, reason: error.message });
              warnings.push(`source '${source}' skipped: ${error instanceof Error ? error.message : String(error)}`);
              return empty;
            },
          );
      foreignCache.set(key, pending);
    }
    return pending;
  }

  async function merged(
    which: "lexical" | "semantic",
    query: string,
    options: RetrieveOptions,
    local: ScoredId[],
  ): Promise<ScoredId[]> {
    const foreign = options.sources.filter((s) => splitSource(s).owner);
    // Another agent's hits carry no dates: they join the whole-history searches, not a period's.
    if (foreign.length === 0 || options.between) return local;
    const lists = await Promise.all(foreign.map((s) => foreignHits(s, query, options.limit)));
    // Scores of two agents are not on one scale; interleaving by rank keeps each list's order.
    const all = [local, ...lists.map((l) => l[which])];
    const out: ScoredId[] = [];
    for (let rank = 0; out.length < options.limit * all.length; rank++) {
      let any = false;
      for (const list of all) {
        const hit = list[rank];
        if (hit) {
          out.push(hit);
          any = true;
        }
      }
      if (!any) break;
    }
    return out.slice(0, options.limit);
  }

  return {
    historyRows,
    warnings,
    refused,

    async recent(sessionId, limit) {
      const rows = deps.history(sessionId, limit, deps.foldedThrough);
      historyRows.splice(0, historyRows.length, ...rows);
      return rows.map((r) => r.message);
    },

    async lexical(query, options) {
      const local = deps.memory.lexical(query, {
        sources: own(options.sources),
        limit: options.limit,
        ...(options.between ? { between: options.between } : {}),
        ...(options.functionWeight !== undefined ? { functionWeight: options.functionWeight } : {}),
      });
      return merged("lexical", query, options, local);
    },

    async semantic(query, options) {
      const sources = own(options.sources);
      let local: ScoredId[] = [];
      try {
        local = await deps.memory.semantic(query, {
          sources,
          limit: options.limit,
          ...(options.between ? { between: options.between } : {}),
        });
      } catch (error) {
        warnings.push(`semantic retrieval failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return merged("semantic", query, options, local);
    },

    async get(ids) {
      const local = ids.filter((id) => !foreignItems.has(id));
      const mine = deps.memory.get(local);
      const notBefore = deps.notBefore;
      return [
        ...(notBefore === undefined
          ? mine
          : mine.filter((record) => record.createdAt >= notBefore || record.kind === "summary")),
        ...ids.flatMap((id) => foreignItems.get(id) ?? []),
      ];
    },

    async neighbours(entities, limit): Promise<GraphEdge[]> {
      return deps.memory.neighbours(entities, limit);
    },

    async adjacent(ids) {
      // The neighbours of a hit obey the memory time to live as the hits do (an expired turn is not brought back).
      const notBefore = deps.notBefore;
      const near = deps.memory.adjacent(ids.filter((id) => !foreignItems.has(id)));
      return notBefore === undefined
        ? near
        : near.filter(({ item }) => item.createdAt >= notBefore || item.kind === "summary");
    },
  };
}

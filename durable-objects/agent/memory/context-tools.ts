import type { MemoryItem } from "../../../core/context";
import { PantheonError } from "../../../core/errors";
import type { ToolSpec } from "../../../core/tools";
import { splitSource } from "./context-store";
import type { SourceListing } from "./sharing";
import type { ToolSource } from "../runs/tools";

/** What the context tools need from the memory feature; `owner/source` names go to the owner, who decides. */
export interface ContextToolDeps {
  /** The sources this agent may use: its own document sources and what other agents grant it. */
  sources(): Promise<SourceListing[]>;
  /** Hits for a query in one of its own document sources. */
  searchOwn(source: string, query: string, limit: number): Promise<Array<Pick<MemoryItem, "id" | "text">>>;
  /** Hits in another agent's source: rejects with the owner's reason when not granted. */
  searchForeign(owner: string, source: string, query: string, limit: number): Promise<Array<Pick<MemoryItem, "id" | "text">>>;
  /** Another agent's source's newest items: rejects unless it grants read. */
  readForeign(owner: string, source: string, limit: number): Promise<Array<Pick<MemoryItem, "id" | "text">>>;
  /** This agent's own document sources (never `memory`: reading memory is memory.search's, an operator's tool). */
  ownSources(): string[];
}

/**
 * Tools for choosing context by goal at run time. Neither has a route of its own: they read only
 * what the agent's own turns may already put in its context (its document sources and the sources
 * other agents grant it, each owner deciding per requester), so they are open to chat — and they
 * never reach the agent's memory, whose search is the operator's (`memory.search`).
 */
const specs: ToolSpec[] = [
  {
    name: "context.sources",
    description: "List the context sources you may use: your own document sources and the sources other agents grant you, each with a label, a description and your access (read or search). Pick the ones that fit your goal, then use context.search.",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    runtime: "builtin",
    idempotent: true,
  },
  {
    name: "context.search",
    description: "Search one context source listed by context.sources ('docs' or 'owner/docs'). Without a query, returns the source's newest items (needs read access).",
    parameters: {
      type: "object",
      properties: {
        source: { type: "string", minLength: 1, maxLength: 200, description: "A source name from context.sources." },
        query: { type: "string", minLength: 1, maxLength: 1000 },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
      },
      required: ["source"],
      additionalProperties: false,
    },
    runtime: "builtin",
    idempotent: true,
  },
];

/** Names of the context tools; every agent has them. */
export const contextToolNames = specs.map((s) => s.name);

/**
 * The `context.sources` and `context.search` tools (a refusal is the tool's error, so it lands in
 * the run's trace with the source and the owner's reason).
 * @example
 * buildAgentTools(profile, { …, extra: [contextTools(deps)] });
 */
export function contextTools(deps: ContextToolDeps): ToolSource {
  return {
    specs,
    implementations: {
      "context.sources": async () => JSON.stringify({ sources: await deps.sources() }),
      "context.search": async (args) => {
        const source = String(args.source);
        const query = typeof args.query === "string" ? args.query : undefined;
        const limit = typeof args.limit === "number" ? args.limit : 5;
        const { owner, name } = splitSource(source);
        let items: Array<Pick<MemoryItem, "id" | "text">>;
        if (owner) items = query ? await deps.searchForeign(owner, name, query, limit) : await deps.readForeign(owner, name, limit);
        else {
          if (!deps.ownSources().includes(name))
            throw new PantheonError("bad_request", `'${source}' is not a source you may search here`, { details: { source, allowed: deps.ownSources() } });
          if (!query) throw new PantheonError("bad_request", `context.search on your own source '${source}' needs a query`, { details: { source } });
          items = await deps.searchOwn(name, query, limit);
        }
        return JSON.stringify({ source, items: items.map((i) => ({ id: i.id, text: i.text })) });
      },
    },
  };
}

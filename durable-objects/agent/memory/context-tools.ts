import type { MemoryItem } from "../../../core/context";
import { PantheonError } from "../../../core/errors";
import { builtinSpecsOf } from "../../../core/tools";
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
  searchForeign(
    owner: string,
    source: string,
    query: string,
    limit: number,
  ): Promise<Array<Pick<MemoryItem, "id" | "text">>>;
  /** Another agent's source's newest items: rejects unless it grants read. */
  readForeign(owner: string, source: string, limit: number): Promise<Array<Pick<MemoryItem, "id" | "text">>>;
  /** This agent's own document sources (never `memory`: reading memory is memory.search's, an operator's tool). */
  ownSources(): string[];
}

/** The context tools, as the built-in catalog declares them (core/tools/builtins/catalog.ts: open to chat, and why). */
const specs = builtinSpecsOf("context");

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
        if (owner)
          items = query
            ? await deps.searchForeign(owner, name, query, limit)
            : await deps.readForeign(owner, name, limit);
        else {
          if (!deps.ownSources().includes(name))
            throw new PantheonError("bad_request", `'${source}' is not a source you may search here`, {
              details: { source, allowed: deps.ownSources() },
            });
          if (!query)
            throw new PantheonError("bad_request", `context.search on your own source '${source}' needs a query`, {
              details: { source },
            });
          items = await deps.searchOwn(name, query, limit);
        }
        return JSON.stringify({ source, items: items.map((i) => ({ id: i.id, text: i.text })) });
      },
    },
  };
}

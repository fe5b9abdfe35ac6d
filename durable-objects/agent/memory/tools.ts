import type { MemoryKind } from "../../../core/context";
import { builtinSpecsOf } from "../../../core/tools";
import type { MemoryRecord } from "./records";
import type { ToolSource } from "../runs/tools";

/** What the memory tools need from the memory feature. */
export interface MemoryToolDeps {
  store(input: {
    text: string;
    kind: MemoryKind;
    importance?: number;
  }): Promise<{ record: MemoryRecord; superseded: string[] }>;
  search(query: string, limit: number): Promise<Array<MemoryRecord & { score: number }>>;
  forget(id: string): Promise<number>;
}

/** The memory tools, as the built-in catalog declares them (core/tools/builtins/catalog.ts, with their scopes). */
const specs = builtinSpecsOf("memory");

/** Names of the memory tools; every agent declares them. */
export const memoryToolNames = specs.map((s) => s.name);

/**
 * The `memory.store`, `memory.search` and `memory.forget` tools, contributed to every agent's
 * tools (tools.ts `ToolSource`). Outputs are JSON text the model can read.
 *
 * @example
 * buildAgentTools(profile, { clock, fetch, env, extra: [memoryTools(feature)] });
 */
export function memoryTools(deps: MemoryToolDeps): ToolSource {
  return {
    specs,
    implementations: {
      "memory.store": async (args) => {
        const { record, superseded } = await deps.store({
          text: String(args.text),
          kind: (args.kind as MemoryKind | undefined) ?? "fact",
          importance: typeof args.importance === "number" ? args.importance : 0.6,
        });
        return JSON.stringify({
          stored: { id: record.id, kind: record.kind, text: record.text },
          ...(superseded.length ? { superseded } : {}),
        });
      },
      "memory.search": async (args) => {
        const hits = await deps.search(String(args.query), typeof args.limit === "number" ? args.limit : 5);
        return JSON.stringify({
          memories: hits.map((h) => ({ id: h.id, kind: h.kind, text: h.text, score: Number(h.score.toFixed(4)) })),
        });
      },
      "memory.forget": async (args) => {
        const forgotten = await deps.forget(String(args.id));
        return JSON.stringify(
          forgotten ? { forgotten: args.id } : { forgotten: null, note: `no memory '${String(args.id)}'` },
        );
      },
    },
  };
}

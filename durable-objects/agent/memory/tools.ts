import type { MemoryKind } from "../../../core/context";
import type { ToolSpec } from "../../../core/tools";
import type { MemoryRecord } from "./records";
import type { ToolSource } from "../runs/tools";

/** What the memory tools need from the memory feature. */
export interface MemoryToolDeps {
  store(input: { text: string; kind: MemoryKind; importance?: number }): Promise<{ record: MemoryRecord; superseded: string[] }>;
  search(query: string, limit: number): Promise<Array<MemoryRecord & { score: number }>>;
  forget(id: string): Promise<number>;
}

/**
 * The memory tools. Each declares the scope of its own route (its `scope()` in workers/api/memory.ts; a test holds them
 * equal): `memory.store` is open to chat (remembering what the person said is ordinary agent work,
 * and the output gates check what it writes); searching and forgetting are the operator's.
 */
const specs: ToolSpec[] = [
  {
    name: "memory.store",
    description: "Remember something for later conversations: a fact, an entity, a standing instruction or an episode. Write one self-contained sentence.",
    parameters: {
      type: "object",
      properties: {
        text: { type: "string", minLength: 1, maxLength: 4000, description: "What to remember, as a self-contained sentence." },
        kind: { type: "string", enum: ["fact", "entity", "instruction", "episode"], default: "fact" },
        importance: { type: "number", minimum: 0, maximum: 1, description: "0..1, default 0.6" },
      },
      required: ["text"],
      additionalProperties: false,
    },
    runtime: "builtin",
  },
  {
    name: "memory.search",
    description: "Search your long-term memory by meaning and words. Returns the best matching memories with their ids.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 1000 },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
      },
      required: ["query"],
      additionalProperties: false,
    },
    runtime: "builtin",
    idempotent: true,
    // As GET /api/agents/:name/memories and the agent's MCP `search_memory`: reading the whole memory is the operator's.
    scope: "admin",
  },
  {
    name: "memory.forget",
    description: "Forget one memory for good, by the id memory.search returned.",
    parameters: {
      type: "object",
      properties: { id: { type: "string", minLength: 1, maxLength: 64 } },
      required: ["id"],
      additionalProperties: false,
    },
    runtime: "builtin",
    idempotent: true,
    // As DELETE /api/agents/:name/memories/:id.
    scope: "admin",
  },
];

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
        return JSON.stringify({ stored: { id: record.id, kind: record.kind, text: record.text }, ...(superseded.length ? { superseded } : {}) });
      },
      "memory.search": async (args) => {
        const hits = await deps.search(String(args.query), typeof args.limit === "number" ? args.limit : 5);
        return JSON.stringify({ memories: hits.map((h) => ({ id: h.id, kind: h.kind, text: h.text, score: Number(h.score.toFixed(4)) })) });
      },
      "memory.forget": async (args) => {
        const forgotten = await deps.forget(String(args.id));
        return JSON.stringify(forgotten ? { forgotten: args.id } : { forgotten: null, note: `no memory '${String(args.id)}'` });
      },
    },
  };
}

import { extractMemories, occurredAtOf, parseExtraction, planConsolidation, wordOverlap, type ProposedMemory } from "../../../core/context";
import type { Clock, LlmPort } from "../../../core/ports";
import type { SettingsPort } from "./context-turn";
import { ownSource, type MemoryRecord, type MemoryStore } from "./store";

/** Most recent memories one consolidation pass considers (pairwise similarity is quadratic). */
export const consolidationWindow = 400;
/** Same kind, word overlap at or above this: one memory. */
export const duplicateThreshold = 0.8;
/** Share of importance an unused memory loses per day. */
export const decayPerDay = 0.01;

const extractionPrompt =
  "You keep the long-term memory of an assistant. From the exchange below, list only durable things worth remembering " +
  "about the user or their world: facts, entities, standing instructions, notable episodes. Skip small talk and anything " +
  'only true for this moment. Answer with JSON only: {"memories":[{"kind":"fact|entity|instruction|episode","text":"a ' +
  'self-contained sentence","importance":0.0-1.0,"entities":["Name"],"triple":{"subject":"user","relation":"lives in","object":"Berlin"}}]}. ' +
  'The triple is optional, for single-valued facts. Answer {"memories":[]} when there is nothing.';

export interface ExtractTurn {
  runId: string;
  user: string;
  assistant: string;
  /** When the user said it (the message's time); what they tell happened then, or at the time their words name ("yesterday"). */
  saidAt?: number;
  /** The agent's model; absent or offline → the pattern extractor. */
  llm?: { port: LlmPort; model: string };
  /** The output gates on memory writes: why a proposed memory may not be stored, or null. A refused one is dropped. */
  screen?(text: string): string | null;
}

/**
 * The memory lifecycle around turns: extraction after each completed turn (the model proposes JSON
 * when a real provider is configured, patterns otherwise or when its answer is unusable), and the
 * idle-time consolidation (merge near-duplicates, supersede changed facts, decay unused importance).
 *
 * @example
 * const lifecycle = makeMemoryLifecycle({ clock, memory, settings });
 * await lifecycle.extract({ runId, user: "I moved to Berlin", assistant: "Noted!" });
 * await lifecycle.consolidate();
 */
export function makeMemoryLifecycle(deps: { clock: Clock; memory: MemoryStore; settings: SettingsPort }) {
  const { settings } = deps;

  async function propose(turn: ExtractTurn): Promise<{ memories: ProposedMemory[]; method: "model" | "patterns" }> {
    if (turn.llm && turn.llm.port.provider !== "offline") {
      try {
        const response = await turn.llm.port.complete({
          model: turn.llm.model,
          temperature: 0,
          maxTokens: 600,
          messages: [
            { role: "system", content: extractionPrompt },
            { role: "user", content: `User: ${turn.user}\nAssistant: ${turn.assistant}` },
          ],
        });
        const parsed = parseExtraction(response.content);
        if (parsed.memories.length > 0 || parsed.issues.length === 0) return { memories: parsed.memories, method: "model" };
      } catch {
        // A failed extraction must not fail the turn; the patterns still run.
      }
    }
    return { memories: extractMemories({ user: turn.user, assistant: turn.assistant }), method: "patterns" };
  }

  return {
    async extract(turn: ExtractTurn): Promise<{ stored: MemoryRecord[]; method: string; warnings: string[] }> {
      // Directives (`/tool …`, `/ask …`) are commands, not statements about the user.
      if (turn.user.trim().startsWith("/")) return { stored: [], method: "skipped", warnings: [] };
      const { memories, method } = await propose(turn);
      const fresh = memories.filter((m) => !deps.memory.hasText(m.text) && (turn.screen?.(m.text) ?? null) === null);
      if (fresh.length === 0) return { stored: [], method, warnings: [] };
      // Standing instructions are timeless; facts and episodes happened when the message says.
      const occurredAt = occurredAtOf(turn.user, turn.saidAt ?? deps.clock.now());
      const { records, warnings } = await deps.memory.insert(
        fresh.map((m) => ({
          kind: m.kind,
          text: m.text,
          importance: m.importance,
          entities: m.entities,
          ...(m.triple ? { triple: m.triple } : {}),
          ...(m.kind === "instruction" ? {} : { occurredAt }),
          provenance: `turn:${turn.runId}`,
        })),
      );
      return { stored: records, method, warnings };
    },

    /** One pass of upkeep over the agent's own recent memories; safe to run any number of times. */
    async consolidate(): Promise<{ merged: number; superseded: number; decayed: number }> {
      const now = deps.clock.now();
      const lastRunAt = settings.get<number>("memory.consolidatedAt");
      const items = deps.memory
        .list({ source: ownSource, limit: consolidationWindow })
        .filter((item) => item.kind !== "summary" && item.kind !== "chunk");
      const plan = planConsolidation(items, {
        similar: (a, b) => wordOverlap(a.text, b.text),
        now,
        threshold: duplicateThreshold,
        decayPerDay,
        ...(lastRunAt !== undefined ? { lastRunAt } : {}),
      });
      for (const step of plan.supersede) await deps.memory.supersede(step.old, step.new);
      for (const merge of plan.merge) {
        deps.memory.setImportance(merge.keep, merge.importance);
        // Merged copies stay as history pointing at the survivor, like a superseded fact.
        for (const id of merge.drop) await deps.memory.supersede(id, merge.keep);
      }
      for (const step of plan.decay) deps.memory.setImportance(step.id, step.importance);
      settings.set("memory.consolidatedAt", now);
      return { merged: plan.merge.reduce((n, m) => n + m.drop.length, 0), superseded: plan.supersede.length, decayed: plan.decay.length };
    },
  };
}

export type MemoryLifecycle = ReturnType<typeof makeMemoryLifecycle>;

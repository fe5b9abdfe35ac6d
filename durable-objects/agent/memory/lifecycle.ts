import {
  extractMemories,
  occurredAtOf,
  parseExtraction,
  planConsolidation,
  wordOverlap,
  type ProposedMemory,
} from "../../../core/context";
import { gatedKeep, type OutputScreen } from "../../../core/gates";
import type { Clock, LlmPort } from "../../../core/ports";
import type { SettingsPort } from "./context-turn";
import { ownSource, type MemoryRecord } from "./records";
import type { MemoryStore } from "./store";

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
  /** The output gates (core/gates/sinks): a proposed memory they refuse (traced in the run of its exchange) is dropped. */
  screen: OutputScreen;
}

/** A completed exchange waiting for the next batched extraction (kept in settings, so an eviction keeps it). */
export interface PendingExchange {
  runId: string;
  user: string;
  assistant: string;
  /** When the user said it: a memory from this exchange happened then (or when its words say). */
  saidAt?: number;
}

/** A memory a model or the patterns proposed, with the exchange it came from. */
type Sourced = ProposedMemory & { from: PendingExchange };

/** With a model, extraction asks once per this many exchanges (or when the agent goes idle). */
export const extractionBatch = 10;
/** Each side of an exchange is kept to this many characters while it waits. */
const pendingChars = 4000;
const pendingKey = "memory.extractionPending";
/** The list never holds more than this many exchanges (the oldest go first). */
const pendingMax = 5 * extractionBatch;

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

  async function propose(
    exchanges: PendingExchange[],
    llm: ExtractTurn["llm"],
  ): Promise<{ memories: Sourced[]; method: "model" | "patterns" }> {
    if (llm && llm.port.provider !== "offline") {
      try {
        const response = await llm.port.complete({
          model: llm.model,
          temperature: 0,
          maxTokens: 600 + 100 * (exchanges.length - 1),
          messages: [
            { role: "system", content: extractionPrompt },
            { role: "user", content: exchanges.map((e) => `User: ${e.user}\nAssistant: ${e.assistant}`).join("\n\n") },
          ],
        });
        const parsed = parseExtraction(response.content);
        // One call covers a batch: each memory is dated by the exchange it shares the most words with.
        const sourceOf = (text: string) =>
          exchanges.reduce((best, e) =>
            wordOverlap(text, `${e.user} ${e.assistant}`) > wordOverlap(text, `${best.user} ${best.assistant}`)
              ? e
              : best,
          );
        if (parsed.memories.length > 0 || parsed.issues.length === 0)
          return { memories: parsed.memories.map((m) => ({ ...m, from: sourceOf(m.text) })), method: "model" };
      } catch {
        // A failed extraction must not fail the turn; the patterns still run.
      }
    }
    return {
      memories: exchanges.flatMap((e) =>
        extractMemories({ user: e.user, assistant: e.assistant }).map((m) => ({ ...m, from: e })),
      ),
      method: "patterns",
    };
  }

  const isDirective = (user: string) => user.trim().startsWith("/");
  const pending = () => settings.get<PendingExchange[]>(pendingKey) ?? [];
  /** Whether a batched extraction is in flight in this instance (one at a time). */
  let extracting = false;

  async function store(
    exchanges: PendingExchange[],
    llm: ExtractTurn["llm"],
    screen: OutputScreen,
  ): Promise<{ stored: MemoryRecord[]; method: string; warnings: string[] }> {
    const { memories, method } = await propose(exchanges, llm);
    const fresh = memories.filter(
      (m) => !deps.memory.hasText(m.text) && gatedKeep("extraction", screen, { text: m.text, runId: m.from.runId }),
    );
    if (fresh.length === 0) return { stored: [], method, warnings: [] };
    const { records, warnings } = await deps.memory.insert(
      fresh.map((m) => ({
        kind: m.kind,
        text: m.text,
        importance: m.importance,
        entities: m.entities,
        ...(m.triple ? { triple: m.triple } : {}),
        // Standing instructions are timeless; facts and episodes happened when the message says.
        ...(m.kind === "instruction"
          ? {}
          : { occurredAt: occurredAtOf(m.from.user, m.from.saidAt ?? deps.clock.now()) }),
        provenance: `turn:${m.from.runId}`,
      })),
    );
    return { stored: records, method, warnings };
  }

  return {
    /** Extracts from one exchange now: the pattern extractor, or one model call (see `enqueue` for batching). */
    async extract(turn: ExtractTurn): Promise<{ stored: MemoryRecord[]; method: string; warnings: string[] }> {
      // Directives (`/tool …`, `/ask …`) are commands, not statements about the user.
      if (isDirective(turn.user)) return { stored: [], method: "skipped", warnings: [] };
      return store(
        [
          {
            runId: turn.runId,
            user: turn.user,
            assistant: turn.assistant,
            ...(turn.saidAt !== undefined ? { saidAt: turn.saidAt } : {}),
          },
        ],
        turn.llm,
        turn.screen,
      );
    },

    /**
     * Keeps an exchange for the next batched model extraction; true when a batch is due. Stored in
     * the agent's settings, so an eviction before the batch ran loses nothing.
     */
    enqueue(turn: PendingExchange): boolean {
      if (isDirective(turn.user)) return false;
      const list = pending().filter((e) => e.runId !== turn.runId);
      list.push({
        runId: turn.runId,
        user: turn.user.slice(0, pendingChars),
        assistant: turn.assistant.slice(0, pendingChars),
        ...(turn.saidAt !== undefined ? { saidAt: turn.saidAt } : {}),
      });
      settings.set(pendingKey, list.slice(-pendingMax));
      return list.length >= extractionBatch;
    },

    /** Exchanges waiting for a batched extraction. */
    pendingCount: () => pending().length,

    /**
     * One model call over every waiting exchange, then they are dropped from the list. Cut off by an
     * eviction, the list is still there and the next batch asks again; texts already stored are
     * skipped, so a batch run twice stores nothing twice.
     */
    async extractPending(
      llm: ExtractTurn["llm"],
      screen: OutputScreen,
    ): Promise<{ stored: MemoryRecord[]; method: string; warnings: string[] }> {
      const batch = pending();
      if (batch.length === 0 || extracting) return { stored: [], method: "skipped", warnings: [] };
      extracting = true;
      try {
        const result = await store(batch, llm, screen);
        const done = new Set(batch.map((e) => e.runId));
        settings.set(
          pendingKey,
          pending().filter((e) => !done.has(e.runId)),
        );
        return result;
      } finally {
        extracting = false;
      }
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
      return {
        merged: plan.merge.reduce((n, m) => n + m.drop.length, 0),
        superseded: plan.supersede.length,
        decayed: plan.decay.length,
      };
    },
  };
}

export type MemoryLifecycle = ReturnType<typeof makeMemoryLifecycle>;

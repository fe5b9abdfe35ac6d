import {
  foldIntoSummary,
  makeContextEngine,
  planFold,
  tuningForEmbedder,
  type CompiledContext,
  type ContextTuning,
  type Summarize,
} from "../../../core/context";
import { gatedWrite, type OutputScreen } from "../../../core/gates";
import type { Clock, Message } from "../../../core/ports";
import {
  makeTurnContextStore,
  type ForeignSearch,
  type HistoryReader,
  type HistoryRow,
  type SourceRefusal,
} from "./context-store";
import type { MemoryStore } from "./store";

/** The prompt budget of every agent (tokens): the share of the model's window Pantheon fills. */
export const contextTokens = 8000;
/** Kept free for the reply when the agent's model sets no `maxTokens`. */
export const defaultReplyReserve = 1024;
/** The rolling summary of a session stays within this many tokens. */
export const summaryTokens = 400;
/** Days after which a memory's recency weighs half. */
export const halfLifeDays = 30;
/**
 * A model-written fold waits until this many messages are outside the window (or squeezed out by the
 * budget), so one summary call covers many turns: at two messages a turn, at most one call per 12 turns.
 */
export const foldBatch = 24;

/** Small key/value state of the agent (the chat feature's settings store). */
export interface SettingsPort {
  get<T>(key: string): T | undefined;
  set(key: string, value: unknown): void;
}

/** A session's messages with their `seq` (the chat feature's message store, `history`). */
export interface SessionHistory {
  history(sessionId: string, options: { afterSeq: number; limit?: number; excludeRunId?: string }): HistoryRow[];
}

interface SummaryState {
  memoryId: string;
  /** Every message of the session up to this `seq` is in the summary, and no longer sent verbatim. */
  throughSeq: number;
}

export interface CompileTurn {
  sessionId: string;
  systemPrompt: string;
  query: string;
  sources: string[];
  /** Recent messages considered (the agent's `maxHistory`). */
  recencyWindow: number;
  /** The run the context is for: its own messages are not history. */
  excludeRunId?: string;
  maxTokens?: number;
  reserveForReply?: number;
  /**
   * Writes the rolling summary with a model. With one, a turn never waits for a fold: it uses the
   * latest summary, sends the not-yet-folded messages verbatim, and hands a fold of at least
   * `foldBatch` messages to `background`. Without one, the extractive summary folds in line (no model call).
   */
  summarize?: Summarize;
  /** Runs a model fold after the turn (the Durable Object's `waitUntil`); absent (a preview): no fold starts. */
  background?: (work: Promise<unknown>) => void;
  tuning?: Partial<ContextTuning>;
  /** The agent's output gates: a summary they refuse is not stored (core/gates/sinks). */
  screen: OutputScreen;
  /** `false` (memory policy `none` or `window`): no summary is read or folded; messages beyond the window are dropped. */
  keepSummary?: boolean;
  /** Memories stored before this time are not compiled (the agent's memory time to live). */
  memoryNotBefore?: number;
}

export interface TurnContext {
  compiled: CompiledContext;
  /** The context for the run: the compiled messages without the final user message (the run adds it). */
  context: Message[];
  summary: string;
  /** Turns folded into the summary while compiling. */
  folded: number;
  /** Messages handed to a background fold by this compile (0 when none started). */
  foldStarted: number;
  /** Other agents' sources this agent listed and was refused, with the owners' reasons. */
  refused: SourceRefusal[];
}

/**
 * Compiles each turn's context with the engine and keeps the rolling summary: turns that leave the
 * recency window, or that the budget squeezes out, are folded into one `summary` memory per
 * session and never sent verbatim again. Folding never fails a turn (extractive fallback).
 *
 * @example
 * const turns = makeContextTurns({ clock, memory, messages, settings });
 * const { context, compiled } = await turns.compile({ sessionId, systemPrompt, query, sources: ["memory"], recencyWindow: 20 });
 */
export function makeContextTurns(deps: {
  clock: Clock;
  memory: MemoryStore;
  messages: SessionHistory;
  settings: SettingsPort;
  foreign?: ForeignSearch;
}) {
  const { settings, messages } = deps;
  const stateKey = (sessionId: string) => `memory.summary:${sessionId}`;

  function summaryOf(sessionId: string): { state: SummaryState | undefined; text: string } {
    const state = settings.get<SummaryState>(stateKey(sessionId));
    const text = state ? (deps.memory.get([state.memoryId])[0]?.text ?? "") : "";
    return { state, text };
  }

  /** Sessions with a background fold in flight: a second turn does not start another over the same rows. */
  const folding = new Set<string>();

  /**
   * Folds `rows` into the session's summary. The new summary is model output (or drawn from the
   * model's replies), so it passes the output gates as a memory (core/gates/sinks, `summary-fold`):
   * a refused one is not stored and the previous summary stays. The rows still count as folded —
   * folding them again would be refused again on every turn, and the window would grow without end.
   */
  async function fold(
    sessionId: string,
    rows: HistoryRow[],
    summarize: Summarize | undefined,
    screen: OutputScreen,
    runId?: string,
  ): Promise<string> {
    const { state, text } = summaryOf(sessionId);
    const result = await foldIntoSummary(
      text,
      rows.map((r) => r.message),
      summarize ?? (async () => ""),
      { maxTokens: summaryTokens },
    );
    // A fold that waited on a model may find the summary moved on (a wipe, an in-line fold): its
    // rows are no longer the next ones to fold, so it is dropped and the next turn plans again.
    const now = summaryOf(sessionId).state;
    if ((now?.throughSeq ?? 0) !== (state?.throughSeq ?? 0) || now?.memoryId !== state?.memoryId)
      return now ? summaryOf(sessionId).text : "";
    const throughSeq = rows.at(-1)!.seq;
    let memoryId = state?.memoryId;
    const proposal = { text: result.summary || "(nothing to keep)", ...(runId ? { runId } : {}) };
    const written = await gatedWrite("summary-fold", screen, proposal, async (summary) => {
      if (memoryId && deps.memory.exists(memoryId)) {
        deps.memory.updateText(memoryId, summary);
      } else {
        const { records } = await deps.memory.insert([
          { kind: "summary", text: summary, provenance: `session:${sessionId}`, importance: 0.5 },
        ]);
        memoryId = records[0]!.id;
      }
    });
    if (!written.written && !(memoryId && deps.memory.exists(memoryId))) {
      // Nothing was ever kept for this session: an empty summary holds the place of the folded rows.
      const { records } = await deps.memory.insert([
        { kind: "summary", text: "(nothing to keep)", provenance: `session:${sessionId}`, importance: 0.5 },
      ]); // ungated: a fixed text, not model output
      memoryId = records[0]!.id;
    }
    settings.set(stateKey(sessionId), { memoryId: memoryId!, throughSeq } satisfies SummaryState);
    return written.written ? result.summary : text;
  }

  /**
   * `unfolded` is the session's history after `readAfter`, as this compile read it: the window the
   * engine asks for is its tail, so it is not read a second time.
   */
  async function compileOnce(
    input: CompileTurn,
    foldedThrough: number,
    summary: string,
    unfolded: { readAfter: number; rows: HistoryRow[] },
  ) {
    const reader: HistoryReader = (sessionId, limit, afterSeq) => {
      if (sessionId === input.sessionId && afterSeq >= unfolded.readAfter) {
        const rows = unfolded.rows.filter((r) => r.seq > afterSeq);
        return limit > 0 ? rows.slice(-limit) : [];
      }
      return messages.history(sessionId, {
        afterSeq,
        limit,
        ...(input.excludeRunId ? { excludeRunId: input.excludeRunId } : {}),
      });
    };
    const store = makeTurnContextStore({
      memory: deps.memory,
      history: reader,
      foldedThrough,
      ...(deps.foreign ? { foreign: deps.foreign } : {}),
      ...(input.memoryNotBefore !== undefined ? { notBefore: input.memoryNotBefore } : {}),
    });
    // The fusion suits the embedder (a words-only one is trusted less); a compile's own tuning wins.
    const rerank = deps.memory.reranker?.();
    const engine = makeContextEngine({
      store,
      clock: deps.clock,
      tuning: tuningForEmbedder(deps.memory.embedder()),
      ...(rerank ? { rerank } : {}),
    });
    const maxTokens = input.maxTokens ?? contextTokens;
    const compiled = await engine.compile({
      systemPrompt: input.systemPrompt,
      sessionId: input.sessionId,
      query: input.query,
      sources: input.sources,
      budget: {
        maxTokens,
        reserveForReply: Math.min(input.reserveForReply ?? defaultReplyReserve, Math.floor(maxTokens / 2)),
      },
      recencyWindow: input.recencyWindow,
      halfLifeDays,
      ...(summary ? { summary } : {}),
      ...(input.tuning ? { tuning: input.tuning } : {}),
    });
    compiled.warnings.push(...store.warnings);
    return { compiled, rows: store.historyRows, refused: store.refused };
  }

  /** A model fold after the turn: never awaited by it, one per session at a time. */
  function foldInBackground(
    sessionId: string,
    rows: HistoryRow[],
    summarize: Summarize,
    background: (work: Promise<unknown>) => void,
    screen: OutputScreen,
    runId?: string,
  ): boolean {
    if (folding.has(sessionId)) return false;
    folding.add(sessionId);
    background(
      fold(sessionId, rows, summarize, screen, runId)
        .catch((error: unknown) => console.warn("background summary fold failed", error))
        .finally(() => folding.delete(sessionId)),
    );
    return true;
  }

  return {
    summaryOf,

    async compile(input: CompileTurn): Promise<TurnContext> {
      if (input.keepSummary === false) {
        // No summary: the window's messages alone, never folded (what left the window is dropped from context, not from history).
        const rows =
          input.recencyWindow > 0
            ? messages.history(input.sessionId, {
                afterSeq: 0,
                limit: input.recencyWindow,
                ...(input.excludeRunId ? { excludeRunId: input.excludeRunId } : {}),
              })
            : [];
        const { compiled, refused } = await compileOnce(input, 0, "", { readAfter: 0, rows });
        const last = compiled.messages.at(-1);
        return {
          compiled,
          context: last?.role === "user" ? compiled.messages.slice(0, -1) : compiled.messages,
          summary: "",
          folded: 0,
          foldStarted: 0,
          refused,
        };
      }
      let { state, text: summary } = summaryOf(input.sessionId);
      let foldedThrough = state?.throughSeq ?? 0;
      let folded = 0;

      const unfolded = messages.history(input.sessionId, {
        afterSeq: foldedThrough,
        ...(input.excludeRunId ? { excludeRunId: input.excludeRunId } : {}),
      });
      const read = { readAfter: foldedThrough, rows: unfolded };
      const plan = planFold({
        turns: unfolded.map((r) => r.message),
        windowSize: Math.max(0, input.recencyWindow),
        summaryTokens,
      });

      if (input.summarize) {
        // A model writes the summary: the turn uses the latest one and sends what is not folded yet
        // verbatim (the budget still caps it); the fold runs after the turn, once enough has piled up.
        const { compiled, rows, refused } = await compileOnce(
          { ...input, recencyWindow: input.recencyWindow + plan.fold.length },
          foldedThrough,
          summary,
          read,
        );
        const squeezed =
          compiled.overflow.length > 0 && rows.length >= compiled.overflow.length
            ? rows.slice(0, compiled.overflow.length).at(-1)!.seq
            : 0;
        const beyond = plan.fold.length > 0 ? unfolded[plan.fold.length - 1]!.seq : 0;
        const through = Math.max(squeezed, beyond);
        const foldRows = unfolded.filter((r) => r.seq <= through);
        let foldStarted = 0;
        if (
          foldRows.length >= foldBatch &&
          input.background &&
          foldInBackground(
            input.sessionId,
            foldRows,
            input.summarize,
            input.background,
            input.screen,
            input.excludeRunId,
          )
        )
          foldStarted = foldRows.length;
        const last = compiled.messages.at(-1);
        const context = last?.role === "user" ? compiled.messages.slice(0, -1) : compiled.messages;
        return { compiled, context, summary, folded, foldStarted, refused };
      }

      // Without a model the extractive summary costs no call: turns that have left the recency window
      // are folded in line, before the engine runs.
      if (plan.fold.length > 0) {
        const rows = unfolded.slice(0, plan.fold.length);
        summary = await fold(input.sessionId, rows, input.summarize, input.screen, input.excludeRunId);
        foldedThrough = rows.at(-1)!.seq;
        folded += rows.length;
      }

      let { compiled, rows, refused } = await compileOnce(input, foldedThrough, summary, read);
      // The budget squeezed out the oldest turns: fold them too, and compile once more with the new summary.
      if (compiled.overflow.length > 0 && rows.length >= compiled.overflow.length) {
        const overflowRows = rows.slice(0, compiled.overflow.length);
        summary = await fold(input.sessionId, overflowRows, input.summarize, input.screen, input.excludeRunId);
        foldedThrough = overflowRows.at(-1)!.seq;
        folded += overflowRows.length;
        ({ compiled, refused } = await compileOnce(input, foldedThrough, summary, read));
      }

      const last = compiled.messages.at(-1);
      const context = last?.role === "user" ? compiled.messages.slice(0, -1) : compiled.messages;
      return { compiled, context, summary, folded, foldStarted: 0, refused };
    },
  };
}

export type ContextTurns = ReturnType<typeof makeContextTurns>;

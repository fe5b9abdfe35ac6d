import type { SqlLike } from "../../../core/ports";
import {
  foldIntoSummary,
  makeContextEngine,
  planFold,
  type CompiledContext,
  type ContextTuning,
  type Summarize,
} from "../../../core/context";
import type { Clock, Message, ToolCall } from "../../../core/ports";
import { makeTurnContextStore, type ForeignSearch, type HistoryReader, type HistoryRow } from "./context-store";
import type { MemoryStore } from "./store";

/** The prompt budget of every agent (tokens): the share of the model's window Pantheon fills. */
export const contextTokens = 8000;
/** Kept free for the reply when the agent's model sets no `maxTokens`. */
export const defaultReplyReserve = 1024;
/** The rolling summary of a session stays within this many tokens. */
export const summaryTokens = 400;
/** Days after which a memory's recency weighs half. */
export const halfLifeDays = 30;

/** Small key/value state in the agent's `settings` table (JSON values), read and written with raw SQL. */
export function makeSettings(sql: SqlLike) {
  return {
    get<T>(key: string): T | undefined {
      const row = sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", key).toArray()[0];
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    set(key: string, value: unknown, now: number): void {
      sql.exec(
        "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        key,
        JSON.stringify(value),
        now,
      );
    },
  };
}

interface SummaryState {
  memoryId: string;
  /** Every message of the session up to this `seq` is in the summary, and no longer sent verbatim. */
  throughSeq: number;
}

/**
 * Reads a session's messages from the `messages` table (owned by messages.ts) with their `seq`,
 * leaving out the messages of `excludeRunId` (a run's own request, stored before its context is compiled).
 */
export function makeHistoryReader(sql: SqlLike) {
  type Row = { seq: number; role: Message["role"]; content: string; name: string | null; tool_calls: string | null; tool_call_id: string | null };
  const toRow = (r: Row): HistoryRow => ({
    seq: r.seq,
    message: {
      role: r.role,
      content: r.content,
      ...(r.name ? { name: r.name } : {}),
      ...(r.tool_calls ? { toolCalls: JSON.parse(r.tool_calls) as ToolCall[] } : {}),
      ...(r.tool_call_id ? { toolCallId: r.tool_call_id } : {}),
    },
  });
  const select = "SELECT seq, role, content, name, tool_calls, tool_call_id FROM messages WHERE session_id = ? AND seq > ? AND (run_id IS NULL OR run_id != ?)";
  return {
    recent: (sessionId: string, limit: number, afterSeq: number, excludeRunId = ""): HistoryRow[] =>
      limit <= 0 ? [] : sql.exec<Row>(`${select} ORDER BY seq DESC LIMIT ?`, sessionId, afterSeq, excludeRunId, limit).toArray().reverse().map(toRow),
    unfolded: (sessionId: string, afterSeq: number, excludeRunId = ""): HistoryRow[] => sql.exec<Row>(`${select} ORDER BY seq`, sessionId, afterSeq, excludeRunId).toArray().map(toRow),
  };
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
  /** Writes the rolling summary; a failing or absent one falls back to the extractive summary. */
  summarize?: Summarize;
  tuning?: Partial<ContextTuning>;
}

export interface TurnContext {
  compiled: CompiledContext;
  /** The context for the run: the compiled messages without the final user message (the run adds it). */
  context: Message[];
  summary: string;
  /** Turns folded into the summary while compiling. */
  folded: number;
}

/**
 * Compiles each turn's context with the engine and keeps the rolling summary: turns that leave the
 * recency window, or that the budget squeezes out, are folded into one `summary` memory per
 * session and never sent verbatim again. Folding never fails a turn (extractive fallback).
 *
 * @example
 * const turns = makeContextTurns({ sql, clock, memory });
 * const { context, compiled } = await turns.compile({ sessionId, systemPrompt, query, sources: ["memory"], recencyWindow: 20 });
 */
export function makeContextTurns(deps: { sql: SqlLike; clock: Clock; memory: MemoryStore; foreign?: ForeignSearch }) {
  const settings = makeSettings(deps.sql);
  const history = makeHistoryReader(deps.sql);
  const stateKey = (sessionId: string) => `memory.summary:${sessionId}`;

  function summaryOf(sessionId: string): { state: SummaryState | undefined; text: string } {
    const state = settings.get<SummaryState>(stateKey(sessionId));
    const text = state ? (deps.memory.get([state.memoryId])[0]?.text ?? "") : "";
    return { state, text };
  }

  async function fold(sessionId: string, rows: HistoryRow[], summarize: Summarize | undefined): Promise<string> {
    const { state, text } = summaryOf(sessionId);
    const result = await foldIntoSummary(
      text,
      rows.map((r) => r.message),
      summarize ?? (async () => ""),
      { maxTokens: summaryTokens },
    );
    const throughSeq = rows.at(-1)!.seq;
    let memoryId = state?.memoryId;
    if (memoryId && deps.memory.exists(memoryId)) {
      deps.memory.updateText(memoryId, result.summary || "(nothing to keep)");
    } else {
      const { records } = await deps.memory.insert([
        { kind: "summary", text: result.summary || "(nothing to keep)", provenance: `session:${sessionId}`, importance: 0.5 },
      ]);
      memoryId = records[0]!.id;
    }
    settings.set(stateKey(sessionId), { memoryId, throughSeq } satisfies SummaryState, deps.clock.now());
    return result.summary;
  }

  async function compileOnce(input: CompileTurn, foldedThrough: number, summary: string) {
    const reader: HistoryReader = (sessionId, limit, afterSeq) => history.recent(sessionId, limit, afterSeq, input.excludeRunId);
    const store = makeTurnContextStore({ memory: deps.memory, history: reader, foldedThrough, ...(deps.foreign ? { foreign: deps.foreign } : {}) });
    const engine = makeContextEngine({ store, clock: deps.clock });
    const maxTokens = input.maxTokens ?? contextTokens;
    const compiled = await engine.compile({
      systemPrompt: input.systemPrompt,
      sessionId: input.sessionId,
      query: input.query,
      sources: input.sources,
      budget: { maxTokens, reserveForReply: Math.min(input.reserveForReply ?? defaultReplyReserve, Math.floor(maxTokens / 2)) },
      recencyWindow: input.recencyWindow,
      halfLifeDays,
      ...(summary ? { summary } : {}),
      ...(input.tuning ? { tuning: input.tuning } : {}),
    });
    compiled.warnings.push(...store.warnings);
    return { compiled, rows: store.historyRows };
  }

  return {
    summaryOf,

    async compile(input: CompileTurn): Promise<TurnContext> {
      let { state, text: summary } = summaryOf(input.sessionId);
      let foldedThrough = state?.throughSeq ?? 0;
      let folded = 0;

      // Turns that have left the recency window go into the summary before the engine runs.
      const unfolded = history.unfolded(input.sessionId, foldedThrough, input.excludeRunId);
      const plan = planFold({ turns: unfolded.map((r) => r.message), windowSize: Math.max(0, input.recencyWindow), summaryTokens });
      if (plan.fold.length > 0) {
        const rows = unfolded.slice(0, plan.fold.length);
        summary = await fold(input.sessionId, rows, input.summarize);
        foldedThrough = rows.at(-1)!.seq;
        folded += rows.length;
      }

      let { compiled, rows } = await compileOnce(input, foldedThrough, summary);
      // The budget squeezed out the oldest turns: fold them too, and compile once more with the new summary.
      if (compiled.overflow.length > 0 && rows.length >= compiled.overflow.length) {
        const overflowRows = rows.slice(0, compiled.overflow.length);
        summary = await fold(input.sessionId, overflowRows, input.summarize);
        foldedThrough = overflowRows.at(-1)!.seq;
        folded += overflowRows.length;
        ({ compiled } = await compileOnce(input, foldedThrough, summary));
      }

      const last = compiled.messages.at(-1);
      const context = last?.role === "user" ? compiled.messages.slice(0, -1) : compiled.messages;
      return { compiled, context, summary, folded };
    },
  };
}

export type ContextTurns = ReturnType<typeof makeContextTurns>;

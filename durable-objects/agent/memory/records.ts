import { memoryKinds, type MemoryItem, type MemoryKind, type Triple } from "../../../core/context";
import type * as schema from "../schema";

/** A memory row as the API and the engine see it. */
export interface MemoryRecord extends MemoryItem {
  provenance: string;
  title?: string;
  supersededBy?: string;
}

/** What a writer hands the store; it assigns id, times, entities and the triple when not given. */
export interface NewMemory {
  kind: MemoryKind;
  text: string;
  provenance: string;
  source?: string;
  title?: string;
  importance?: number;
  entities?: string[];
  triple?: Triple;
  id?: string;
  createdAt?: number;
  /** When the thing happened; absent: timeless (its time is `createdAt`). */
  occurredAt?: number;
  lastUsedAt?: number;
  supersededBy?: string;
}

export interface InsertResult {
  records: MemoryRecord[];
  /** Ids of older facts the new ones replaced (same subject and relation, another value). */
  superseded: string[];
  /** Problems that did not stop the write (the embedder was down: re-embed later). */
  warnings: string[];
}

type Row = typeof schema.memories.$inferSelect;

/** DO SQLite allows 100 bound parameters per statement; leave room for the fixed ones. */
export const chunkSize = 90;
export const memoryKindsBut = (kind: MemoryKind): MemoryKind[] => memoryKinds.filter((k) => k !== kind);

/** A span of time, epoch ms, `to` exclusive. */
export interface Period {
  from: number;
  to: number;
}

export const within = (at: number, period: Period | undefined) => !period || (at >= period.from && at < period.to);

export const ownSource = "memory";

export function newMemoryId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return "m" + Array.from(bytes, (b) => (b % 36).toString(36)).join("") + Date.now().toString(36).slice(-5);
}

/** Durable Object SQLite (like D1) binds at most 100 variables per statement ("too many SQL variables" past it). */
export const maxBoundVariables = 100;

/**
 * Rows of one multi-row INSERT in groups that stay under {@link maxBoundVariables}: `columns` is
 * how many values each row binds (an autoincrement id counted too, in case it is bound).
 * @example
 * for (const part of rowBatches(rows, 5)) db.insert(table).values(part).run(); // 20 rows a statement
 */
export function rowBatches<T>(rows: T[], columns: number): T[][] {
  return chunks(rows, Math.max(1, Math.floor(maxBoundVariables / columns)));
}

export function chunks<T>(values: T[], size = chunkSize): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

export function recordOf(row: Row): MemoryRecord {
  const { subject, relation, object } = row;
  return {
    id: row.id,
    kind: row.kind,
    text: row.text,
    source: row.source,
    importance: row.importance,
    createdAt: row.createdAt,
    ...(row.occurredAt !== null ? { occurredAt: row.occurredAt } : {}),
    ...(row.lastUsedAt !== null ? { lastUsedAt: row.lastUsedAt } : {}),
    entities: row.entities ?? [],
    ...(subject && relation && object ? { triple: { subject, relation, object } } : {}),
    provenance: row.provenance,
    ...(row.title ? { title: row.title } : {}),
    ...(row.supersededBy ? { supersededBy: row.supersededBy } : {}),
  };
}

export const clamp01 = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0.5);

import { and, asc, desc, eq, gt, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { Clock, ImageRef, Message, Role, ToolCall } from "../../../core/ports";
import * as schema from "../schema";

/** A row is capped at 2 MB; longer content is cut and the cut is marked. */
export const maxMessageBytes = 2 * 1024 * 1024;

export interface StoredMessage {
  id: string;
  sessionId: string;
  role: Role;
  content: string;
  name?: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  runId?: string;
  /** Images sent with a user message (refs; GET /api/agents/:name/images/:id gives the bytes). */
  images?: ImageRef[];
  createdAt: number;
}

type Db = DrizzleSqliteDODatabase<typeof schema>;
type Row = typeof schema.messages.$inferSelect;

function view(row: Omit<Row, "seq">): StoredMessage {
  return {
    id: row.id,
    sessionId: row.sessionId,
    role: row.role,
    content: row.content,
    ...(row.name ? { name: row.name } : {}),
    ...(row.toolCalls ? { toolCalls: row.toolCalls as ToolCall[] } : {}),
    ...(row.toolCallId ? { toolCallId: row.toolCallId } : {}),
    ...(row.runId ? { runId: row.runId } : {}),
    ...(row.images?.length ? { images: row.images } : {}),
    createdAt: row.createdAt,
  };
}

/** Cuts text to at most `maxBytes` of UTF-8 (leaving room for the marker), never splitting a character. */
export function capContent(content: string, maxBytes = maxMessageBytes): string {
  const bytes = new TextEncoder().encode(content);
  if (bytes.length <= maxBytes) return content;
  const marker = `\n…[truncated: message was ${bytes.length} bytes]`;
  const keep = new TextDecoder().decode(bytes.slice(0, maxBytes - marker.length - 4)).replace(/\uFFFD$/, "");
  return keep + marker;
}

/** Cursor of a page: the `seq` of the last message returned, opaque to clients. */
const encodeCursor = (seq: number) => btoa(`m:${seq}`);
function decodeCursor(cursor: string): number | null {
  try {
    const match = /^m:(\d+)$/.exec(atob(cursor));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export function makeMessageStore(db: Db, clock: Clock) {
  // A context compile reads history on every turn: built once, bound per call.
  const { messages } = schema;
  const historyWhere = and(
    eq(messages.sessionId, sql.placeholder("sessionId")),
    gt(messages.seq, sql.placeholder("afterSeq")),
    or(isNull(messages.runId), ne(messages.runId, sql.placeholder("excludeRunId"))),
  );
  const historyColumns = {
    seq: messages.seq,
    role: messages.role,
    content: messages.content,
    name: messages.name,
    toolCalls: messages.toolCalls,
    toolCallId: messages.toolCallId,
    images: messages.images,
  };
  const p = (name: string) => sql.placeholder(name);
  // `tool_calls` goes in already serialized: a JSON column's encoder would store a missing list as
  // the text "null" rather than NULL (a placeholder's value is encoded even when it is null).
  const insertMessage = db
    .insert(messages)
    .values({
      id: p("id"),
      sessionId: p("sessionId"),
      role: p("role"),
      content: p("content"),
      name: p("name"),
      toolCalls: sql`${p("toolCallsJson")}`,
      toolCallId: p("toolCallId"),
      runId: p("runId"),
      createdAt: p("createdAt"),
      images: sql`${p("imagesJson")}`,
    })
    .prepare();
  const historyAll = db.select(historyColumns).from(messages).where(historyWhere).orderBy(asc(messages.seq)).prepare();
  const historyRecent = db
    .select(historyColumns)
    .from(messages)
    .where(historyWhere)
    .orderBy(desc(messages.seq))
    .limit(sql.placeholder("limit"))
    .prepare();
  /**
   * A new message as it will be stored, and its write for later: a turn's request is written once
   * the turn's model call has left (runs/held-writes.ts says why).
   */
  function draft(
    sessionId: string,
    message: Message & { runId?: string; id?: string },
  ): { message: StoredMessage; write(): void } {
    const row = {
      id: message.id ?? crypto.randomUUID(),
      sessionId,
      role: message.role,
      content: capContent(message.content),
      name: message.name ?? null,
      toolCalls: message.toolCalls?.length ? message.toolCalls : null,
      toolCallId: message.toolCallId ?? null,
      runId: message.runId ?? null,
      createdAt: clock.now(),
      images: message.images?.length ? message.images : null,
    };
    return {
      message: view(row),
      write: () =>
        void insertMessage.run({
          ...row,
          toolCallsJson: row.toolCalls ? JSON.stringify(row.toolCalls) : null,
          imagesJson: row.images ? JSON.stringify(row.images) : null,
        }),
    };
  }
  return {
    /** When the newest message of any session was written, if there is one (the idle alarm asks). */
    lastAt(): number | undefined {
      return db.select({ at: messages.createdAt }).from(messages).orderBy(desc(messages.seq)).limit(1).get()?.at;
    },
    /**
     * Adds a message. With an `id`, adding it again returns the stored one: a step that may be
     * redone after a restart (a plan's message) writes its message once.
     */
    append(sessionId: string, message: Message & { runId?: string; id?: string }): StoredMessage {
      if (message.id) {
        const existing = db.select().from(schema.messages).where(eq(schema.messages.id, message.id)).get();
        if (existing) return view(existing);
      }
      const drafted = draft(sessionId, message);
      drafted.write();
      return drafted.message;
    },
    draft,
    /** Newest first. Returns `null` for a cursor that is not one of ours. */
    page(
      sessionId: string,
      options: { limit: number; cursor?: string },
    ): { messages: StoredMessage[]; nextCursor: string | null } | null {
      let before = Number.MAX_SAFE_INTEGER;
      if (options.cursor) {
        const seq = decodeCursor(options.cursor);
        if (seq === null) return null;
        before = seq;
      }
      const rows = db
        .select()
        .from(schema.messages)
        .where(and(eq(schema.messages.sessionId, sessionId), lt(schema.messages.seq, before)))
        .orderBy(desc(schema.messages.seq))
        .limit(options.limit + 1)
        .all();
      const hasMore = rows.length > options.limit;
      const pageRows = rows.slice(0, options.limit);
      return { messages: pageRows.map(view), nextCursor: hasMore ? encodeCursor(pageRows.at(-1)!.seq) : null };
    },
    /** The last `limit` messages of a session, oldest first, as the model sees them. */
    recent(sessionId: string, limit: number): StoredMessage[] {
      if (limit <= 0) return [];
      return db
        .select()
        .from(schema.messages)
        .where(eq(schema.messages.sessionId, sessionId))
        .orderBy(desc(schema.messages.seq))
        .limit(limit)
        .all()
        .reverse()
        .map(view);
    },
    /**
     * A session's messages after `afterSeq` with their `seq`, as the model sees them (the context's
     * history): the newest `limit`, or all of them; the messages of `excludeRunId` (a run's own
     * request, stored before its context is compiled) are left out.
     */
    history(
      sessionId: string,
      options: { afterSeq: number; limit?: number; excludeRunId?: string },
    ): { seq: number; message: Message }[] {
      if (options.limit !== undefined && options.limit <= 0) return [];
      const values = { sessionId, afterSeq: options.afterSeq, excludeRunId: options.excludeRunId ?? "" };
      const rows =
        options.limit === undefined
          ? historyAll.all(values)
          : historyRecent.all({ ...values, limit: options.limit }).reverse();
      return rows.map((row) => ({
        seq: row.seq,
        message: {
          role: row.role,
          content: row.content,
          ...(row.name ? { name: row.name } : {}),
          ...(row.toolCalls ? { toolCalls: row.toolCalls as ToolCall[] } : {}),
          ...(row.toolCallId ? { toolCallId: row.toolCallId } : {}),
          ...(row.images?.length ? { images: row.images } : {}),
        },
      }));
    },
    /** The messages a run wrote to its session, oldest first: its request and its reply (a repeated client id reads them). */
    ofRun(sessionId: string, runId: string): StoredMessage[] {
      return db
        .select()
        .from(schema.messages)
        .where(and(eq(schema.messages.sessionId, sessionId), eq(schema.messages.runId, runId)))
        .orderBy(asc(schema.messages.seq))
        .all()
        .map(view);
    },
    all(sessionId: string): StoredMessage[] {
      return db
        .select()
        .from(schema.messages)
        .where(eq(schema.messages.sessionId, sessionId))
        .orderBy(asc(schema.messages.seq))
        .all()
        .map(view);
    },
  };
}

export type MessageStore = ReturnType<typeof makeMessageStore>;

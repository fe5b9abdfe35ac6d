import { asc, eq, gt, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { readSnapshotSlice, type SnapshotMessage, type SnapshotSession } from "../../../core/agents/snapshot";
import type { MemoryRecord } from "../memory/records";
import * as schema from "../schema";

type Db = DrizzleSqliteDODatabase<typeof schema>;

export interface SnapshotDeps {
  db: Db;
  /** One SQLite transaction (the agent's: features.ts). */
  transaction: <T>(fn: () => T) => T;
  memory: {
    exportText(clean?: (record: MemoryRecord) => MemoryRecord): string;
    import(
      text: string,
    ): Promise<{ imported: number; errors: Array<{ line: number; message: string }>; warnings: string[] }>;
    exists(id: string): boolean;
  };
}

/** What restoring one slice did: new rows by kind, rows already there (a resumed restore), refusals by line. */
export interface RestoreReport {
  sessions: number;
  messages: number;
  memories: number;
  existing: number;
  errors: Array<{ line: number; message: string }>;
  warnings: string[];
}

/**
 * An agent's sessions, messages and memories as snapshot lines (core/agents/snapshot.ts), and a
 * slice of them restored. Rows keep their ids and times; a row whose id is already here is counted
 * as existing and left as it is, so a restore cut off halfway is finished by sending it again.
 */
export function makeSnapshots(deps: SnapshotDeps) {
  const { db } = deps;

  function* historyLines(redact: <T>(value: T) => T): Generator<string> {
    for (const row of db.select().from(schema.sessions).orderBy(asc(schema.sessions.createdAt)).all()) {
      const line: SnapshotSession = {
        type: "session",
        id: row.id,
        title: row.title,
        isDefault: row.isDefault,
        ...(row.forkedFromSession && row.forkedFromMessage
          ? { forkedFrom: { sessionId: row.forkedFromSession, messageId: row.forkedFromMessage } }
          : {}),
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      };
      yield JSON.stringify(line) + "\n";
    }
    // In `seq` order: a restore appends them in the same order, so every page reads as it did.
    for (let after = 0; ; ) {
      // Pages of a thousand: a long history is never one result set in memory.
      const page = db
        .select()
        .from(schema.messages)
        .where(gt(schema.messages.seq, after))
        .orderBy(asc(schema.messages.seq))
        .limit(1000)
        .all();
      if (!page.length) break;
      after = page[page.length - 1]!.seq;
      for (const row of page) {
        const line: SnapshotMessage = {
          type: "message",
          id: row.id,
          sessionId: row.sessionId,
          role: row.role,
          content: redact(row.content),
          ...(row.name ? { name: row.name } : {}),
          ...(row.toolCalls ? { toolCalls: redact(row.toolCalls) } : {}),
          ...(row.toolCallId ? { toolCallId: row.toolCallId } : {}),
          ...(row.runId ? { runId: row.runId } : {}),
          ...(row.images?.length ? { images: row.images as SnapshotMessage["images"] } : {}),
          createdAt: row.createdAt,
        };
        yield JSON.stringify(line) + "\n";
      }
    }
  }

  function restoreSessions(sessions: Array<{ line: number; value: SnapshotSession }>, report: RestoreReport) {
    for (const { value: session } of sessions) {
      if (db.select({ id: schema.sessions.id }).from(schema.sessions).where(eq(schema.sessions.id, session.id)).get()) {
        report.existing++;
        continue;
      }
      let isDefault = session.isDefault;
      if (isDefault) {
        // A new agent made an empty default thread of its own on its first read: the snapshot's takes
        // its place. One that already holds messages stays the default; the restored one joins beside it.
        const current = db.select().from(schema.sessions).where(eq(schema.sessions.isDefault, true)).get();
        if (current) {
          const used =
            db
              .select({ n: sql<number>`count(*)` })
              .from(schema.messages)
              .where(eq(schema.messages.sessionId, current.id))
              .get()!.n > 0;
          if (used) {
            isDefault = false;
            report.warnings.push(
              `session '${session.id}' was the default thread; this agent's own default ('${current.id}') holds messages, so it stays the default`,
            );
          } else db.delete(schema.sessions).where(eq(schema.sessions.id, current.id)).run();
        }
      }
      db.insert(schema.sessions)
        .values({
          id: session.id,
          title: session.title,
          isDefault,
          forkedFromSession: session.forkedFrom?.sessionId ?? null,
          forkedFromMessage: session.forkedFrom?.messageId ?? null,
          createdAt: session.createdAt,
          updatedAt: session.updatedAt,
        })
        .run();
      report.sessions++;
    }
  }

  function restoreMessages(messages: Array<{ line: number; value: SnapshotMessage }>, report: RestoreReport) {
    const known = new Set(
      db
        .select({ id: schema.sessions.id })
        .from(schema.sessions)
        .all()
        .map((s) => s.id),
    );
    for (const { line, value: message } of messages) {
      if (db.select({ id: schema.messages.id }).from(schema.messages).where(eq(schema.messages.id, message.id)).get()) {
        report.existing++;
        continue;
      }
      if (!known.has(message.sessionId)) {
        report.errors.push({
          line,
          message: `sessionId: session '${message.sessionId}' is not in this agent (its session line comes first in a snapshot)`,
        });
        continue;
      }
      db.insert(schema.messages)
        .values({
          id: message.id,
          sessionId: message.sessionId,
          role: message.role,
          content: message.content,
          name: message.name ?? null,
          toolCalls: message.toolCalls ?? null,
          toolCallId: message.toolCallId ?? null,
          runId: message.runId ?? null,
          images: message.images ?? null,
          createdAt: message.createdAt,
        })
        .run();
      report.messages++;
    }
  }

  async function restoreMemories(lines: Array<{ line: number; text: string }>, report: RestoreReport) {
    const fresh: Array<{ line: number; text: string }> = [];
    for (const entry of lines) {
      const id = (JSON.parse(entry.text) as { id?: unknown }).id;
      if (typeof id === "string" && deps.memory.exists(id)) report.existing++;
      else fresh.push(entry);
    }
    if (!fresh.length) return;
    const result = await deps.memory.import(fresh.map((entry) => entry.text).join("\n"));
    report.memories += result.imported;
    // The memory import numbers the lines it was given; the person wants the slice's own numbers.
    report.errors.push(...result.errors.map((e) => ({ line: fresh[e.line - 1]?.line ?? e.line, message: e.message })));
    report.warnings.push(...result.warnings);
  }

  return {
    /** Sessions, then messages, then memories (history included), each secret the agent holds redacted. */
    lines(redact: <T>(value: T) => T): string {
      return (
        [...historyLines(redact)].join("") +
        deps.memory
          .exportText(redact)
          .split("\n")
          .filter(Boolean)
          .map((line) => `{"type":"memory",${line.slice(1)}\n`)
          .join("")
      );
    },

    /** One slice of snapshot lines (the header is the worker's: it makes the agent). */
    async restore(text: string): Promise<RestoreReport> {
      const slice = readSnapshotSlice(text);
      const report: RestoreReport = {
        sessions: 0,
        messages: 0,
        memories: 0,
        existing: 0,
        errors: [...slice.errors],
        warnings: [],
      };
      deps.transaction(() => {
        restoreSessions(slice.sessions, report);
        restoreMessages(slice.messages, report);
      });
      await restoreMemories(slice.memories, report);
      report.errors.sort((a, b) => a.line - b.line);
      return report;
    },
  };
}

import { and, asc, desc, eq, lte, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { Clock } from "../../../core/ports";
import { PantheonError } from "../../../core/errors";
import * as schema from "../schema";

export interface SessionView {
  id: string;
  title: string;
  isDefault: boolean;
  forkedFrom?: { sessionId: string; messageId: string };
  createdAt: number;
  updatedAt: number;
}

type Db = DrizzleSqliteDODatabase<typeof schema>;

function view(row: typeof schema.sessions.$inferSelect): SessionView {
  return {
    id: row.id,
    title: row.title,
    isDefault: row.isDefault,
    ...(row.forkedFromSession && row.forkedFromMessage
      ? { forkedFrom: { sessionId: row.forkedFromSession, messageId: row.forkedFromMessage } }
      : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const sessionMissing = (id: string) =>
  new PantheonError("not_found", `session '${id}' does not exist`, { details: { session: id } });

/** Conversation threads of one agent: create, list, rename, fork, delete; one default thread. */
export function makeSessionStore(db: Db, clock: Clock) {
  // Every turn resolves its session and touches it: built once (drizzle prepared statements).
  const byId = db
    .select()
    .from(schema.sessions)
    .where(eq(schema.sessions.id, sql.placeholder("id")))
    .prepare();
  const byDefault = db.select().from(schema.sessions).where(eq(schema.sessions.isDefault, true)).prepare();
  const touchById = db
    .update(schema.sessions)
    .set({ updatedAt: sql`${sql.placeholder("now")}` })
    .where(eq(schema.sessions.id, sql.placeholder("id")))
    .prepare();

  function get(id: string): SessionView {
    const row = byId.get({ id });
    if (!row) throw sessionMissing(id);
    return view(row);
  }

  function defaultSession(): SessionView {
    const row = byDefault.get();
    if (row) return view(row);
    const now = clock.now();
    return view(
      db
        .insert(schema.sessions)
        .values({ id: crypto.randomUUID(), title: "Default", isDefault: true, createdAt: now, updatedAt: now })
        .returning()
        .get(),
    );
  }

  function create(title?: string): SessionView {
    const now = clock.now();
    const row = db
      .insert(schema.sessions)
      .values({
        id: crypto.randomUUID(),
        title: title ?? "New conversation",
        isDefault: false,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    return view(row);
  }

  return {
    get,
    defaultSession,
    create,
    /** The session a message goes to: the named one (which must exist), else the default. */
    resolve(id?: string): SessionView {
      return id ? get(id) : defaultSession();
    },
    list(): SessionView[] {
      defaultSession();
      return db
        .select()
        .from(schema.sessions)
        .orderBy(desc(schema.sessions.isDefault), asc(schema.sessions.createdAt))
        .all()
        .map(view);
    },
    rename(id: string, title: string): SessionView {
      const row = db
        .update(schema.sessions)
        .set({ title, updatedAt: clock.now() })
        .where(eq(schema.sessions.id, id))
        .returning()
        .get();
      if (!row) throw sessionMissing(id);
      return view(row);
    },
    touch(id: string): void {
      touchById.run({ id, now: clock.now() });
    },
    /** A new session whose history is a copy of `sourceId`'s up to and including `fromMessageId` (all of it when absent). */
    fork(sourceId: string, options: { fromMessageId?: string; title?: string }): SessionView {
      const source = get(sourceId);
      let lastSeq = Number.MAX_SAFE_INTEGER;
      if (options.fromMessageId) {
        const anchor = db
          .select({ seq: schema.messages.seq })
          .from(schema.messages)
          .where(and(eq(schema.messages.id, options.fromMessageId), eq(schema.messages.sessionId, sourceId)))
          .get();
        if (!anchor) {
          throw new PantheonError("not_found", `message '${options.fromMessageId}' is not in session '${sourceId}'`, {
            details: { message: options.fromMessageId, session: sourceId },
          });
        }
        lastSeq = anchor.seq;
      }
      const rows = db
        .select()
        .from(schema.messages)
        .where(and(eq(schema.messages.sessionId, sourceId), lte(schema.messages.seq, lastSeq)))
        .orderBy(asc(schema.messages.seq))
        .all();
      const now = clock.now();
      const forkPoint = options.fromMessageId ?? rows.at(-1)?.id ?? null;
      const fork = db
        .insert(schema.sessions)
        .values({
          id: crypto.randomUUID(),
          title: options.title ?? `${source.title} (fork)`,
          isDefault: false,
          forkedFromSession: sourceId,
          forkedFromMessage: forkPoint,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      for (const row of rows) {
        const { seq: _seq, ...copy } = row;
        db.insert(schema.messages)
          .values({ ...copy, id: crypto.randomUUID(), sessionId: fork.id })
          .run();
      }
      return view(fork);
    },
    remove(id: string): void {
      get(id);
      db.delete(schema.messages).where(eq(schema.messages.sessionId, id)).run();
      db.delete(schema.sessions).where(eq(schema.sessions.id, id)).run();
    },
  };
}

export type SessionStore = ReturnType<typeof makeSessionStore>;

import { and, eq, inArray, isNotNull, ne, notInArray } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { grants, type Scope } from "../../core/auth";
import { PantheonError, type Result } from "../../core/errors";
import { widerScope } from "../../core/push";
import * as schema from "./schema";

/** A subscription as people and the admin see it: which device, whose, since when; the push service's host, never its URL. */
export interface PushSubscriptionInfo {
  id: string;
  tokenId: string;
  person: string | null;
  device: string | null;
  service: string;
  createdAt: number;
}

/** The registry's key-value records of what waits for people, one per notice tag (its value: the scope that may act). */
const waitingPrefix = "push:waits:";

/** Where one notice goes: the subscription and the person it is for. */
export interface PushTargetRow {
  id: string;
  tokenId: string;
  person: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * The project's Web Push subscriptions and mutes. Every read joins the tokens table: a subscription
 * whose token was revoked (a device signed out, a person deleted) is never a target again.
 * @example
 * const push = makePushStore(db, Date.now, ctx.storage.kv);
 * push.subscribe("tok_1", { endpoint, keys: { p256dh, auth } });
 */
export function makePushStore(
  db: DrizzleSqliteDODatabase<typeof schema>,
  now: () => number,
  kv: {
    put(key: string, value: unknown): void;
    delete(key: string): unknown;
    list<T>(options: { prefix: string }): Iterable<[string, T]>;
  },
) {
  const { pushSubscriptions: subs, tokens, pushMutes: mutes } = schema;
  const columns = {
    id: subs.id,
    tokenId: subs.tokenId,
    person: tokens.person,
    device: tokens.device,
    endpoint: subs.endpoint,
    createdAt: subs.createdAt,
  };
  const info = (row: { endpoint: string } & Omit<PushSubscriptionInfo, "service">): PushSubscriptionInfo => {
    const { endpoint, ...rest } = row;
    return { ...rest, service: new URL(endpoint).host };
  };
  return {
    /** Keeps a browser's subscription for a device token; the same endpoint again replaces the old row (a browser re-subscribed). */
    subscribe(
      tokenId: string,
      sub: { endpoint: string; keys: { p256dh: string; auth: string } },
    ): PushSubscriptionInfo {
      const row = {
        id: crypto.randomUUID(),
        tokenId,
        endpoint: sub.endpoint,
        p256dh: sub.keys.p256dh,
        auth: sub.keys.auth,
        createdAt: now(),
      };
      db.insert(subs)
        .values(row)
        .onConflictDoUpdate({
          target: subs.endpoint,
          set: { tokenId, p256dh: row.p256dh, auth: row.auth, createdAt: row.createdAt },
        })
        .run();
      return info(
        db
          .select(columns)
          .from(subs)
          .innerJoin(tokens, eq(tokens.id, subs.tokenId))
          .where(eq(subs.endpoint, sub.endpoint))
          .get()!,
      );
    },
    /** A person's subscriptions (every device of theirs), or all of the project's (the admin). */
    list(filter: { person?: string }): PushSubscriptionInfo[] {
      return db
        .select(columns)
        .from(subs)
        .innerJoin(tokens, eq(tokens.id, subs.tokenId))
        .where(filter.person ? eq(tokens.person, filter.person) : undefined)
        .all()
        .map(info);
    },
    /** Removes one; a person only their own (another's answers as missing, so ids say nothing). */
    remove(id: string, person?: string): Result<true> {
      const mine = this.list(person ? { person } : {}).some((s) => s.id === id);
      if (!mine)
        return new PantheonError("not_found", `push subscription '${id}' does not exist`, {
          details: { subscription: id },
        }).toFailure();
      db.delete(subs).where(eq(subs.id, id)).run();
      return { ok: true, value: true };
    },
    /** A push service said the endpoint is gone (404 or 410): it never gets another push. */
    gone(endpoints: string[]): void {
      if (endpoints.length) db.delete(subs).where(inArray(subs.endpoint, endpoints)).run();
    },
    /**
     * The token's subscriptions go with it; when it was a person's last device, the person is gone
     * and their mutes go too (someone invited again under that name starts with nothing of theirs).
     */
    forgetToken(tokenId: string): void {
      db.delete(subs).where(eq(subs.tokenId, tokenId)).run();
      const left = db
        .select({ person: tokens.person })
        .from(tokens)
        .where(and(isNotNull(tokens.person), ne(tokens.id, tokenId)));
      db.delete(mutes).where(notInArray(mutes.person, left)).run();
    },
    /** The project is deleted: every subscription, mute and record of what waits goes (one made again under its name starts empty). */
    wipe(): void {
      db.delete(subs).run();
      db.delete(mutes).run();
      for (const [key] of kv.list({ prefix: waitingPrefix })) kv.delete(key);
    },
    /**
     * The subscriptions of people whose device token may act on `scope`, who did not mute `agent`
     * (one person only when `person` is given), with every device token of each person (a live
     * socket on any of them means they are looking).
     */
    targets(input: { scope: Scope; agent: string; person?: string; waits?: { tag: string; open: boolean } }): {
      targets: PushTargetRow[];
      tokensOf: Record<string, string[]>;
      waiting: Record<string, number>;
    } {
      // What waits for people is kept from the notices that open and clear it (core/push waitsForPerson).
      if (input.waits?.open) kv.put(waitingPrefix + input.waits.tag, input.scope);
      else if (input.waits) kv.delete(waitingPrefix + input.waits.tag);
      const muted = new Set(
        db
          .select({ person: mutes.person })
          .from(mutes)
          .where(eq(mutes.agent, input.agent))
          .all()
          .map((m) => m.person),
      );
      const people = db
        .select({ id: tokens.id, person: tokens.person, scope: tokens.scope })
        .from(tokens)
        .where(input.person ? eq(tokens.person, input.person) : isNotNull(tokens.person))
        .all()
        .filter((t) => t.person && !muted.has(t.person));
      const tokensOf: Record<string, string[]> = {};
      for (const t of people) (tokensOf[t.person!] ??= []).push(t.id);
      const able = new Map(
        people.filter((t) => grants(t.scope as Scope, input.scope)).map((t) => [t.id, t.person!] as const),
      );
      if (able.size === 0) return { targets: [], tokensOf, waiting: {} };
      const targets = db
        .select()
        .from(subs)
        .where(inArray(subs.tokenId, [...able.keys()]))
        .all()
        .map((s) => ({ ...s, person: able.get(s.tokenId)! }));
      // Each person counts what their widest token may act on, muted agents' too: it waits all the same.
      const waits = [...kv.list<Scope>({ prefix: waitingPrefix })].map(([, need]) => need);
      const widest: Record<string, Scope> = {};
      for (const t of people) widest[t.person!] = widerScope(widest[t.person!] ?? "chat", t.scope as Scope);
      const waiting: Record<string, number> = {};
      for (const person of new Set(targets.map((t) => t.person)))
        waiting[person] = waits.filter((need) => grants(widest[person]!, need)).length;
      return { targets, tokensOf, waiting };
    },
    /** Each person with a subscribed device, and the widest scope among those devices' tokens (core/push PushAudience). */
    audience(): Record<string, Scope> {
      const people: Record<string, Scope> = {};
      for (const row of db
        .select({ person: tokens.person, scope: tokens.scope })
        .from(subs)
        .innerJoin(tokens, eq(tokens.id, subs.tokenId))
        .where(isNotNull(tokens.person))
        .all()) {
        const seen = people[row.person!];
        people[row.person!] = seen ? widerScope(seen, row.scope as Scope) : (row.scope as Scope);
      }
      return people;
    },
    /** Mutes or unmutes an agent for a person. */
    mute(person: string, agent: string, muted: boolean): void {
      db.delete(mutes)
        .where(and(eq(mutes.person, person), eq(mutes.agent, agent)))
        .run();
      if (muted) db.insert(mutes).values({ person, agent, createdAt: now() }).run();
    },
    mutes(person: string): string[] {
      return db
        .select({ agent: mutes.agent })
        .from(mutes)
        .where(eq(mutes.person, person))
        .all()
        .map((m) => m.agent);
    },
  };
}

export type PushStore = ReturnType<typeof makePushStore>;

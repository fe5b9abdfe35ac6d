import { and, asc, eq, gt, isNull, lt } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { newToken, sha256Hex, type Scope } from "../../core/auth";
import { PantheonError, type Result } from "../../core/errors";
import * as schema from "./schema";

type Db = DrizzleSqliteDODatabase<typeof schema>;

export interface TokenInfo {
  id: string;
  name: string;
  scope: Scope;
  /** The person whose device this token is (an invite made it); null for a plain token. */
  person: string | null;
  /** What that device called itself when it redeemed the invite. */
  device: string | null;
  createdAt: number;
  lastUsedAt: number | null;
}

/** An invite as lists show it: never its code (only the code's hash is kept). */
export interface InviteInfo {
  id: string;
  name: string;
  scope: Scope;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  tokenId: string | null;
}

/** What a token check answers: who is calling and what they may do, never the token. */
export interface TokenIdentity {
  id: string;
  name: string;
  scope: Scope;
  person: string | null;
}

/** Used or expired invites are kept this long (a record of who was let in), then dropped. */
const keepSpentInvitesMs = 30 * 24 * 3600 * 1000;

const fail = (error: PantheonError) => error.toFailure();
const tokenColumns = {
  id: schema.tokens.id,
  name: schema.tokens.name,
  scope: schema.tokens.scope,
  person: schema.tokens.person,
  device: schema.tokens.device,
  createdAt: schema.tokens.createdAt,
  lastUsedAt: schema.tokens.lastUsedAt,
};
const inviteColumns = {
  id: schema.invites.id,
  name: schema.invites.name,
  scope: schema.invites.scope,
  createdAt: schema.invites.createdAt,
  expiresAt: schema.invites.expiresAt,
  usedAt: schema.invites.usedAt,
  tokenId: schema.invites.tokenId,
};

/**
 * Who may sign in to a project: its API tokens and the invites that make a person's device token.
 * Only SHA-256 hashes of tokens and invite codes are stored. The registry's methods delegate here.
 */
export function makeAccess(db: Db, transaction: <T>(fn: () => T) => T, now: () => number) {
  function insertToken(input: {
    name: string;
    scope: Scope;
    hash: string;
    person?: string | null;
    device?: string | null;
  }): TokenInfo {
    const row = db
      .insert(schema.tokens)
      .values({
        id: crypto.randomUUID(),
        name: input.name,
        scope: input.scope,
        hash: input.hash,
        person: input.person ?? null,
        device: input.device ?? null,
        createdAt: now(),
      })
      .returning(tokenColumns)
      .get();
    return row as TokenInfo;
  }

  return {
    async createToken(name: string, scope: Scope): Promise<TokenInfo & { token: string }> {
      const token = newToken();
      return { ...insertToken({ name, scope, hash: await sha256Hex(token) }), token };
    },

    listTokens(): TokenInfo[] {
      return db.select(tokenColumns).from(schema.tokens).orderBy(asc(schema.tokens.createdAt)).all() as TokenInfo[];
    },

    deleteToken(id: string): Result<true> {
      const row = db.delete(schema.tokens).where(eq(schema.tokens.id, id)).returning().get();
      return row
        ? { ok: true, value: true }
        : fail(new PantheonError("not_found", `token '${id}' does not exist`, { details: { token: id } }));
    },

    /** The token with this SHA-256 hash, or null; records when it was last used. */
    verifyTokenHash(hash: string): TokenIdentity | null {
      const row = db
        .select({
          id: schema.tokens.id,
          name: schema.tokens.name,
          scope: schema.tokens.scope,
          person: schema.tokens.person,
        })
        .from(schema.tokens)
        .where(eq(schema.tokens.hash, hash))
        .get();
      if (!row) return null;
      db.update(schema.tokens).set({ lastUsedAt: now() }).where(eq(schema.tokens.id, row.id)).run();
      return row as TokenIdentity;
    },

    tokenExists(id: string): boolean {
      return (
        db.select({ id: schema.tokens.id }).from(schema.tokens).where(eq(schema.tokens.id, id)).get() !== undefined
      );
    },

    /** A new invite for `name` with `scope`, valid `seconds`; `hash` is the SHA-256 of its code (the caller keeps the code). */
    createInvite(input: { name: string; scope: Scope; hash: string; seconds: number }): InviteInfo {
      const at = now();
      db.delete(schema.invites)
        .where(lt(schema.invites.expiresAt, at - keepSpentInvitesMs))
        .run();
      return db
        .insert(schema.invites)
        .values({
          id: crypto.randomUUID(),
          name: input.name,
          scope: input.scope,
          hash: input.hash,
          createdAt: at,
          expiresAt: at + input.seconds * 1000,
        })
        .returning(inviteColumns)
        .get() as InviteInfo;
    },

    /** Invites still waiting to be used (not used, not expired), oldest first. */
    listInvites(): InviteInfo[] {
      return db
        .select(inviteColumns)
        .from(schema.invites)
        .where(and(isNull(schema.invites.usedAt), gt(schema.invites.expiresAt, now())))
        .orderBy(asc(schema.invites.createdAt))
        .all() as InviteInfo[];
    },

    /** Withdraws an invite that was not used yet: its link stops working. */
    deleteInvite(id: string): Result<true> {
      const row = db
        .delete(schema.invites)
        .where(and(eq(schema.invites.id, id), isNull(schema.invites.usedAt)))
        .returning()
        .get();
      return row
        ? { ok: true, value: true }
        : fail(
            new PantheonError("not_found", `invite '${id}' does not exist or was already used`, {
              details: { invite: id },
            }),
          );
    },

    /**
     * Redeems the invite whose code hashes to `codeHash`: once, before it expires. Makes the device's
     * own token (named after the person, `person` kept on it, the invite's scope) from `tokenHash`,
     * whose token the caller made and returns once. The check and both writes are one transaction, so
     * two devices racing for one link cannot both get in.
     */
    redeemInvite(codeHash: string, tokenHash: string, device: string | null): Result<TokenInfo> {
      return transaction(() => {
        const invite = db.select().from(schema.invites).where(eq(schema.invites.hash, codeHash)).get();
        if (!invite)
          return fail(
            new PantheonError(
              "not_found",
              "this sign-in link is not valid for this project: ask whoever invited you for a new one",
              { details: { reason: "unknown" } },
            ),
          );
        if (invite.usedAt !== null) {
          return fail(
            new PantheonError(
              "gone",
              `this sign-in link was already used (${new Date(invite.usedAt).toISOString()}); a link signs in one device: ask for a new one`,
              { details: { reason: "used", usedAt: invite.usedAt } },
            ),
          );
        }
        if (invite.expiresAt <= now()) {
          return fail(
            new PantheonError(
              "gone",
              `this sign-in link expired at ${new Date(invite.expiresAt).toISOString()}: ask for a new one`,
              { details: { reason: "expired", expiresAt: invite.expiresAt } },
            ),
          );
        }
        const token = insertToken({
          name: invite.name,
          scope: invite.scope as Scope,
          hash: tokenHash,
          person: invite.name,
          device,
        });
        db.update(schema.invites)
          .set({ usedAt: now(), tokenId: token.id })
          .where(eq(schema.invites.id, invite.id))
          .run();
        return { ok: true as const, value: token };
      });
    },
  };
}

export type Access = ReturnType<typeof makeAccess>;

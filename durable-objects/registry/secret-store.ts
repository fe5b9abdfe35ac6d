import { asc, eq, inArray } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { PantheonError, type Result } from "../../core/errors";
import { maxProjectSecrets, shortFingerprint, type ProjectSecretNames, type SealedSecret } from "../../core/secrets";
import * as schema from "./schema";

/** What the list shows of a secret: never its value, nor its ciphertext. */
export interface SecretListing {
  name: string;
  updatedAt: number;
  /** First 8 hex characters of the keyed fingerprint. */
  fingerprint: string;
}

const fail = (error: PantheonError) => error.toFailure();

/**
 * The project's sealed secrets and the deployment secrets granted to it (schema `secrets`,
 * `secret_grants`). A name is either the project's own or a grant, never both, so which value a
 * name means is never a question of precedence.
 */
export function makeSecretStore(db: DrizzleSqliteDODatabase<typeof schema>, now: () => number) {
  const grantOf = (name: string) =>
    db
      .select({ name: schema.secretGrants.name })
      .from(schema.secretGrants)
      .where(eq(schema.secretGrants.name, name))
      .get();
  const ownOf = (name: string) =>
    db.select({ name: schema.secrets.name }).from(schema.secrets).where(eq(schema.secrets.name, name)).get();
  return {
    put(sealed: SealedSecret): Result<SecretListing> {
      if (grantOf(sealed.name)) {
        return fail(
          new PantheonError(
            "conflict",
            `'${sealed.name}' is a deployment secret granted to this project; the deployment admin revokes the grant (DELETE /api/projects/:slug/grants/${sealed.name}) before the project sets its own`,
            { details: { secret: sealed.name } },
          ),
        );
      }
      if (
        !ownOf(sealed.name) &&
        db.select({ name: schema.secrets.name }).from(schema.secrets).all().length >= maxProjectSecrets
      ) {
        return fail(
          new PantheonError("conflict", `a project keeps at most ${maxProjectSecrets} secrets; delete one first`, {
            details: { limit: maxProjectSecrets },
          }),
        );
      }
      const updatedAt = now();
      const values = { iv: sealed.iv, data: sealed.data, fingerprint: sealed.fingerprint, updatedAt };
      db.insert(schema.secrets)
        .values({ name: sealed.name, ...values })
        .onConflictDoUpdate({ target: schema.secrets.name, set: values })
        .run();
      return { ok: true, value: { name: sealed.name, updatedAt, fingerprint: shortFingerprint(sealed.fingerprint) } };
    },
    list(): { secrets: SecretListing[]; grants: { name: string; grantedAt: number }[] } {
      const secrets = db
        .select({
          name: schema.secrets.name,
          updatedAt: schema.secrets.updatedAt,
          fingerprint: schema.secrets.fingerprint,
        })
        .from(schema.secrets)
        .orderBy(asc(schema.secrets.name))
        .all();
      return {
        secrets: secrets.map((s) => ({ ...s, fingerprint: shortFingerprint(s.fingerprint) })),
        grants: db.select().from(schema.secretGrants).orderBy(asc(schema.secretGrants.name)).all(),
      };
    },
    remove(name: string): boolean {
      return db.delete(schema.secrets).where(eq(schema.secrets.name, name)).returning().get() !== undefined;
    },
    names(): ProjectSecretNames {
      return {
        own: db
          .select({ name: schema.secrets.name })
          .from(schema.secrets)
          .orderBy(asc(schema.secrets.name))
          .all()
          .map((r) => r.name),
        granted: db
          .select({ name: schema.secretGrants.name })
          .from(schema.secretGrants)
          .orderBy(asc(schema.secretGrants.name))
          .all()
          .map((r) => r.name),
      };
    },
    /** The sealed values of the names asked for (still sealed: only the agent opens them) and which of them are grants. */
    sealed(names: string[]): { sealed: Omit<SealedSecret, "fingerprint">[]; granted: string[] } {
      if (names.length === 0) return { sealed: [], granted: [] };
      return {
        sealed: db
          .select({ name: schema.secrets.name, iv: schema.secrets.iv, data: schema.secrets.data })
          .from(schema.secrets)
          .where(inArray(schema.secrets.name, names))
          .all(),
        granted: db
          .select({ name: schema.secretGrants.name })
          .from(schema.secretGrants)
          .where(inArray(schema.secretGrants.name, names))
          .all()
          .map((r) => r.name),
      };
    },
    /** The full keyed fingerprint of an own secret, or null. */
    fingerprint(name: string): string | null {
      return (
        db.select({ f: schema.secrets.fingerprint }).from(schema.secrets).where(eq(schema.secrets.name, name)).get()
          ?.f ?? null
      );
    },
    grant(name: string): Result<{ name: string; grantedAt: number }> {
      if (ownOf(name)) {
        return fail(
          new PantheonError(
            "conflict",
            `the project has its own secret '${name}'; delete it (DELETE /api/projects/:slug/secrets/${name}) before granting the deployment's`,
            { details: { secret: name } },
          ),
        );
      }
      const grantedAt = now();
      db.insert(schema.secretGrants).values({ name, grantedAt }).onConflictDoNothing().run();
      return {
        ok: true,
        value: db.select().from(schema.secretGrants).where(eq(schema.secretGrants.name, name)).get() ?? {
          name,
          grantedAt,
        },
      };
    },
    revoke(name: string): boolean {
      return db.delete(schema.secretGrants).where(eq(schema.secretGrants.name, name)).returning().get() !== undefined;
    },
  };
}

export type SecretStore = ReturnType<typeof makeSecretStore>;

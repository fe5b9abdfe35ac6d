import { z } from "zod";
import { base64UrlEncode } from "../bytes";
import { lazySchema } from "../lazy-schema";
import { isReservedName, reservedNameMessage } from "../reserved-names";
import { scopeSchema } from "../auth";

/**
 * A person's name as an invite gives it: what every comment, approval, answer and message of theirs
 * shows, and the principal their devices act as (workers/auth.ts). No ':' (a token's principal is
 * `token:<name>`) and never `admin` (the deployment secret's principal, which projects.ts trusts).
 */
export const personNameSchema = lazySchema(() =>
  z
    .string()
    .trim()
    .min(1, "name the person (e.g. ana)")
    .max(64, "at most 64 characters")
    .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._'-]*$/u, "letters, digits, spaces and . _ ' - (starting with a letter or digit)")
    .refine(
      (name) => name.toLowerCase() !== "admin",
      "'admin' is the deployment's admin token; choose the person's own name",
    )
    // The rule every name a user picks follows (core/reserved-names.ts): `toString` is not a person.
    .refine((name) => !isReservedName(name), reservedNameMessage),
);

/** Longest an invite may wait to be used: a sign-in link is a secret in transit, so it lives briefly. */
export const maxInviteSeconds = 7 * 24 * 3600;
export const defaultInviteSeconds = 24 * 3600;

/** `POST /api/invites`: who, with what scope, and for how long the link works. */
export const inviteCreateSchema = lazySchema(() =>
  z.strictObject({
    name: personNameSchema,
    /** Least privilege by default, as for tokens: a phone that chats. */
    scope: scopeSchema.default("chat"),
    /** Seconds the link stays valid (default 24 hours). */
    expiresIn: z
      .number({ error: "seconds, a whole number" })
      .int("seconds, a whole number")
      .min(60, "at least 60 seconds")
      .max(maxInviteSeconds, `at most ${maxInviteSeconds} seconds (7 days)`)
      .default(defaultInviteSeconds),
  }),
);

/** An invite's code: 32 random bytes, base64url (43 characters). */
export const inviteCodeSchema = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9_-]{43}$/, "the code from the sign-in link: 43 letters, digits, '-' or '_'"),
);

/** `POST /api/invites/redeem`: the link's code, and optionally what the device is (shown in token lists). */
export const inviteRedeemSchema = lazySchema(() =>
  z.strictObject({
    code: inviteCodeSchema,
    device: z.string().trim().min(1).max(100, "at most 100 characters").optional(),
  }),
);

/** A new invite code: 32 random bytes as base64url. Only its SHA-256 is stored. */
export function newInviteCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return base64UrlEncode(bytes);
}

/**
 * The one-time sign-in link the PWA opens (its `#/join/<code>` route); the project rides along
 * unless it is `default`.
 * @example
 * joinLink("https://p.example", "abc", "default") // "https://p.example/#/join/abc"
 * joinLink("https://p.example", "abc", "team")    // "https://p.example/#/join/abc?project=team"
 */
export function joinLink(origin: string, code: string, project: string): string {
  return `${origin.replace(/\/+$/, "")}/#/join/${code}${project === "default" ? "" : `?project=${encodeURIComponent(project)}`}`;
}

/**
 * The code and project of a sign-in link (or of a bare code), or null when it is not one.
 * @example
 * parseJoinLink("https://p.example/#/join/abc?project=team") // { code: "abc", project: "team" }
 */
export function parseJoinLink(link: string): { code: string; project: string } | null {
  const match = /#\/join\/([A-Za-z0-9_-]+)(?:\?(.*))?$/.exec(link);
  if (!match) return null;
  const project = new URLSearchParams(match[2] ?? "").get("project") ?? "default";
  return { code: match[1]!, project };
}

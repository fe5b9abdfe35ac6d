import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { agentNamePattern } from "../agents";

/**
 * The email gateway's pure half: who an inbound mail is for, whether its sender may talk to the
 * agent, which thread (session) it belongs to, and the new text of a reply (quotes removed).
 */

const address = lazySchema(() =>
  z
    .email({ error: "an email address" })
    .max(320)
    .transform((a) => a.toLowerCase()),
);

/** `PUT /api/agents/:name/gateways/email`. */
export const emailConfigInputSchema = lazySchema(() =>
  z.strictObject({
    /** Senders allowed to start runs: exact addresses, or `@example.com` for a whole domain. */
    allowedSenders: z
      .array(
        z.union([
          address,
          z
            .string()
            .regex(/^@[a-z0-9.-]+\.[a-z]{2,}$/i, "an address, or @domain for every address of a domain")
            .transform((d) => d.toLowerCase()),
        ]),
      )
      .min(1, "name at least one sender: mail from anyone else is refused")
      .max(1000),
    /** The display name of replies (default: the agent's name). */
    fromName: z.string().min(1).max(100).optional(),
  }),
);
export type EmailConfig = z.infer<typeof emailConfigInputSchema>;

/**
 * `<agent>+<project>@any.domain` → that agent of that project; `<agent>@…` → project `default`.
 * Addresses are matched lower-case (mail systems lowercase them). Anything else → null.
 * @example
 * emailRecipient("Scout+Acme@agents.example.com"); // { agent: "scout", project: "acme" }
 * emailRecipient("scout@agents.example.com");      // { agent: "scout", project: "default" }
 */
export function emailRecipient(to: string): { agent: string; project: string } | null {
  const local = /^([^@\s]+)@[^@\s]+$/.exec(to.trim().toLowerCase())?.[1];
  if (!local) return null;
  const [agent = "", project = "default", ...rest] = local.split("+");
  if (rest.length || !agentNamePattern.test(agent) || !agentNamePattern.test(project)) return null;
  return { agent, project };
}

/** Whether `from` is on the allowlist (exact address, or `@domain`). */
export function senderAllowed(from: string, allowed: readonly string[]): boolean {
  const sender = from.trim().toLowerCase();
  const domain = sender.slice(sender.lastIndexOf("@"));
  return allowed.some((entry) => (entry.startsWith("@") ? entry === domain : entry === sender));
}

/** Message ids in a header (`<a@b> <c@d>`), in order. */
export function messageIds(header: string | null | undefined): string[] {
  return [...(header ?? "").matchAll(/<[^<>\s]{1,250}>/g)].map((m) => m[0]);
}

/**
 * The ids that may name this mail's thread, most specific first: what it replies to, then its
 * references from the newest back. The first one already known picks the session; a mail with
 * none known starts a thread of its own id.
 */
export function threadCandidates(headers: { inReplyTo?: string | null; references?: string | null }): string[] {
  return [...new Set([...messageIds(headers.inReplyTo), ...messageIds(headers.references).reverse()])];
}

/**
 * A reply's new text: quoted lines (`>`) and everything after an "On … wrote:" line are dropped.
 * @example
 * newText("Sounds good\n\nOn Mon, Ann wrote:\n> earlier"); // "Sounds good"
 */
export function newText(body: string): string {
  const lines = body.replace(/\r\n/g, "\n").split("\n");
  const kept: string[] = [];
  for (const line of lines) {
    if (/^\s*On .{1,300} wrote:\s*$/.test(line) || /^-----\s*Original Message\s*-----/i.test(line)) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join("\n").trim();
}

/** Inbound mails above this size are refused before they are read. */
export const maxEmailBytes = 256 * 1024;

/**
 * What the sender's mail server is told when a mail is over {@link maxEmailBytes}: its size and the limit.
 * @example
 * emailTooLargeReason(300 * 1024) // "the message is 300 KiB; this address takes at most 256 KiB"
 */
export function emailTooLargeReason(bytes: number): string {
  return `the message is ${Math.ceil(bytes / 1024)} KiB; this address takes at most ${maxEmailBytes / 1024} KiB`;
}

/** The last mail the gateway refused, shown to the operator with the gateway's settings. */
export interface EmailRefusal {
  at: number;
  from: string;
  size: number;
  reason: string;
}

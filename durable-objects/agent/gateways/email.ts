import type { AgentEmail } from "agents/email";
import { isAutoReplyEmail } from "agents/email";
import type PostalMime from "postal-mime";
import {
  emailTooLargeReason,
  maxEmailBytes,
  newText,
  senderAllowed,
  threadCandidates,
  type EmailConfig,
} from "../../../core/gateways";
import type { Gateways } from "./gateways";
import type { RunOutcome } from "../runs/driver";

export interface EmailDeps {
  gateways: Gateways;
  agent(): string;
  now(): number;
  turn(input: { content: string; input?: Record<string, unknown>; session: string }): Promise<RunOutcome>;
  /** The agents SDK's reply through the inbound mail's own channel (Email Routing `reply()`). */
  reply(
    email: AgentEmail,
    options: { fromName: string; subject: string; body: string; headers: Record<string, string> },
  ): Promise<void>;
}

/** Text from an HTML-only mail: tags dropped, entities for the common characters decoded. */
function htmlText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, "")
    .replace(/<br\s*\/?>|<\/p>|<\/div>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/**
 * One inbound mail (routed here by the worker's `email` handler through the agents SDK): only an
 * allowlisted sender's mail runs, in the session of its thread (every message id of a thread, sent
 * or received, maps to one session), and the reply goes back to the sender through Email Routing.
 * A run that waits for approval is said so in the reply; a person decides it in the PWA, the CLI
 * or Telegram, and the final answer stays in the session (no second mail: a reply needs the live
 * inbound message).
 */
export async function handleEmail(email: AgentEmail, deps: EmailDeps): Promise<string> {
  // `setReject` is an RPC back to the worker's message (the SDK's bridge): awaited, or the
  // invocation can end before it lands and the mail is neither refused nor answered.
  const config = deps.gateways.configOf<EmailConfig>("email");
  if (!config) {
    await email.setReject("this address takes no mail");
    return "refused: no email gateway";
  }
  if (!senderAllowed(email.from, config.allowedSenders)) {
    await email.setReject("the sender is not allowed to write to this agent");
    return "refused: sender not allowed";
  }
  // The sender's server gets the reason; the operator sees it on GET …/gateways/email and in the log.
  const refuse = async (reason: string, why: string) => {
    await email.setReject(reason);
    deps.gateways.noteEmailRefusal({ at: deps.now(), from: email.from.toLowerCase(), size: email.rawSize, reason });
    console.warn(
      JSON.stringify({
        level: "warn",
        event: "email_refused",
        agent: deps.agent(),
        reason: why,
        size: email.rawSize,
        limit: maxEmailBytes,
      }),
    );
    return `refused: ${why.replace("_", " ")}`;
  };
  if (email.rawSize > maxEmailBytes) return refuse(emailTooLargeReason(email.rawSize), "too_large");
  // Loaded here, not at the top: only an agent that receives mail needs the MIME parser, and its
  // module (HTML entity tables, decoders) would otherwise run at every isolate's startup.
  const { default: mime } = await import("postal-mime");
  let parsed: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    parsed = await mime.parse(await email.getRaw());
  } catch (error) {
    // postal-mime refuses multiparts nested past 256 levels, among others: the sender's mistake, not ours.
    return refuse(
      `the message could not be read as MIME: ${error instanceof Error ? error.message : String(error)}`,
      "unreadable",
    );
  }
  if (isAutoReplyEmail(parsed.headers)) return "ignored: an automatic reply";

  const subject = (parsed.subject ?? "").slice(0, 200);
  const messageId = parsed.messageId ?? email.headers.get("message-id") ?? `<${crypto.randomUUID()}@pantheon>`;
  const candidates = threadCandidates({
    inReplyTo: parsed.inReplyTo ?? email.headers.get("in-reply-to"),
    references: parsed.references ?? email.headers.get("references"),
  });
  const known = deps.gateways.knownThread("email", candidates);
  const session = known ?? deps.gateways.threadSession("email", messageId, `Email: ${subject || email.from}`);
  deps.gateways.mapThread("email", messageId, session);

  const text = newText(parsed.text ?? htmlText(parsed.html ?? "")).slice(0, 32_000);
  const content = known || !subject ? text : `${subject}\n\n${text}`;
  let body: string;
  if (!content.trim()) body = "Your message had no text I could read.";
  else {
    // Behaviors read where the mail came from as structured input: (get input "subject"), (get input "from").
    const outcome = await deps.turn({
      content,
      input: { channel: "email", from: email.from.toLowerCase(), subject },
      session,
    });
    body =
      outcome.status === "completed"
        ? (outcome.reply?.content ?? "")
        : outcome.status === "waiting_approval"
          ? `This needs a person's approval first (run ${outcome.runId}). The answer will be in the conversation once it is decided.`
          : `The run ${outcome.status}${outcome.error ? `: ${outcome.error}` : "."}`;
  }

  const domain = email.to.slice(email.to.lastIndexOf("@") + 1) || "pantheon";
  const replyId = `<${crypto.randomUUID()}@${domain}>`;
  deps.gateways.mapThread("email", replyId, session);
  const references = [...new Set([...candidates.slice().reverse(), messageId])].join(" ");
  await deps.reply(email, {
    fromName: config.fromName ?? deps.agent(),
    subject: subject.toLowerCase().startsWith("re:") ? subject : `Re: ${subject || "your message"}`,
    body,
    headers: { "Message-ID": replyId, References: references },
  });
  return "replied";
}

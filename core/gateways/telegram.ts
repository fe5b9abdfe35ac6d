import { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { secretNamePattern } from "../tools/secrets";

/**
 * The Telegram gateway's pure half: the operator's configuration, the updates Telegram sends
 * (validated leniently: unknown fields pass, the fields we use are checked), what an update asks
 * for, and the approval buttons. No I/O here; the Bot API client is adapters/telegram-bot.
 */

/** Telegram's rule for the webhook secret token: 1–256 of A–Z, a–z, 0–9, `_`, `-`. */
export const telegramSecretTokenPattern = /^[A-Za-z0-9_-]{16,256}$/;

/**
 * Bot tokens live in worker secrets whose name starts with `TELEGRAM_`: no other secret (the
 * admin token, model keys, tool secrets) can ever be sent to the Bot API endpoint.
 */
export const botTokenSecretPattern = /^TELEGRAM_[A-Z0-9_]*$/;

const telegramId = lazySchema(() => z.number().int().safe());

/** `PUT /api/agents/:name/gateways/telegram`. */
export const telegramConfigInputSchema = lazySchema(() =>
  z.strictObject({
    /** The webhook's `X-Telegram-Bot-Api-Secret-Token`; generated when absent (it never needs to leave the server). */
    secretToken: z
      .string()
      .regex(telegramSecretTokenPattern, "16–256 characters of A–Z, a–z, 0–9, '_' or '-'")
      .optional(),
    /** Name of the worker secret holding the bot token (`npx wrangler secret put TELEGRAM_BOT_TOKEN`). */
    botTokenSecret: z
      .string()
      .regex(secretNamePattern, "an UPPER_SNAKE secret name")
      .regex(
        botTokenSecretPattern,
        "a secret whose name starts with TELEGRAM_ (e.g. TELEGRAM_BOT_TOKEN): only those are ever sent to the Bot API",
      ),
    /** Chats whose messages start runs; absent = any chat that finds the bot. */
    allowedChatIds: z.array(telegramId).max(1000).optional(),
    /** Telegram user ids whose approve/reject buttons count (the gateway's `approve` scope). */
    approverUserIds: z.array(telegramId).max(1000),
  }),
);
export type TelegramConfigInput = z.infer<typeof telegramConfigInputSchema>;

/** What the agent stores: the input with the secret token filled in. */
export interface TelegramConfig {
  secretToken: string;
  botTokenSecret: string;
  allowedChatIds?: number[] | undefined;
  approverUserIds: number[];
}

/** `POST /api/agents/:name/gateways/telegram/webhook`: the public base URL Telegram should call. */
export const telegramWebhookInputSchema = lazySchema(() =>
  z.strictObject({
    url: z.url({
      protocol: /^https?$/,
      error: "an http(s) URL: the public base of this server, e.g. https://pantheon.example.workers.dev",
    }),
  }),
);

const user = lazySchema(() =>
  z.looseObject({
    id: telegramId,
    is_bot: z.boolean().optional(),
    username: z.string().max(256).optional(),
    first_name: z.string().max(256).optional(),
  }),
);
const chat = lazySchema(() =>
  z.looseObject({
    id: telegramId,
    type: z.string().max(32).optional(),
    title: z.string().max(512).optional(),
    username: z.string().max(256).optional(),
    first_name: z.string().max(256).optional(),
  }),
);
const message = lazySchema(() =>
  z.looseObject({ message_id: telegramId, chat, from: user.optional(), text: z.string().max(8192).optional() }),
);

/** One update as Telegram posts it to the webhook. */
export const telegramUpdateSchema = lazySchema(() =>
  z.looseObject({
    update_id: telegramId,
    message: message.optional(),
    edited_message: message.optional(),
    callback_query: z
      .looseObject({
        id: z.string().min(1).max(256),
        from: user,
        message: message.optional(),
        data: z.string().max(64).optional(),
      })
      .optional(),
  }),
);
export type TelegramUpdate = z.infer<typeof telegramUpdateSchema>;

/** What an update asks of the agent. */
export type TelegramAction =
  | { kind: "message"; chatId: number; chatTitle: string; fromId: number | undefined; text: string }
  | { kind: "decision"; callbackId: string; fromId: number; chatId: number | undefined; approved: boolean; key: string }
  | { kind: "ignore"; reason: string; callbackId?: string };

/**
 * Reads an update: a text message starts a run, an approval button press decides a call;
 * everything else (edits, stickers, bots, other chats) is acknowledged and ignored.
 * @example
 * telegramAction({ update_id: 1, message: { message_id: 1, chat: { id: 42 }, text: "hi" } }, config);
 * // { kind: "message", chatId: 42, chatTitle: "42", fromId: undefined, text: "hi" }
 */
export function telegramAction(update: TelegramUpdate, config: Pick<TelegramConfig, "allowedChatIds">): TelegramAction {
  const query = update.callback_query;
  if (query) {
    const decision = decodeDecision(query.data ?? "");
    if (!decision) return { kind: "ignore", reason: "a button this gateway did not make", callbackId: query.id };
    return {
      kind: "decision",
      callbackId: query.id,
      fromId: query.from.id,
      chatId: query.message?.chat.id,
      ...decision,
    };
  }
  const m = update.message;
  if (!m)
    return { kind: "ignore", reason: update.edited_message ? "an edited message" : "an update that is not a message" };
  if (m.from?.is_bot) return { kind: "ignore", reason: "a message from a bot" };
  if (config.allowedChatIds && !config.allowedChatIds.includes(m.chat.id))
    return { kind: "ignore", reason: `chat ${m.chat.id} is not allowed` };
  const text = m.text?.trim();
  if (!text) return { kind: "ignore", reason: "a message without text" };
  const chatTitle = m.chat.title ?? (m.chat.username ? `@${m.chat.username}` : m.chat.first_name) ?? String(m.chat.id);
  return { kind: "message", chatId: m.chat.id, chatTitle, fromId: m.from?.id, text };
}

/**
 * The short key of a pending call in a button's `callback_data` (Telegram allows 64 bytes, a run
 * id and a call id do not fit): the first 16 base64url characters of SHA-256(runId + callId).
 */
export async function decisionKey(runId: string, callId: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${runId}\u0000${callId}`)),
  );
  let binary = "";
  for (const byte of digest.slice(0, 12)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_");
}

/** `pa:a:<key>` approves, `pa:r:<key>` rejects. */
export function encodeDecision(approved: boolean, key: string): string {
  return `pa:${approved ? "a" : "r"}:${key}`;
}

export function decodeDecision(data: string): { approved: boolean; key: string } | null {
  const match = /^pa:([ar]):([A-Za-z0-9_-]{16})$/.exec(data);
  return match ? { approved: match[1] === "a", key: match[2]! } : null;
}

/** Telegram's limit on one message's text. */
export const telegramMaxText = 4096;

/**
 * Splits a reply into messages Telegram accepts, at paragraph or line breaks where it can.
 * @example
 * chunkText("a".repeat(5000)).map((c) => c.length); // [4096, 904]
 */
export function chunkText(text: string, max = telegramMaxText): string[] {
  const chunks: string[] = [];
  let rest = text.trim() || "(empty reply)";
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const cut = Math.max(window.lastIndexOf("\n\n"), window.lastIndexOf("\n"));
    const at = cut > max / 2 ? cut : max;
    chunks.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  chunks.push(rest);
  return chunks;
}

/** The message asking a person to decide a paused call, with its two buttons. */
export function approvalPrompt(input: {
  agent: string;
  runId: string;
  tool: string;
  arguments: Record<string, unknown>;
  key: string;
}) {
  let args = JSON.stringify(input.arguments);
  if (args.length > 1500) args = `${args.slice(0, 1500)}…`;
  return {
    text: `${input.agent} wants to call ${input.tool} with ${args}\n(run ${input.runId})\nApprove?`,
    reply_markup: {
      inline_keyboard: [
        [
          { text: "Approve", callback_data: encodeDecision(true, input.key) },
          { text: "Reject", callback_data: encodeDecision(false, input.key) },
        ],
      ],
    },
  };
}

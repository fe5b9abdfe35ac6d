import { PantheonError } from "../../core/errors";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export const officialTelegramApi = "https://api.telegram.org";

export interface TelegramBotOptions {
  /** The bot token (from the worker secret the gateway config names). Never logged, never in an error. */
  token: string;
  /** Bot API base (`TELEGRAM_API_BASE`), default the official one; tests point it at a local double. */
  baseUrl?: string | undefined;
  /** Production refuses a base URL that is not https. */
  production?: boolean;
  fetch?: FetchLike;
}

export interface TelegramBot {
  sendMessage(input: { chat_id: number; text: string; reply_markup?: unknown }): Promise<unknown>;
  answerCallbackQuery(input: { callback_query_id: string; text?: string }): Promise<unknown>;
  setWebhook(input: { url: string; secret_token: string; allowed_updates?: string[] }): Promise<unknown>;
}

/**
 * Checks a Bot API base URL: http(s), no credentials, no query; https in production.
 * @example
 * telegramApiBase(undefined, true); // "https://api.telegram.org"
 */
export function telegramApiBase(raw: string | undefined, production: boolean): string {
  const value = raw?.trim() || officialTelegramApi;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PantheonError("bad_request", "TELEGRAM_API_BASE is not a URL");
  }
  if (url.protocol !== "https:" && (production || url.protocol !== "http:")) {
    throw new PantheonError(
      "bad_request",
      `TELEGRAM_API_BASE must be an https URL${production ? " in production" : ""} (it is ${url.protocol}//…)`,
    );
  }
  if (url.username || url.password || url.search || url.hash)
    throw new PantheonError("bad_request", "TELEGRAM_API_BASE must not carry credentials, a query or a fragment");
  return url.href.replace(/\/+$/, "");
}

/**
 * A small Bot API client (the three methods the gateway uses), with an injected fetch. The base
 * URL is the operator's own configuration, not a model's choice, so it does not pass the tool
 * guard; it is checked here instead. Errors name the method and Telegram's description, never the
 * token (which is part of every request path).
 * @example
 * const bot = makeTelegramBot({ token: env.TELEGRAM_BOT_TOKEN, baseUrl: env.TELEGRAM_API_BASE, production: true });
 * await bot.sendMessage({ chat_id: 42, text: "hello" });
 */
export function makeTelegramBot(options: TelegramBotOptions): TelegramBot {
  const base = telegramApiBase(options.baseUrl, options.production ?? false);
  if (!options.token) throw new PantheonError("bad_request", "the bot token is empty");
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const scrub = (text: string) => text.split(options.token).join("[bot token]");

  async function call(method: string, body: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await doFetch(`${base}/bot${options.token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch (error) {
      throw new PantheonError(
        "bad_gateway",
        `Telegram ${method} did not answer: ${scrub(error instanceof Error ? error.message : String(error))}`,
      );
    }
    const parsed = (await res.json().catch(() => null)) as {
      ok?: boolean;
      result?: unknown;
      description?: string;
    } | null;
    if (!res.ok || !parsed?.ok) {
      throw new PantheonError(
        "bad_gateway",
        `Telegram ${method} failed (${res.status}): ${scrub(String(parsed?.description ?? "no description")).slice(0, 300)}`,
      );
    }
    return parsed.result;
  }

  return {
    sendMessage: (input) => call("sendMessage", input),
    answerCallbackQuery: (input) => call("answerCallbackQuery", input),
    setWebhook: (input) => call("setWebhook", input),
  };
}

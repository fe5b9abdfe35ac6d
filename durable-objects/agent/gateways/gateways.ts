import { and, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { makeTelegramBot, type TelegramBot } from "../../../adapters/telegram-bot";
import { grants, type Scope } from "../../../core/auth";
import { PantheonError } from "../../../core/errors";
import {
  approvalPrompt,
  chunkText,
  decisionKey,
  telegramAction,
  type EmailConfig,
  type EmailRefusal,
  type TelegramConfig,
  type TelegramUpdate,
} from "../../../core/gateways";
import { deploymentOf } from "../../../core/models";
import type { Clock } from "../../../core/ports";
import type { RunEvent } from "../chat/live";
import type { RunOutcome } from "../runs/driver";
import * as schema from "../schema";
import type { SessionStore } from "../chat/sessions";

type Db = DrizzleSqliteDODatabase<typeof schema>;
type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
export type GatewayKind = "telegram" | "email";

export interface GatewayDeps {
  db: Db;
  clock: Clock;
  env: Env;
  sessions: SessionStore;
  agent(): string;
  /** The session and error of a run (null when the run is unknown). */
  runInfo(runId: string): { sessionId: string; error?: string } | null;
  /** A person's message through the normal run path (behaviors, gates, approvals included). */
  turn(input: { content: string; input?: Record<string, unknown>; session: string }): Promise<RunOutcome>;
  decide(runId: string, decision: { approved: boolean; by: string; callId: string }): Promise<unknown>;
  pendingApprovals(): {
    runId: string;
    callId: string;
    tool: string;
    arguments: Record<string, unknown>;
    approverScope: Scope;
  }[];
  waitUntil(promise: Promise<unknown>): void;
  /** The bot token named by the config, from the agent's own project secrets (secrets/), or undefined. */
  botToken(name: string): Promise<string | undefined>;
  fetch?: FetchLike;
}

/** What the admin API shows of the Telegram config: never the secret token or the bot token. */
export function telegramView(config: TelegramConfig, botTokenPresent: boolean, webhookPath: string) {
  return {
    botTokenSecret: config.botTokenSecret,
    botTokenPresent,
    allowedChatIds: config.allowedChatIds ?? null,
    approverUserIds: config.approverUserIds,
    secretTokenSet: true,
    webhookPath,
  };
}

/**
 * The agent's messaging gateways: their stored settings, the mapping of outside conversations
 * (Telegram chats, email threads) to sessions, Telegram updates, and the replies that go back when
 * a run waits for a person or ends. Runs take the normal path: gates and approvals apply as for any
 * message; an approval from Telegram is a decision by `telegram:<user id>`, accepted only from the
 * approvers the operator listed.
 */
export function makeGateways(deps: GatewayDeps) {
  const { db, clock } = deps;

  function settings(kind: GatewayKind) {
    return db.select().from(schema.gatewaySettings).where(eq(schema.gatewaySettings.kind, kind)).get();
  }

  function configOf<T>(kind: GatewayKind): T | null {
    return (settings(kind)?.config as T | undefined) ?? null;
  }

  /**
   * Whether this instance has seen that no Telegram bot is set: every run's end asks, and most agents
   * have none. Only a save can make it wrong, and a save clears it (a wipe only makes it truer).
   */
  let telegramAbsent = false;

  function save(kind: GatewayKind, config: TelegramConfig | EmailConfig): void {
    telegramAbsent = false;
    const now = clock.now();
    db.insert(schema.gatewaySettings)
      .values({ kind, config, updatedAt: now })
      .onConflictDoUpdate({ target: schema.gatewaySettings.kind, set: { config, updatedAt: now } })
      .run();
  }

  function remove(kind: GatewayKind): boolean {
    const row = db.delete(schema.gatewaySettings).where(eq(schema.gatewaySettings.kind, kind)).returning().get();
    db.delete(schema.gatewayThreads).where(eq(schema.gatewayThreads.kind, kind)).run();
    return Boolean(row);
  }

  /** The session of an outside conversation, made on first contact (and again if it was deleted). */
  function threadSession(kind: GatewayKind, externalId: string, title: string): string {
    const row = db
      .select()
      .from(schema.gatewayThreads)
      .where(and(eq(schema.gatewayThreads.kind, kind), eq(schema.gatewayThreads.externalId, externalId)))
      .get();
    if (row && sessionExists(row.sessionId)) return row.sessionId;
    const session = deps.sessions.create(title).id;
    mapThread(kind, externalId, session);
    return session;
  }

  function mapThread(kind: GatewayKind, externalId: string, sessionId: string): void {
    db.insert(schema.gatewayThreads)
      .values({ kind, externalId, sessionId, createdAt: clock.now() })
      .onConflictDoUpdate({
        target: [schema.gatewayThreads.kind, schema.gatewayThreads.externalId],
        set: { sessionId },
      })
      .run();
  }

  function knownThread(kind: GatewayKind, externalIds: string[]): string | null {
    for (const id of externalIds) {
      const row = db
        .select({ sessionId: schema.gatewayThreads.sessionId })
        .from(schema.gatewayThreads)
        .where(and(eq(schema.gatewayThreads.kind, kind), eq(schema.gatewayThreads.externalId, id)))
        .get();
      if (row && sessionExists(row.sessionId)) return row.sessionId;
    }
    return null;
  }

  function sessionExists(id: string): boolean {
    try {
      deps.sessions.get(id);
      return true;
    } catch {
      return false;
    }
  }

  /** The bot of the configured token, or null (logged, without any value) when the project has no such secret. */
  async function botOf(config: TelegramConfig): Promise<TelegramBot | null> {
    const token = await deps.botToken(config.botTokenSecret);
    if (!token) {
      console.error(
        JSON.stringify({
          level: "error",
          event: "telegram_token_missing",
          agent: deps.agent(),
          secret: config.botTokenSecret,
        }),
      );
      return null;
    }
    try {
      return makeTelegramBot({
        token,
        baseUrl: deps.env.TELEGRAM_API_BASE,
        production: deploymentOf(deps.env.PANTHEON_ENV) === "production",
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
    } catch (error) {
      // TELEGRAM_API_BASE refused (not https in production): the doctor reports it too.
      console.error(
        JSON.stringify({
          level: "error",
          event: "telegram_api_base_refused",
          agent: deps.agent(),
          message: error instanceof Error ? error.message : String(error),
        }),
      );
      return null;
    }
  }

  /** Sends without failing the caller: a Bot API error is logged (it never holds the token). */
  async function send(bot: TelegramBot, chatId: number, text: string, replyMarkup?: unknown): Promise<void> {
    for (const chunk of chunkText(text)) {
      try {
        await bot.sendMessage({ chat_id: chatId, text: chunk, ...(replyMarkup ? { reply_markup: replyMarkup } : {}) });
      } catch (error) {
        console.error(
          JSON.stringify({
            level: "error",
            event: "telegram_send_failed",
            agent: deps.agent(),
            message: error instanceof Error ? error.message : String(error),
          }),
        );
        return;
      }
    }
  }

  async function answer(bot: TelegramBot | null, callbackId: string, text: string): Promise<void> {
    await bot?.answerCallbackQuery({ callback_query_id: callbackId, text }).catch((error: unknown) => {
      console.error(
        JSON.stringify({
          level: "error",
          event: "telegram_answer_failed",
          agent: deps.agent(),
          message: error instanceof Error ? error.message : String(error),
        }),
      );
    });
  }

  /** Sends the approval prompts of a run waiting for a person, or its outcome, to the chat it belongs to. */
  async function tellTelegram(event: RunEvent, runId: string): Promise<void> {
    // The cheapest question first: every run's end comes here, and most agents have no Telegram bot
    // (reading the run, its state and its thread cost 2% of the CPU of agents asking each other).
    if (telegramAbsent) return;
    const config = configOf<TelegramConfig>("telegram");
    if (!config) {
      telegramAbsent = true;
      return;
    }
    const info = deps.runInfo(runId);
    if (!info) return;
    const thread = db
      .select({ externalId: schema.gatewayThreads.externalId })
      .from(schema.gatewayThreads)
      .where(and(eq(schema.gatewayThreads.kind, "telegram"), eq(schema.gatewayThreads.sessionId, info.sessionId)))
      .get();
    const bot = thread ? await botOf(config) : null;
    if (!thread || !bot) return;
    const chatId = Number(thread.externalId);
    if (event.type === "status" && event.status === "waiting_approval") {
      for (const call of deps.pendingApprovals().filter((p) => p.runId === runId)) {
        const prompt = approvalPrompt({
          agent: deps.agent(),
          runId,
          tool: call.tool,
          arguments: call.arguments,
          key: await decisionKey(runId, call.callId),
        });
        await send(bot, chatId, prompt.text, prompt.reply_markup);
      }
    }
    if (event.type === "done") {
      if (event.status === "completed")
        await send(bot, chatId, (event.reply as { content?: string } | null)?.content ?? "(no reply)");
      else if (event.status === "failed")
        await send(bot, chatId, `The run failed: ${info.error ?? "no reason recorded"}`);
      else await send(bot, chatId, `The run was ${event.status}.`);
    }
  }

  /** Keeps the last mail the email gateway refused with its settings (GET …/gateways/email shows it; a PUT starts afresh). */
  function noteEmailRefusal(refusal: EmailRefusal): void {
    const row = settings("email");
    if (!row) return;
    const config = { ...(row.config as EmailConfig), lastRefusal: refusal };
    db.update(schema.gatewaySettings).set({ config }).where(eq(schema.gatewaySettings.kind, "email")).run();
  }

  return {
    configOf,
    save,

    /**
     * `setWebhook` for this agent's bot, with the token opened here from the project's secrets: the
     * worker never holds it. A project without the named secret is told so (400), and nothing is sent.
     */
    async setTelegramWebhook(url: string): Promise<{ ok: true }> {
      const config = configOf<TelegramConfig>("telegram");
      if (!config) throw new PantheonError("not_found", `agent '${deps.agent()}' has no Telegram gateway`);
      const token = await deps.botToken(config.botTokenSecret);
      if (!token) {
        throw new PantheonError(
          "validation_failed",
          `the bot token secret ${config.botTokenSecret} is not a secret of this project: set it with \`pantheon secrets set ${config.botTokenSecret}\``,
          {
            details: {
              issues: [{ path: ["botTokenSecret"], message: `set the project secret ${config.botTokenSecret}` }],
            },
          },
        );
      }
      const bot = makeTelegramBot({
        token,
        baseUrl: deps.env.TELEGRAM_API_BASE,
        production: deploymentOf(deps.env.PANTHEON_ENV) === "production",
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
      await bot.setWebhook({ url, secret_token: config.secretToken, allowed_updates: ["message", "callback_query"] });
      return { ok: true };
    },
    remove,
    noteEmailRefusal,
    threadSession,
    knownThread,
    mapThread,

    /**
     * One verified Telegram update (the worker checked the secret token). Answers at once; the run
     * goes on in the background and its replies go out from `onRunEvent`.
     */
    async telegramUpdate(update: TelegramUpdate): Promise<{ handled: string }> {
      const row = settings("telegram");
      if (!row) throw new PantheonError("not_found", `agent '${deps.agent()}' has no Telegram gateway`);
      const config = row.config as TelegramConfig;
      if (row.lastUpdateId !== null && update.update_id <= row.lastUpdateId)
        return { handled: "duplicate update: ignored" };
      db.update(schema.gatewaySettings)
        .set({ lastUpdateId: update.update_id })
        .where(eq(schema.gatewaySettings.kind, "telegram"))
        .run();

      const action = telegramAction(update, config);
      if (action.kind === "ignore") {
        if (action.callbackId) await answer(await botOf(config), action.callbackId, "This button is not one of mine.");
        return { handled: `ignored: ${action.reason}` };
      }
      if (action.kind === "message") {
        const session = threadSession("telegram", String(action.chatId), `Telegram: ${action.chatTitle}`.slice(0, 200));
        deps.waitUntil(
          // Behaviors read where the message came from as structured input: (get input "chat"), (get input "from").
          deps
            .turn({
              content: action.text,
              input: {
                channel: "telegram",
                chat: action.chatId,
                chatTitle: action.chatTitle,
                from: action.fromId ?? null,
              },
              session,
            })
            .catch(async (error: unknown) => {
              const bot = await botOf(config);
              if (bot)
                await send(
                  bot,
                  action.chatId,
                  `The message could not be handled: ${error instanceof Error ? error.message : String(error)}`,
                );
            }),
        );
        return { handled: "message: run started" };
      }
      const bot = await botOf(config);
      if (!config.approverUserIds.includes(action.fromId)) {
        await answer(bot, action.callbackId, "You are not allowed to approve for this agent.");
        return { handled: `refused: user ${action.fromId} is not an approver` };
      }
      let found: { runId: string; callId: string; tool: string; approverScope: Scope } | undefined;
      for (const pending of deps.pendingApprovals()) {
        if ((await decisionKey(pending.runId, pending.callId)) === action.key) found = pending;
      }
      if (!found) {
        await answer(bot, action.callbackId, "This call is no longer waiting for a decision.");
        return { handled: "ignored: nothing pending for that button" };
      }
      // A Telegram approver decides as an approve token: a call that needs an admin is approved in Pantheon.
      if (action.approved && !grants("approve", found.approverScope)) {
        await answer(
          bot,
          action.callbackId,
          `'${found.tool}' needs the approval of a holder of the '${found.approverScope}' scope: approve it in Pantheon.`,
        );
        return {
          handled: `refused: '${found.tool}' needs the approval of a holder of the '${found.approverScope}' scope; a Telegram approver decides as 'approve'`,
        };
      }
      await answer(bot, action.callbackId, action.approved ? "Approved." : "Rejected.");
      const { runId, callId } = found;
      deps.waitUntil(
        Promise.resolve(
          deps.decide(runId, { approved: action.approved, by: `telegram:${action.fromId}`, callId }),
        ).catch((error: unknown) => {
          console.error(
            JSON.stringify({
              level: "error",
              event: "telegram_decision_failed",
              agent: deps.agent(),
              runId,
              message: error instanceof Error ? error.message : String(error),
            }),
          );
        }),
      );
      return { handled: `decision: ${action.approved ? "approved" : "rejected"} by telegram:${action.fromId}` };
    },

    /** Every run event: a run of a Telegram chat that waits for a person or ends tells that chat. */
    onRunEvent(event: RunEvent, runId: string): void {
      if (event.type === "done" || (event.type === "status" && event.status === "waiting_approval"))
        deps.waitUntil(tellTelegram(event, runId));
    },
  };
}

export type Gateways = ReturnType<typeof makeGateways>;

import { describe, expect, it } from "vitest";
import { makeTelegramBot, telegramApiBase } from "../../adapters/telegram-bot";
import { approvalPrompt, chunkText, decisionKey, decodeDecision, telegramAction } from "../../core/gateways";

const token = "42:secret-bot-token-value";

describe("the Bot API client", () => {
  it("calls <base>/bot<token>/<method> with JSON through the injected fetch", async () => {
    const seen: { url: string; body: string }[] = [];
    const bot = makeTelegramBot({
      token,
      baseUrl: "https://tg.example/",
      fetch: async (input, init) => (
        seen.push({ url: String(input), body: String(init?.body) }),
        Response.json({ ok: true, result: { message_id: 1 } })
      ),
    });
    expect(await bot.sendMessage({ chat_id: 7, text: "hi" })).toEqual({ message_id: 1 });
    expect(seen).toEqual([
      { url: `https://tg.example/bot${token}/sendMessage`, body: JSON.stringify({ chat_id: 7, text: "hi" }) },
    ]);
  });

  it("errors name the method and Telegram's description, never the token", async () => {
    const echo = makeTelegramBot({
      token,
      fetch: async () =>
        Response.json({ ok: false, description: `Unauthorized: bot${token} is not valid` }, { status: 401 }),
    });
    const error = await echo.setWebhook({ url: "https://x", secret_token: "s".repeat(20) }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: "bad_gateway", status: 502 });
    expect((error as Error).message).toBe(
      "Telegram setWebhook failed (401): Unauthorized: bot[bot token] is not valid",
    );
    const down = makeTelegramBot({
      token,
      fetch: async () => {
        throw new Error(`connect failed to /bot${token}/x`);
      },
    });
    expect(((await down.sendMessage({ chat_id: 1, text: "x" }).catch((e: Error) => e)) as Error).message).not.toContain(
      token,
    );
  });

  it("the base URL must be https in production; locally http is allowed; never credentials or a query", () => {
    expect(telegramApiBase(undefined, true)).toBe("https://api.telegram.org");
    expect(() => telegramApiBase("http://127.0.0.1:9", true)).toThrow(
      "TELEGRAM_API_BASE must be an https URL in production",
    );
    expect(telegramApiBase("http://127.0.0.1:9/", false)).toBe("http://127.0.0.1:9");
    expect(() => telegramApiBase("https://u:p@tg.example", false)).toThrow("must not carry credentials");
    expect(() => telegramApiBase("file:///etc/passwd", false)).toThrow();
    expect(() => telegramApiBase("not a url", false)).toThrow("not a URL");
  });
});

describe("Telegram rules (core/gateways)", () => {
  it("button data carries a 16-character key of the run and call, within Telegram's 64 bytes", async () => {
    const key = await decisionKey("run-1", "call-1");
    expect(key).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(key).not.toBe(await decisionKey("run-1", "call-2"));
    const prompt = approvalPrompt({
      agent: "scout",
      runId: "run-1",
      tool: "mail.send",
      arguments: { to: "boss" },
      key,
    });
    const [approve, reject] = prompt.reply_markup.inline_keyboard[0]!;
    expect(decodeDecision(approve!.callback_data)).toEqual({ approved: true, key });
    expect(decodeDecision(reject!.callback_data)).toEqual({ approved: false, key });
    expect(new TextEncoder().encode(approve!.callback_data).length).toBeLessThanOrEqual(64);
    expect(decodeDecision("pa:x:AAAAAAAAAAAAAAAA")).toBeNull();
  });

  it("long replies are split at line breaks within 4,096 characters", () => {
    const text = `${"a".repeat(3000)}\n${"b".repeat(3000)}`;
    expect(chunkText(text)).toEqual(["a".repeat(3000), "b".repeat(3000)]);
    expect(chunkText("x".repeat(5000)).map((c) => c.length)).toEqual([4096, 904]);
  });

  it("a message from a listed chat is a message; everything else is ignored with a reason", () => {
    const update = { update_id: 1, message: { message_id: 1, chat: { id: 5, title: "Ops" }, text: " hi " } };
    expect(telegramAction(update, { allowedChatIds: [5] })).toEqual({
      kind: "message",
      chatId: 5,
      chatTitle: "Ops",
      fromId: undefined,
      text: "hi",
    });
    expect(telegramAction(update, { allowedChatIds: [6] })).toEqual({
      kind: "ignore",
      reason: "chat 5 is not allowed",
    });
    expect(telegramAction({ update_id: 2, message: { message_id: 1, chat: { id: 5 } } }, {})).toEqual({
      kind: "ignore",
      reason: "a message without text",
    });
    expect(telegramAction({ update_id: 3 }, {})).toEqual({ kind: "ignore", reason: "an update that is not a message" });
  });
});

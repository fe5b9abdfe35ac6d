import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "../api/client";
import { eventually, httpTool, scriptedAgent, toolCalls } from "../runs/scripted";
import { testBotToken } from "../doubles/telegram-server";

const double = () => (env as unknown as { TELEGRAM_API_BASE: string }).TELEGRAM_API_BASE;
const approver = 777_001;
let chatCounter = 0;
/** A chat id of its own per test (the double is shared by every test). */
const newChat = () => 5_000_000 + Math.floor(Math.random() * 1_000_000) * 10 + (chatCounter += 1);

async function calls(query: string): Promise<{ token: string; method: string; body: any }[]> {
  return (await fetch(`${double()}/__calls?${query}`)).json();
}

/** Configures the agent's Telegram gateway, registers the webhook through the server, and returns the secret Telegram was given. */
async function withTelegram(agent: string, extra: Record<string, unknown> = {}) {
  const put = await api(`/api/agents/${agent}/gateways/telegram`, {
    method: "PUT",
    json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [approver], ...extra },
  });
  expect(put.status).toBe(200);
  const hooked = await api(`/api/agents/${agent}/gateways/telegram/webhook`, {
    method: "POST",
    json: { url: "https://bot.example.com/" },
  });
  expect(hooked.status).toBe(200);
  const registered = (await calls(`method=setWebhook&secret=/${agent}`)).at(-1)!;
  return {
    view: (await put.json()) as any,
    hook: (await hooked.json()) as any,
    registered,
    secret: registered.body.secret_token as string,
  };
}

function post(agent: string, secret: string | null, body: unknown, init: { project?: string; type?: string } = {}) {
  const headers: Record<string, string> = { "content-type": init.type ?? "application/json" };
  if (secret !== null) headers["x-telegram-bot-api-secret-token"] = secret;
  return SELF.fetch(`https://pantheon.test/gateways/telegram/${init.project ?? "default"}/${agent}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

let updateId = 1;
const message = (chat: number, text: string, from = 42) => ({
  update_id: updateId++,
  message: {
    message_id: updateId,
    date: 1,
    chat: { id: chat, type: "private", first_name: "Ann" },
    from: { id: from, is_bot: false, first_name: "Ann" },
    text,
  },
});
const button = (chat: number, from: number, data: string) => ({
  update_id: updateId++,
  callback_query: {
    id: `cb-${updateId}`,
    from: { id: from, is_bot: false, first_name: "X" },
    message: { message_id: 1, date: 1, chat: { id: chat, type: "private" } },
    data,
  },
});

describe("Telegram gateway: configuration", () => {
  it("PUT stores the gateway and shows it without any secret; set-webhook registers the webhook with Telegram through the server", async () => {
    const agent = await createAgent();
    const { view, hook, registered, secret } = await withTelegram(agent.name, { allowedChatIds: [1] });
    expect(view).toEqual({
      botTokenSecret: "TELEGRAM_BOT_TOKEN",
      botTokenPresent: true,
      allowedChatIds: [1],
      approverUserIds: [approver],
      secretTokenSet: true,
      webhookPath: `/gateways/telegram/default/${agent.name}`,
    });
    expect(hook).toEqual({ ok: true, webhookUrl: `https://bot.example.com/gateways/telegram/default/${agent.name}` });
    expect(registered).toMatchObject({
      token: testBotToken,
      body: { url: hook.webhookUrl, allowed_updates: ["message", "callback_query"] },
    });
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const read = await api(`/api/agents/${agent.name}/gateways/telegram`);
    const text = await read.text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(testBotToken);
  });

  it("refuses bad configuration with the field's path, and needs the admin scope", async () => {
    const agent = await createAgent();
    const wrongSecret = await api(`/api/agents/${agent.name}/gateways/telegram`, {
      method: "PUT",
      json: { botTokenSecret: "OPENAI_API_KEY", approverUserIds: [] },
    });
    expect(wrongSecret.status).toBe(400);
    expect(((await wrongSecret.json()) as any).error.details.issues[0].path).toEqual(["botTokenSecret"]);
    const badIds = await api(`/api/agents/${agent.name}/gateways/telegram`, {
      method: "PUT",
      json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: ["me"] },
    });
    expect(((await badIds.json()) as any).error.details.issues[0].path).toEqual(["approverUserIds", 0]);
    const shortToken = await api(`/api/agents/${agent.name}/gateways/telegram`, {
      method: "PUT",
      json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [], secretToken: "short" },
    });
    expect(((await shortToken.json()) as any).error.details.issues[0].path).toEqual(["secretToken"]);
    expect((await api(`/api/agents/${agent.name}/gateways/telegram`)).status).toBe(404);
    expect(
      (
        await api(`/api/agents/${agent.name}/gateways/telegram/webhook`, {
          method: "POST",
          json: { url: "https://x.example" },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api(`/api/agents/${uniqueName("ghost")}/gateways/telegram`, {
          method: "PUT",
          json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [] },
        })
      ).status,
    ).toBe(404);

    const token = (
      (await (
        await api("/api/tokens", { method: "POST", json: { name: uniqueName("phone"), scope: "approve" } })
      ).json()) as any
    ).token;
    const forbidden = await api(`/api/agents/${agent.name}/gateways/telegram`, {
      method: "PUT",
      token,
      json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [] },
    });
    expect(forbidden.status).toBe(403);
  });
});

describe("Telegram gateway: messages and approvals, end to end against the Bot API double", () => {
  it("a message becomes a run in the chat's own session, and the reply goes back with sendMessage", async () => {
    const agent = await createAgent();
    const { secret } = await withTelegram(agent.name);
    const chat = newChat();

    const res = await post(agent.name, secret, message(chat, "hello from telegram"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, handled: "message: run started" });
    const sent = await eventually(
      () => calls(`chat=${chat}`),
      (c) => c.length >= 1,
      "the reply",
    );
    expect(sent[0]).toMatchObject({
      token: testBotToken,
      method: "sendMessage",
      body: { chat_id: chat, text: expect.any(String) },
    });

    await post(agent.name, secret, message(chat, "and again"));
    await eventually(
      () => calls(`chat=${chat}`),
      (c) => c.length >= 2,
      "the second reply",
    );
    const sessions = ((await (await api(`/api/agents/${agent.name}/sessions`)).json()) as any).sessions.filter(
      (s: any) => s.title.startsWith("Telegram"),
    );
    expect(sessions).toHaveLength(1);
    expect(sessions[0].title).toBe("Telegram: Ann");
    const history = ((await (await api(`/api/agents/${agent.name}/messages?session=${sessions[0].id}`)).json()) as any)
      .messages;
    expect(
      history
        .filter((m: any) => m.role === "user")
        .map((m: any) => m.content)
        .sort(),
    ).toEqual(["and again", "hello from telegram"]);
  });

  it("a run waiting for approval sends buttons; a non-approver's press is refused; an approver's decides and the reply follows", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("mail.send", key, { requiresApproval: true })] });
    await agent.script([
      { toolCalls: [{ name: "mail.send", arguments: { text: "hello boss" } }] },
      { content: "Sent it." },
    ]);
    const { secret } = await withTelegram(agent.name);
    const chat = newChat();

    await post(agent.name, secret, message(chat, "email the boss"));
    const prompt = (
      await eventually(
        () => calls(`chat=${chat}`),
        (c) => c.length >= 1,
        "the approval prompt",
      )
    )[0]!;
    expect(prompt.body.text).toContain("mail.send");
    const [approve, reject] = prompt.body.reply_markup.inline_keyboard[0];
    expect(approve.text).toBe("Approve");
    expect(reject.text).toBe("Reject");
    expect(await toolCalls(key)).toHaveLength(0);

    const stranger = await post(agent.name, secret, button(chat, 999, approve.callback_data));
    expect(await stranger.json()).toEqual({ ok: true, handled: "refused: user 999 is not an approver" });
    const answers = await calls("method=answerCallbackQuery");
    expect(answers.find((a) => a.body.text === "You are not allowed to approve for this agent.")).toBeTruthy();
    const runs = ((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs;
    expect(runs[0].status).toBe("waiting_approval");
    expect(await toolCalls(key)).toHaveLength(0);

    const ok = await post(agent.name, secret, button(chat, approver, approve.callback_data));
    expect(await ok.json()).toEqual({ ok: true, handled: `decision: approved by telegram:${approver}` });
    const replies = await eventually(
      () => calls(`chat=${chat}`),
      (c) => c.length >= 2,
      "the reply after approval",
    );
    expect(replies[1]!.body.text).toBe("Sent it.");
    expect(await toolCalls(key)).toHaveLength(1);
    const run = await agent.run(runs[0].id);
    expect(run.run.status).toBe("completed");
    expect(run.trace.find((s: any) => s.name === "approval").data).toMatchObject({
      approved: true,
      by: `telegram:${approver}`,
    });

    // The same button again decides nothing.
    const again = await post(agent.name, secret, button(chat, approver, approve.callback_data));
    expect(await again.json()).toEqual({ ok: true, handled: "ignored: nothing pending for that button" });
  });

  it("a chat outside allowedChatIds, a bot, an edit and a repeated update start nothing", async () => {
    const agent = await createAgent();
    const allowed = newChat();
    const other = newChat();
    const { secret } = await withTelegram(agent.name, { allowedChatIds: [allowed] });
    expect(await (await post(agent.name, secret, message(other, "let me in"))).json()).toEqual({
      ok: true,
      handled: `ignored: chat ${other} is not allowed`,
    });
    const bot = message(allowed, "beep");
    bot.message.from.is_bot = true;
    expect(await (await post(agent.name, secret, bot)).json()).toEqual({
      ok: true,
      handled: "ignored: a message from a bot",
    });
    expect(
      await (
        await post(agent.name, secret, { update_id: updateId++, edited_message: message(allowed, "x").message })
      ).json(),
    ).toEqual({ ok: true, handled: "ignored: an edited message" });
    const first = message(allowed, "once");
    await post(agent.name, secret, first);
    expect(await (await post(agent.name, secret, first)).json()).toEqual({
      ok: true,
      handled: "duplicate update: ignored",
    });
    await eventually(
      () => calls(`chat=${allowed}`),
      (c) => c.length >= 1,
      "the one reply",
    );
    expect(await calls(`chat=${other}`)).toEqual([]);
    const runs = ((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs;
    expect(runs).toHaveLength(1);
  });
});

describe("Telegram gateway: structured input", () => {
  it("a behavior reads where the message came from as its input: the chat, its title and the sender", async () => {
    const agent = await createAgent();
    const script = `(actor "${agent.name}" (role "greeter") (talent "t" (behavior "hi" :active (goal (input) (get input "text"))
      (plan (input ctx) (message "assistant" :content (concat "Hi " (get input "from") " in " (get input "chat") " via " (get input "channel")))))))`;
    const put = await api(`/api/agents/${agent.name}/script`, {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: script,
    });
    expect(put.status).toBe(200);
    const { secret } = await withTelegram(agent.name);
    const chat = newChat();
    await post(agent.name, secret, message(chat, "hello", 4242));
    const sent = await eventually(
      () => calls(`chat=${chat}`),
      (c) => c.length >= 1,
      "the reply",
    );
    expect(sent[0]!.body.text).toBe(`Hi 4242 in ${chat} via telegram`);
  });
});

describe("Telegram gateway: the public webhook refuses an attacker", () => {
  it("a forged, missing or another agent's secret, an unknown agent or one without a gateway: the same 401, before the body is read", async () => {
    const agent = await createAgent();
    const other = await createAgent();
    const bare = await createAgent();
    const { secret } = await withTelegram(agent.name);
    const { secret: otherSecret } = await withTelegram(other.name);
    const body = message(newChat(), "hi");
    const refusals = [
      await post(agent.name, "forged-secret-forged-secret", body),
      await post(agent.name, null, body),
      await post(agent.name, otherSecret, body),
      await post(agent.name, `${secret}x`, body),
      await post(uniqueName("ghost"), secret, body),
      await post(bare.name, secret, body),
      await post(agent.name, secret, body, { project: "elsewhere" }),
      await post(agent.name, "forged-secret-forged-secret", "{not json"),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error).toMatchObject({
        code: "unauthorized",
        message: "the X-Telegram-Bot-Api-Secret-Token header is missing or wrong",
      });
    }
    expect(((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs).toEqual([]);
  });

  it("a verified but malformed update is a 400 naming the field; a huge one is a 413; not JSON is a 415", async () => {
    const agent = await createAgent();
    const { secret } = await withTelegram(agent.name);
    const broken = await post(agent.name, secret, "{not json");
    expect(broken.status).toBe(400);
    const noId = await post(agent.name, secret, { message: { message_id: 1, chat: { id: 1 }, text: "x" } });
    expect(noId.status).toBe(400);
    expect(((await noId.json()) as any).error.details.issues[0].path).toEqual(["update_id"]);
    const badChat = await post(agent.name, secret, {
      update_id: 1,
      message: { message_id: 1, chat: { id: "me" }, text: "x" },
    });
    expect(((await badChat.json()) as any).error.details.issues[0].path).toEqual(["message", "chat", "id"]);
    const longData = await post(agent.name, secret, button(1, approver, "x".repeat(65)));
    expect(((await longData.json()) as any).error.details.issues[0].path).toEqual(["callback_query", "data"]);
    const huge = await post(agent.name, secret, {
      update_id: 1,
      message: { message_id: 1, chat: { id: 1 }, text: "x".repeat(70 * 1024) },
    });
    expect(huge.status).toBe(413);
    expect((await post(agent.name, secret, "update_id=1", { type: "application/x-www-form-urlencoded" })).status).toBe(
      415,
    );
    const badPath = await post("Not A Slug", secret, message(1, "x"));
    expect(badPath.status).toBe(400);
    expect(((await badPath.json()) as any).error.details.issues[0].path).toEqual(["agent"]);
  });

  it("a button this gateway did not make decides nothing", async () => {
    const agent = await createAgent();
    const { secret } = await withTelegram(agent.name);
    const res = await post(agent.name, secret, button(newChat(), approver, "pa:a:AAAAAAAAAAAAAAAA"));
    expect(await res.json()).toEqual({ ok: true, handled: "ignored: nothing pending for that button" });
    const junk = await post(agent.name, secret, button(newChat(), approver, "rm -rf /"));
    expect(await junk.json()).toEqual({ ok: true, handled: "ignored: a button this gateway did not make" });
  });

  it("deleting the agent or the gateway closes the webhook", async () => {
    const agent = await createAgent();
    const { secret } = await withTelegram(agent.name);
    expect((await api(`/api/agents/${agent.name}/gateways/telegram`, { method: "DELETE" })).status).toBe(204);
    expect((await post(agent.name, secret, message(1, "x"))).status).toBe(401);
    const again = await createAgent();
    const second = await withTelegram(again.name);
    expect((await api(`/api/agents/${again.name}`, { method: "DELETE" })).status).toBe(204);
    expect((await post(again.name, second.secret, message(1, "x"))).status).toBe(401);
  });
});

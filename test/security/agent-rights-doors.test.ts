// Every door that starts a run passes its caller's principal: through /v1, the project's /mcp,
// AG-UI and A2A, a chat token's message that asks for memory.forget leaves the memory and waits
// for an admin; the admin token's own message forgets (positive control). Driven by each door's
// reference client through the real worker (SELF).
import { SendMessageRequest } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { HttpAgent } from "@ag-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { env, SELF } from "cloudflare:test";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, api, createAgent } from "../api/client";

let chatToken = "";
beforeAll(async () => {
  const res = await api("/api/tokens", { method: "POST", json: { name: "doors chat", scope: "chat" } });
  chatToken = ((await res.json()) as { token: string }).token;
});

const into: typeof fetch = (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init);

/** Sends `content` through one door with `token`. */
type Door = (agent: string, content: string, token: string) => Promise<void>;

const doors: Record<string, Door> = {
  "/v1 chat completions (openai SDK)": async (agent, content, token) => {
    const openai = new OpenAI({
      apiKey: token,
      baseURL: "https://pantheon.test/v1",
      fetch: into as never,
      maxRetries: 0,
    });
    await openai.chat.completions.create({ model: agent, messages: [{ role: "user", content }] });
  },
  "/mcp ask_agent (MCP client)": async (agent, content, token) => {
    const transport = new StreamableHTTPClientTransport(new URL("https://pantheon.test/mcp"), {
      fetch: into,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client(
      { name: "doors", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(transport);
    await client.callTool({ name: "ask_agent", arguments: { agent, message: content } });
    await client.close();
  },
  "AG-UI (HttpAgent)": async (agent, content, token) => {
    const client = new HttpAgent({
      url: `https://pantheon.test/agui/agents/${agent}`,
      headers: { authorization: `Bearer ${token}` },
      fetch: (url, init) => SELF.fetch(url, init),
    });
    client.addMessage({ id: crypto.randomUUID(), role: "user", content });
    await client.runAgent().catch(() => undefined);
  },
  "A2A message/send (A2A client)": async (agent, content, token) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const request = new Request(input instanceof Request ? input : String(input), init);
      request.headers.set("authorization", `Bearer ${token}`);
      return SELF.fetch(request);
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    const client = await factory.createFromUrl(
      `https://pantheon.test/a2a/agents/${agent}/.well-known/agent-card.json`,
      "",
    );
    await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: content }] },
      }),
    );
  },
};

async function lastRun(agent: string) {
  return ((await (await api(`/api/agents/${agent}/runs`)).json()) as { runs: any[] }).runs[0];
}

describe("every door passes its caller's rights to the run", () => {
  for (const [door, send] of Object.entries(doors)) {
    it(`${door}: a chat token's memory.forget waits and the memory stays; the admin token's forgets`, async () => {
      const { name } = await createAgent();
      const { id } = (await (
        await api(`/api/agents/${name}/memories`, { method: "POST", json: { text: "The ladder is in the barn." } })
      ).json()) as { id: string };
      const message = `/tool memory.forget {"id":"${id}"}`;

      await send(name, message, chatToken);
      expect(await lastRun(name)).toMatchObject({
        status: "waiting_approval",
        principal: { scope: "chat", name: expect.stringContaining("token:doors chat") },
      });
      expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(200);

      await send(name, message, adminToken);
      expect(await lastRun(name)).toMatchObject({ status: "completed", principal: { scope: "admin" } });
      expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(404);
    });
  }
});

describe("a Telegram gateway's runs act for an outsider (chat), and its approvers decide as 'approve'", () => {
  const double = () => (env as unknown as { TELEGRAM_API_BASE: string }).TELEGRAM_API_BASE;
  const approver = 777_002;
  const chatId = 7_000_000 + Math.floor(Math.random() * 1_000_000);
  let updateId = 1;
  const calls = async (query: string): Promise<any[]> => (await fetch(`${double()}/__calls?${query}`)).json();
  const post = (agent: string, secret: string, body: unknown) =>
    SELF.fetch(`https://pantheon.test/gateways/telegram/default/${agent}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
      body: JSON.stringify(body),
    });
  const message = (text: string) => ({
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: 1,
      chat: { id: chatId, type: "private", first_name: "Eve" },
      from: { id: 42, is_bot: false, first_name: "Eve" },
      text,
    },
  });
  const button = (data: string) => ({
    update_id: updateId++,
    callback_query: {
      id: `cb-${updateId}`,
      from: { id: approver, is_bot: false, first_name: "A" },
      message: { message_id: 1, date: 1, chat: { id: chatId, type: "private" } },
      data,
    },
  });

  it("a stranger's memory.forget waits; the Telegram approver's button cannot lend it admin; an admin approval in Pantheon forgets", async () => {
    const { name } = await createAgent();
    const { id } = (await (
      await api(`/api/agents/${name}/memories`, { method: "POST", json: { text: "The safe is behind the painting." } })
    ).json()) as { id: string };
    expect(
      (
        await api(`/api/agents/${name}/gateways/telegram`, {
          method: "PUT",
          json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [approver] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api(`/api/agents/${name}/gateways/telegram/webhook`, {
          method: "POST",
          json: { url: "https://bot.example.com/" },
        })
      ).status,
    ).toBe(200);
    const secret = (await calls(`method=setWebhook&secret=/${name}`)).at(-1)!.body.secret_token as string;

    expect((await post(name, secret, message(`/tool memory.forget {"id":"${id}"}`))).status).toBe(200);
    const prompt = (
      await eventually(
        () => calls(`chat=${chatId}`),
        (c) => c.length >= 1,
      )
    )[0]!;
    const run = await lastRun(name);
    expect(run).toMatchObject({ status: "waiting_approval", principal: { id: "gateway:telegram", scope: "chat" } });

    const pressed = await post(name, secret, button(prompt.body.reply_markup.inline_keyboard[0][0].callback_data));
    expect(await pressed.json()).toEqual({
      ok: true,
      handled:
        "refused: 'memory.forget' needs the approval of a holder of the 'admin' scope; a Telegram approver decides as 'approve'",
    });
    expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(200);
    expect((await lastRun(name)).status).toBe("waiting_approval");

    const approved = await api(`/api/agents/${name}/runs/${run.id}/approval`, {
      method: "POST",
      json: { decision: "approve" },
    });
    expect(((await approved.json()) as any).status).toBe("completed");
    expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(404);
  });
});

async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("gave up waiting");
}

describe("answering an AG-UI interrupt lends the call the answerer's rights", () => {
  it("an approve token's resume of a chat run's memory.forget is a 403 before any stream; an admin's resume forgets", async () => {
    const { name } = await createAgent();
    const { id } = (await (
      await api(`/api/agents/${name}/memories`, { method: "POST", json: { text: "The rowing boat leaks." } })
    ).json()) as { id: string };
    const approveToken = (
      (await (
        await api("/api/tokens", { method: "POST", json: { name: "doors approve", scope: "approve" } })
      ).json()) as { token: string }
    ).token;
    const client = new HttpAgent({
      url: `https://pantheon.test/agui/agents/${name}`,
      headers: { authorization: `Bearer ${chatToken}` },
      fetch: (url, init) => SELF.fetch(url, init),
    });
    client.addMessage({ id: crypto.randomUUID(), role: "user", content: `/tool memory.forget {"id":"${id}"}` });
    let interruptId = "";
    await client.runAgent(undefined, {
      onRunFinishedEvent: (params) =>
        void (interruptId = params.outcome === "interrupt" ? params.interrupts[0]!.id : ""),
    });
    expect(interruptId).not.toBe("");

    const resume = (token: string) =>
      api(`/agui/agents/${name}`, {
        method: "POST",
        token,
        headers: { accept: "text/event-stream" },
        json: {
          threadId: client.threadId,
          runId: crypto.randomUUID(),
          messages: [],
          resume: [{ interruptId, status: "resolved", payload: { approved: true } }],
        },
      });
    const lent = await resume(approveToken);
    expect(lent.status).toBe(403);
    expect(((await lent.json()) as any).error.message).toBe(
      "approving 'memory.forget' needs a token with the 'admin' scope (the scope of the tool's own route); this token has 'approve'",
    );
    expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(200);

    const approved = await resume(adminToken);
    expect(approved.status).toBe(200);
    await approved.text();
    expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(404);
  });
});

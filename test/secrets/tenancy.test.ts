import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, uniqueName, type ErrorBody } from "../api/client";
import { testBotToken } from "../doubles/telegram-server";
import { doubleUrl, toolCalls } from "../runs/scripted";
import { httpTool, listenerKey, listenerUrl, tenant } from "./helpers";

const listenerHost = () => new URL(listenerUrl()).hostname;
const deploymentAirtable = "secret-airtable-value-123";

async function invoke(t: Awaited<ReturnType<typeof tenant>>, agent: string) {
  const res = await t.call(`/api/agents/${agent}/tools/notes.add/invoke`, {
    method: "POST",
    json: { arguments: { text: "hello" } },
  });
  return { status: res.status, text: await res.text() };
}

describe("secrets belong to a project: tools name only their own project's", () => {
  it("b's admin cannot name a's secret in an HTTP tool (400 at configure time) nor default's PANTHEON_TOOL_SECRETS; a's own tool sends a's value (positive control)", async () => {
    const a = await tenant("ten-a");
    const b = await tenant("ten-b");
    const aValue = `a-airtable-${crypto.randomUUID()}`;
    expect((await a.setSecret("AIRTABLE_KEY", aValue)).status).toBe(200);
    const target = listenerKey();
    const runtime = { allowHosts: [listenerHost()], httpTools: [httpTool(target.url, "AIRTABLE_KEY")] };

    const refused = await b.call("/api/agents", { method: "POST", json: { name: "thief", runtime } });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as ErrorBody;
    expect(body.error.details?.issues).toEqual([
      {
        path: ["runtime", "httpTools", 0, "headers", "X-Key", "secret"],
        message: `HTTP tool 'notes.add': no secret 'AIRTABLE_KEY' in project '${b.slug}' (it has none); set it with \`pantheon secrets set AIRTABLE_KEY\` (PUT /api/projects/${b.slug}/secrets/AIRTABLE_KEY)`,
      },
    ]);
    // The same through a PATCH of an existing agent, and through an A2A header.
    expect((await b.call("/api/agents", { method: "POST", json: { name: "plain" } })).status).toBe(201);
    expect((await b.call("/api/agents/plain", { method: "PATCH", json: { runtime } })).status).toBe(400);
    const a2a = await b.call("/api/agents", {
      method: "POST",
      json: {
        name: "asker",
        runtime: {
          allowHosts: [listenerHost()],
          a2aAgents: [{ name: "peer", url: target.url, headers: { authorization: { secret: "AIRTABLE_KEY" } } }],
        },
      },
    });
    expect(a2a.status).toBe(400);
    expect(((await a2a.json()) as ErrorBody).error.details?.issues?.[0]?.message).toContain(
      `no secret 'AIRTABLE_KEY' in project '${b.slug}'`,
    );

    // Positive control: a's admin makes the same tool and a's value reaches a's endpoint.
    expect((await a.call("/api/agents", { method: "POST", json: { name: "owner", runtime } })).status).toBe(201);
    const called = await invoke(a, "owner");
    expect(JSON.parse(called.text)).toMatchObject({ ok: true, output: "ok" });
    expect(called.text).not.toContain(aValue);
    const received = await target.requests();
    expect(received).toHaveLength(1);
    expect(received[0]!.headers["x-key"]).toBe(aValue);
    expect(JSON.stringify(received)).not.toContain(deploymentAirtable);
  });

  it("a tool stored before the secret went is refused at call time, naming the project; a changed value reaches the next call (the agent's copy is dropped on change)", async () => {
    const a = await tenant("ten-call");
    const target = listenerKey();
    expect((await a.setSecret("HOOK_KEY", "first-value-0001")).status).toBe(200);
    expect(
      (
        await a.call("/api/agents", {
          method: "POST",
          json: {
            name: "hooker",
            runtime: { allowHosts: [listenerHost()], httpTools: [httpTool(target.url, "HOOK_KEY")] },
          },
        })
      ).status,
    ).toBe(201);
    expect(JSON.parse((await invoke(a, "hooker")).text)).toMatchObject({ ok: true });
    expect((await a.setSecret("HOOK_KEY", "second-value-0002")).status).toBe(200);
    expect(JSON.parse((await invoke(a, "hooker")).text)).toMatchObject({ ok: true });
    expect((await target.requests()).map((r) => r.headers["x-key"])).toEqual(["first-value-0001", "second-value-0002"]);

    expect((await a.call(`/api/projects/${a.slug}/secrets/HOOK_KEY`, { method: "DELETE" })).status).toBe(204);
    const gone = JSON.parse((await invoke(a, "hooker")).text);
    expect(gone).toMatchObject({
      ok: false,
      error: {
        message: `refused: no secret 'HOOK_KEY' in project '${a.slug}'; set it with \`pantheon secrets set HOOK_KEY\` (PUT /api/projects/${a.slug}/secrets/HOOK_KEY) (header X-Key)`,
      },
    });
    expect(await target.requests()).toHaveLength(2);
  });

  it("a deployment secret reaches another project only once the deployment admin grants it, and stops when revoked", async () => {
    const b = await tenant("ten-grant");
    const target = listenerKey();
    const runtime = { allowHosts: [listenerHost()], httpTools: [httpTool(target.url, "AIRTABLE_KEY")] };
    expect((await b.call("/api/agents", { method: "POST", json: { name: "user", runtime } })).status).toBe(400);
    expect((await api(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "PUT" })).status).toBe(200);
    expect((await b.call("/api/agents", { method: "POST", json: { name: "user", runtime } })).status).toBe(201);
    expect(JSON.parse((await invoke(b, "user")).text)).toMatchObject({ ok: true });
    expect((await target.requests())[0]!.headers["x-key"]).toBe(deploymentAirtable);
    expect((await api(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "DELETE" })).status).toBe(204);
    expect(JSON.parse((await invoke(b, "user")).text)).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining(`no secret 'AIRTABLE_KEY' in project '${b.slug}'`) },
    });
    expect(await target.requests()).toHaveLength(1);
  });

  it("a project secret a tool received is redacted from the run's trace and kept from the model", async () => {
    const a = await tenant("ten-red");
    const value = `echo-me-${crypto.randomUUID()}`;
    expect((await a.setSecret("ECHO_KEY", value)).status).toBe(200);
    const key = crypto.randomUUID();
    const model = uniqueName("model");
    const runtime = {
      tools: ["clock.now"],
      allowHosts: [new URL(doubleUrl()).hostname],
      httpTools: [
        {
          name: "echo.headers",
          description: "echo",
          parameters: { type: "object", properties: {} },
          endpoint: `${doubleUrl()}/__tool/${key}?echoHeaders=1`,
          headers: { "X-Api-Key": { secret: "ECHO_KEY" } },
        },
      ],
    };
    expect(
      (
        await a.call("/api/agents", {
          method: "POST",
          json: { name: "echoer", model: { provider: "openai", name: model }, runtime },
        })
      ).status,
    ).toBe(201);
    await fetch(`${doubleUrl()}/__script/${model}`, {
      method: "POST",
      body: JSON.stringify([{ toolCalls: [{ name: "echo.headers", arguments: {} }] }, { content: "done" }]),
    });
    const sent = (await (
      await a.call("/api/agents/echoer/messages", { method: "POST", json: { content: "go" } })
    ).json()) as any;
    expect(sent.status).toBe("completed");
    expect((await toolCalls(key))[0].headers["x-api-key"]).toBe(value);
    const run = JSON.stringify(await (await a.call(`/api/agents/echoer/runs/${sent.runId}`)).json());
    expect(run).toContain("[redacted]");
    expect(run).not.toContain(value);
    expect(JSON.stringify(await (await fetch(`${doubleUrl()}/__calls/${model}`)).json())).not.toContain(value);
  });

  it("a reply carrying a project secret the agent's tools use (here base64-encoded) is refused by the output gate, the model is told which secret (never its value), and its next reply goes out", async () => {
    const a = await tenant("ten-gate");
    const value = `gate-me-${crypto.randomUUID()}`;
    expect((await a.setSecret("GATE_KEY", value)).status).toBe(200);
    const model = uniqueName("model");
    const runtime = {
      allowHosts: [new URL(doubleUrl()).hostname],
      httpTools: [
        {
          name: "gate.tool",
          description: "t",
          parameters: { type: "object", properties: {} },
          endpoint: `${doubleUrl()}/__tool/${crypto.randomUUID()}`,
          headers: { "X-Api-Key": { secret: "GATE_KEY" } },
        },
      ],
    };
    expect(
      (
        await a.call("/api/agents", {
          method: "POST",
          json: { name: "leaker", model: { provider: "openai", name: model }, runtime },
        })
      ).status,
    ).toBe(201);
    await fetch(`${doubleUrl()}/__script/${model}`, {
      method: "POST",
      body: JSON.stringify([{ content: `the key is ${btoa(value)}` }, { content: "I cannot share that." }]),
    });
    const sent = (await (
      await a.call("/api/agents/leaker/messages", { method: "POST", json: { content: "tell me the key" } })
    ).json()) as any;
    expect(sent.status).toBe("completed");
    expect(sent.reply.content).toBe("I cannot share that.");
    const calls = (await (await fetch(`${doubleUrl()}/__calls/${model}`)).json()) as any[];
    expect(JSON.stringify(calls[1].messages.at(-1))).toContain("GATE_KEY (base64-encoded)");
    expect(JSON.stringify(calls)).not.toContain(btoa(value));
  });
});

describe("Telegram bots belong to a project", () => {
  const telegram = () => (env as unknown as { TELEGRAM_API_BASE: string }).TELEGRAM_API_BASE;
  const setWebhookCalls = async (agent: string) =>
    (await (await fetch(`${telegram()}/__calls?method=setWebhook&secret=/${agent}`)).json()) as {
      token: string;
      body: any;
    }[];
  const gateway = (botTokenSecret: string) => ({ method: "PUT", json: { botTokenSecret, approverUserIds: [1] } });

  it("b cannot name default's or a's bot secret (400 naming b's secrets), nor take a's bot with the same token (409); a's own webhook setup works; the deployment admin sees who owns which bot", async () => {
    const a = await tenant("bot-a");
    const b = await tenant("bot-b");
    const aAgent = uniqueName("bot");
    const bAgent = uniqueName("bot");
    expect((await a.call("/api/agents", { method: "POST", json: { name: aAgent } })).status).toBe(201);
    expect((await b.call("/api/agents", { method: "POST", json: { name: bAgent } })).status).toBe(201);
    expect((await a.setSecret("TELEGRAM_BOT_TOKEN", testBotToken)).status).toBe(200);

    // b names TELEGRAM_BOT_TOKEN: default's worker secret and a's project secret are not b's.
    const named = await b.call(`/api/agents/${bAgent}/gateways/telegram`, gateway("TELEGRAM_BOT_TOKEN"));
    expect(named.status).toBe(400);
    const refusal = (await named.json()) as ErrorBody;
    expect(refusal.error.details?.issues?.[0]).toMatchObject({
      path: ["botTokenSecret"],
      message: expect.stringContaining(`no secret 'TELEGRAM_BOT_TOKEN' in project '${b.slug}'`),
    });
    expect(await setWebhookCalls(bAgent)).toEqual([]);

    // a's own bot: configured and its webhook registered with a's token (positive control).
    expect((await a.call(`/api/agents/${aAgent}/gateways/telegram`, gateway("TELEGRAM_BOT_TOKEN"))).status).toBe(200);
    const hooked = await a.call(`/api/agents/${aAgent}/gateways/telegram/webhook`, {
      method: "POST",
      json: { url: "https://a.example.com" },
    });
    expect(hooked.status).toBe(200);
    const [registered] = await setWebhookCalls(aAgent);
    expect(registered).toMatchObject({
      token: testBotToken,
      body: { url: `https://a.example.com/gateways/telegram/${a.slug}/${aAgent}` },
    });

    // b sets its own secret holding a's bot token (learned somehow): the same bot, by fingerprint, is refused.
    expect((await b.setSecret("TELEGRAM_BOT_TOKEN", testBotToken)).status).toBe(200);
    const taken = await b.call(`/api/agents/${bAgent}/gateways/telegram`, gateway("TELEGRAM_BOT_TOKEN"));
    expect(taken.status).toBe(409);
    const takenBody = await taken.text();
    expect(takenBody).toContain("already the bot of another project");
    expect(takenBody).not.toContain(a.slug);
    expect(await setWebhookCalls(bAgent)).toEqual([]);
    // With a bot of its own, b's gateway is configured, and b's webhook call uses b's token, never a's.
    expect((await b.setSecret("TELEGRAM_BOT_TOKEN", "999:b-own-bot-token")).status).toBe(200);
    expect((await b.call(`/api/agents/${bAgent}/gateways/telegram`, gateway("TELEGRAM_BOT_TOKEN"))).status).toBe(200);
    await b.call(`/api/agents/${bAgent}/gateways/telegram/webhook`, {
      method: "POST",
      json: { url: "https://b.example.com" },
    });
    expect((await setWebhookCalls(bAgent)).map((c) => c.token)).toEqual(["999:b-own-bot-token"]);
    expect((await setWebhookCalls(aAgent)).map((c) => c.body.url)).toEqual([
      `https://a.example.com/gateways/telegram/${a.slug}/${aAgent}`,
    ]);
    // Nor can b turn the secret its gateway names into a's bot afterwards: 409, and b's value stays.
    const swapped = await b.setSecret("TELEGRAM_BOT_TOKEN", testBotToken);
    expect(swapped.status).toBe(409);
    await b.call(`/api/agents/${bAgent}/gateways/telegram/webhook`, {
      method: "POST",
      json: { url: "https://b.example.com" },
    });
    expect((await setWebhookCalls(bAgent)).map((c) => c.token)).toEqual(["999:b-own-bot-token", "999:b-own-bot-token"]);

    // Who owns which bot: the deployment admin only; names and fingerprints, never a token.
    expect((await a.call("/api/gateways/telegram")).status).toBe(403);
    const owners = await api("/api/gateways/telegram");
    expect(owners.status).toBe(200);
    const ownersText = await owners.text();
    expect(ownersText).not.toContain(testBotToken);
    expect(ownersText).not.toContain("b-own-bot-token");
    const bots = (JSON.parse(ownersText) as { bots: any[] }).bots;
    expect(bots).toContainEqual({
      project: a.slug,
      agent: aAgent,
      botTokenSecret: "TELEGRAM_BOT_TOKEN",
      fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect(bots).toContainEqual({
      project: b.slug,
      agent: bAgent,
      botTokenSecret: "TELEGRAM_BOT_TOKEN",
      fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    // a moves to another bot: the index follows its fingerprint, so a's old bot is free for b.
    const before = bots.find((o) => o.project === a.slug)!.fingerprint;
    expect((await a.setSecret("TELEGRAM_BOT_TOKEN", "222:a-new-bot-token")).status).toBe(200);
    const after = ((await (await api("/api/gateways/telegram")).json()) as { bots: any[] }).bots.find(
      (o) => o.project === a.slug,
    )!.fingerprint;
    expect(after).not.toBe(before);
    expect((await b.setSecret("TELEGRAM_BOT_TOKEN", testBotToken)).status).toBe(200);
  });

  it("a gateway stored before its secret went refuses to set the webhook, and sends nothing", async () => {
    const a = await tenant("bot-gone");
    const agent = uniqueName("bot");
    expect((await a.call("/api/agents", { method: "POST", json: { name: agent } })).status).toBe(201);
    expect((await a.setSecret("TELEGRAM_BOT_TOKEN", "555:gone-bot-token")).status).toBe(200);
    expect((await a.call(`/api/agents/${agent}/gateways/telegram`, gateway("TELEGRAM_BOT_TOKEN"))).status).toBe(200);
    expect((await a.call(`/api/projects/${a.slug}/secrets/TELEGRAM_BOT_TOKEN`, { method: "DELETE" })).status).toBe(204);
    const hooked = await a.call(`/api/agents/${agent}/gateways/telegram/webhook`, {
      method: "POST",
      json: { url: "https://a.example.com" },
    });
    expect(hooked.status).toBe(400);
    expect(((await hooked.json()) as ErrorBody).error.message).toContain(
      "TELEGRAM_BOT_TOKEN is not a secret of this project",
    );
    expect(await setWebhookCalls(agent)).toEqual([]);
  });
});

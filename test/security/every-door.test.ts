import { SELF, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { reservedKeyPath } from "../../workers/validation";
import { adminToken, api, createAgent, uniqueName, type ErrorBody } from "../api/client";

/**
 * Every door that reads a body (/api, /v1, /mcp, /mcp/agents/:name, /agui, /a2a, the Telegram
 * webhook, project files, scripts): a body nested 10,000 deep or holding a `__proto__` key is the
 * client's mistake, a 4xx that says what and where, never a 500; an oversized body is a 413 naming
 * the door and its own limit. Each door's refusal sits beside the same door answering a normal body.
 */
const levels = 10_000;
const deep = {
  array: "[".repeat(levels) + "]".repeat(levels),
  object: '{"a":'.repeat(levels) + "1" + "}".repeat(levels),
};
const depthMessage = "JSON nested deeper than 64 levels";
const protoRule =
  "'__proto__' is not allowed as a key: it is reserved (it would set the object's prototype); rename the field";

function raw(path: string, body: string, headers: Record<string, string> = {}, token: string | null = adminToken) {
  return SELF.fetch(`https://pantheon.test${path}`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });
}

const telegramDouble = () => (env as unknown as { TELEGRAM_API_BASE: string }).TELEGRAM_API_BASE;

/** An agent with a Telegram gateway, and the webhook secret Telegram was given (as the gateway tests set one up). */
async function telegramAgent() {
  const agent = await createAgent();
  expect(
    (
      await api(`/api/agents/${agent.name}/gateways/telegram`, {
        method: "PUT",
        json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1] },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await api(`/api/agents/${agent.name}/gateways/telegram/webhook`, {
        method: "POST",
        json: { url: "https://bot.example.com/" },
      })
    ).status,
  ).toBe(200);
  const calls = (await (await fetch(`${telegramDouble()}/__calls?method=setWebhook&secret=/${agent.name}`)).json()) as {
    body: { secret_token: string };
  }[];
  return { name: agent.name, secret: calls.at(-1)!.body.secret_token };
}

const a2aSend = (text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: {
      message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }] },
    },
  });

describe("a body nested 10,000 deep is a 400 on every door, and a normal body still works there", () => {
  it("/mcp/agents/:name answers a JSON-RPC parse error naming the limit; ping works", async () => {
    const agent = await createAgent();
    for (const body of [
      deep.array,
      deep.object,
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":${deep.object}}}`,
    ]) {
      const res = await raw(`/mcp/agents/${agent.name}`, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32700, message: `Parse error: ${depthMessage}`, data: { code: "bad_request", limit: 64 } },
        id: null,
      });
    }
    const ping = await raw(`/mcp/agents/${agent.name}`, '{"jsonrpc":"2.0","id":3,"method":"ping"}');
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
  });

  it("/agui answers the API's 400 naming the limit; a normal run answers", async () => {
    const agent = await createAgent();
    for (const body of [
      deep.array,
      deep.object,
      `{"threadId":"t","runId":"r","messages":[{"id":"q","role":"user","content":"hi"}],"state":${deep.object}}`,
    ]) {
      const res = await raw(`/agui/agents/${agent.name}`, body);
      expect(res.status).toBe(400);
      const error = ((await res.json()) as ErrorBody).error;
      expect(error).toMatchObject({ code: "bad_request", message: depthMessage });
    }
    const ok = await raw(
      `/agui/agents/${agent.name}`,
      JSON.stringify({
        threadId: "t",
        runId: "r",
        messages: [{ id: "q", role: "user", content: "What is the launch code word?" }],
      }),
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("pineapple");
  });

  it("/a2a answers a JSON-RPC parse error naming the limit; message/send answers", async () => {
    const agent = await createAgent();
    for (const body of [
      deep.array,
      deep.object,
      a2aSend("hi").replace('"kind":"message"', `"kind":"message","metadata":${deep.object}`),
    ]) {
      const res = await raw(`/a2a/agents/${agent.name}`, body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { error: { code: number; message: string; data: unknown } };
      expect(answer.error).toEqual({
        code: -32700,
        message: `Parse error: ${depthMessage}`,
        data: { code: "bad_request", limit: 64 },
      });
    }
    const ok = await raw(`/a2a/agents/${agent.name}`, a2aSend("What is the launch code word?"));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("pineapple");
  });

  it("the Telegram webhook, with the right secret, answers 400 naming the limit; a normal update is handled", async () => {
    const { name, secret } = await telegramAgent();
    const update = (extra: string) =>
      `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"hi","entities":${extra}}}`;
    for (const body of [deep.array, deep.object, update(deep.array)]) {
      const res = await raw(
        `/gateways/telegram/default/${name}`,
        body,
        { "x-telegram-bot-api-secret-token": secret },
        null,
      );
      expect(res.status).toBe(400);
      const error = ((await res.json()) as ErrorBody).error;
      expect(error).toMatchObject({ code: "bad_request", message: depthMessage });
      expect(error.details?.issues?.[0]?.message).toBe("more than 64 levels of arrays and objects");
    }
    // Without the secret the depth is never looked at: the same 401 as any stranger.
    expect((await raw(`/gateways/telegram/default/${name}`, deep.array, {}, null)).status).toBe(401);
    const ok = await raw(
      `/gateways/telegram/default/${name}`,
      JSON.stringify({
        update_id: 2,
        message: {
          message_id: 2,
          date: 1,
          chat: { id: 1, type: "private" },
          from: { id: 1, is_bot: false, first_name: "A" },
          text: "hello",
        },
      }),
      { "x-telegram-bot-api-secret-token": secret },
      null,
    );
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { ok: boolean }).ok).toBe(true);
  });

  it("a project file nested 10,000 deep is a 400 naming the limit; a normal file imports", async () => {
    const slug = uniqueName("deep");
    expect((await api("/api/projects", { method: "POST", json: { slug } })).status).toBe(201);
    for (const body of [deep.array, deep.object, `{"agents":{"main":{"description":"x","pantheon":${deep.object}}}}`]) {
      const res = await raw(`/api/projects/${slug}/import`, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error.message).toBe(depthMessage);
    }
    expect(
      (await api(`/api/projects/${slug}/import`, { method: "POST", json: { agents: { main: { description: "x" } } } }))
        .status,
    ).toBe(200);
  });
});

describe("the agent's WebSocket (clients only listen)", () => {
  it("frames nested 10,000 deep neither close the socket nor break the agent: a run's events still arrive on it", async () => {
    const agent = await createAgent();
    const res = await api(`/agents/agent-do/default.${agent.name}?token=${adminToken}`, {
      token: null,
      headers: { upgrade: "websocket" },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const frames: { type?: string; event?: { type: string }; error?: string }[] = [];
    let closed: number | null = null;
    ws.addEventListener("message", (e) => frames.push(JSON.parse(String(e.data))));
    ws.addEventListener("close", (e) => (closed = e.code));
    for (const frame of [
      deep.array,
      deep.object,
      `{"type":"rpc","id":"1","method":"status","args":[${deep.array}]}`,
      `{"type":"cf_agent_state","state":${deep.object}}`,
    ])
      ws.send(frame);
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 100 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
      return what();
    };
    // The SDK answers the two it understands with refusals; the bare arrays and objects are ignored.
    expect(await until(() => frames.some((f) => f.type === "cf_agent_state_error"))).toBe(true);
    expect(frames.find((f) => f.type === "rpc")).toMatchObject({
      success: false,
      error: "Method status is not callable",
    });
    expect(
      (
        await api(`/api/agents/${agent.name}/messages`, {
          method: "POST",
          json: { content: "What is the launch code word?" },
        })
      ).status,
    ).toBe(200);
    expect(await until(() => frames.some((f) => f.type === "run_event" && f.event?.type === "done"))).toBe(true);
    expect(closed).toBeNull();
    ws.close();
  });
});

describe("reservedKeyPath", () => {
  it("finds the first own `__proto__` key in document order, inside arrays too; a string value `__proto__` is no key", () => {
    expect(reservedKeyPath(JSON.parse('{"a":[{"b":1},{"__proto__":{}}],"c":{"__proto__":1}}'))).toEqual([
      "a",
      1,
      "__proto__",
    ]);
    expect(reservedKeyPath(JSON.parse('{"__proto__":null}'))).toEqual(["__proto__"]);
    expect(reservedKeyPath({ a: "__proto__", b: ["__proto__"], constructor: 1 })).toBeNull();
    // An object literal's `__proto__:` sets the prototype, it is no own key: nothing to find.
    expect(reservedKeyPath({ __proto__: { x: 1 } })).toBeNull();
    expect(reservedKeyPath("text")).toBeNull();
  });
});

describe("a `__proto__` key is refused with its path on every door, not silently dropped", () => {
  const protoBody = (inner: string) => inner.replace(/^\{/, '{"__proto__":{"x":1},');

  it("/api: at the top and nested, a 400 validation_failed whose issue is the key's path; the same body without it is created", async () => {
    const name = uniqueName();
    const top = await raw("/api/agents", protoBody(JSON.stringify({ name, description: "x" })));
    expect(top.status).toBe(400);
    const error = ((await top.json()) as ErrorBody).error;
    expect(error.code).toBe("validation_failed");
    expect(error.details?.issues).toEqual([{ path: ["__proto__"], message: protoRule }]);

    const nested = await raw(
      "/api/agents",
      JSON.stringify({
        name,
        description: "x",
        runtime: { rateLimits: { "*": { capacity: 1, refillPerSec: 1 } } },
      }).replace('"rateLimits":{', '"rateLimits":{"__proto__":{"capacity":1,"refillPerSec":1},'),
    );
    expect(nested.status).toBe(400);
    expect(((await nested.json()) as ErrorBody).error.details?.issues).toEqual([
      { path: ["runtime", "rateLimits", "__proto__"], message: protoRule },
    ]);
    // Headers of an HTTP tool: where a dropped key used to vanish without a word.
    const header = await raw(
      `/api/agents`,
      JSON.stringify({
        name,
        runtime: {
          allowHosts: ["example.com"],
          httpTools: [{ name: "t", description: "d", endpoint: "https://example.com", headers: { a: "1" } }],
        },
      }).replace('"headers":{', '"headers":{"__proto__":"x",'),
    );
    expect(((await header.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual([
      "runtime",
      "httpTools",
      0,
      "headers",
      "__proto__",
    ]);

    expect(
      (
        await raw(
          "/api/agents",
          JSON.stringify({
            name,
            description: "x",
            runtime: { rateLimits: { constructor: { capacity: 1, refillPerSec: 1 } } },
          }),
        )
      ).status,
    ).toBe(201);
  });

  it("/v1 in OpenAI's shape with the param; /mcp, /mcp/agents and /a2a as JSON-RPC invalid requests with the path; /agui and Telegram as the API's 400", async () => {
    const agent = await createAgent();
    const completion = await raw(
      "/v1/chat/completions",
      JSON.stringify({ model: agent.name, messages: [{ role: "user", content: "hi" }] }).replace(
        '{"role"',
        '{"__proto__":{},"role"',
      ),
    );
    expect(completion.status).toBe(400);
    expect(await completion.json()).toEqual({
      error: {
        message: `${protoRule} (at messages.0.__proto__)`,
        type: "invalid_request_error",
        param: "messages.0.__proto__",
        code: "invalid_value",
      },
    });

    for (const path of ["/mcp", `/mcp/agents/${agent.name}`]) {
      const res = await raw(path, '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"x":1}}}');
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message: `Invalid Request: ${protoRule} (at params.__proto__)`,
          data: { code: "validation_failed", path: ["params", "__proto__"] },
        },
        id: null,
      });
    }
    const a2a = await raw(
      `/a2a/agents/${agent.name}`,
      a2aSend("hi").replace('"params":{', '"params":{"__proto__":{},'),
    );
    expect(a2a.status).toBe(400);
    expect(((await a2a.json()) as { error: unknown }).error).toEqual({
      code: -32600,
      message: `Invalid Request: ${protoRule} (at params.__proto__)`,
      data: { code: "validation_failed", path: ["params", "__proto__"] },
    });

    const agui = await raw(
      `/agui/agents/${agent.name}`,
      '{"threadId":"t","runId":"r","messages":[{"id":"q","role":"user","content":"hi","__proto__":{}}]}',
    );
    expect(agui.status).toBe(400);
    expect(((await agui.json()) as ErrorBody).error.details?.issues).toEqual([
      { path: ["messages", 0, "__proto__"], message: protoRule },
    ]);

    const { name, secret } = await telegramAgent();
    const tg = await raw(
      `/gateways/telegram/default/${name}`,
      '{"update_id":1,"__proto__":{"x":1}}',
      { "x-telegram-bot-api-secret-token": secret },
      null,
    );
    expect(tg.status).toBe(400);
    expect(((await tg.json()) as ErrorBody).error.details?.issues).toEqual([
      { path: ["__proto__"], message: protoRule },
    ]);

    // The same doors answer a body without the key.
    expect(
      (
        await raw(
          "/v1/chat/completions",
          JSON.stringify({ model: agent.name, messages: [{ role: "user", content: "hi" }] }),
        )
      ).status,
    ).toBe(200);
    expect((await raw("/mcp", '{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}')).status).toBe(200);
  });

  it("a JSON script with a `__proto__` key is a script error at its path; the script without it is stored", async () => {
    const agent = await createAgent();
    const script = { name: agent.name, description: "x", talents: [] };
    const res = await SELF.fetch(`https://pantheon.test/api/agents/${agent.name}/script`, {
      method: "PUT",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(script).replace('"talents"', '"model":{"__proto__":{"provider":"openai"}},"talents"'),
    });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as ErrorBody).error;
    expect(error.code).toBe("script_invalid");
    expect(error.message).toContain("'__proto__' at model.__proto__ is a reserved key");
    const ok = await api(`/api/agents/${agent.name}/script`, { method: "PUT", json: script });
    expect(ok.status).toBe(200);
  });
});

describe("a body over a door's limit is a 413 that names that door and its own limit", () => {
  it("64 KiB on /api, /mcp, /mcp/agents and /a2a; 8 MiB on /v1 and /agui (images inline); a body under the limit is read", async () => {
    const agent = await createAgent();
    const big = JSON.stringify({ x: "x".repeat(70 * 1024) });
    const doors: [string, string, string][] = [
      ["/api/agents", "/api", "64 KiB"],
      ["/mcp", "/mcp", "64 KiB"],
      [`/mcp/agents/${agent.name}`, "/mcp/agents", "64 KiB"],
      [`/a2a/agents/${agent.name}`, "/a2a", "64 KiB"],
    ];
    for (const [path, door, limit] of doors) {
      const res = await raw(path, big);
      expect(res.status, path).toBe(413);
      const body = (await res.json()) as { error: { message: string; code: string } };
      expect(body.error.message, path).toBe(`the request body is larger than ${limit}: ${door} takes at most ${limit}`);
      expect(body.error.code, path).toBe("payload_too_large");
    }
    const over = "x".repeat(8 * 1024 * 1024 + 16);
    const huge = await raw(
      `/agui/agents/${agent.name}`,
      JSON.stringify({ threadId: "t", runId: "r", messages: [{ id: "q", role: "user", content: over }] }),
    );
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as ErrorBody).error.message).toBe(
      "the request body is larger than 8 MiB: /agui takes at most 8 MiB",
    );
    const hugeV1 = await raw(
      "/v1/chat/completions",
      JSON.stringify({ model: agent.name, messages: [{ role: "user", content: over }] }),
    );
    expect(hugeV1.status).toBe(413);
    expect(((await hugeV1.json()) as ErrorBody).error.message).toBe(
      "the request body is larger than 8 MiB: /v1 takes at most 8 MiB",
    );
    // 70 KiB is over /api's limit but well under /agui's: read, and the run answers.
    const long = await raw(
      `/agui/agents/${agent.name}`,
      JSON.stringify({
        threadId: "t",
        runId: "r",
        messages: [
          { id: "h", role: "assistant", content: "x".repeat(70 * 1024) },
          { id: "q", role: "user", content: "What is the launch code word?" },
        ],
      }),
    );
    expect(long.status).toBe(200);
    expect(await long.text()).toContain("pineapple");
  });
});

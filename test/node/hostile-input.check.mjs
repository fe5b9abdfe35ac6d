// Hostile bodies against a real local stack (wrangler dev), with fetch as any client would send
// them: a body nested 10,000 deep on every door (/api, /v1, /mcp, /mcp/agents/:name, /agui, /a2a,
// the Telegram webhook with its right secret) and on each line of the JSON-lines doors (memory import,
// snapshot restore), a `__proto__` key, a project file with an agent named
// `constructor`, an unknown model provider, an oversized AG-UI body, and a 250-memory import. Every
// refusal is a 4xx naming what was wrong (never a 5xx), each beside the same door answering a
// normal request. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const telegramSecret = `tg_${randomBytes(16).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-hostile-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value)?.slice(0, 700);

const levels = 10_000;
const deep = {
  array: "[".repeat(levels) + "]".repeat(levels),
  object: '{"a":'.repeat(levels) + "1" + "}".repeat(levels),
};
const depthMessage = "JSON nested deeper than 64 levels";

let server;
/** POSTs `body` as JSON text; `{ status, body, text }`. */
async function post(path, body, headers = {}, withToken = true) {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(withToken ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, body: json, text: text.slice(0, 2000) };
}
const get = async (path) =>
  (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();
/** The message of an error answer in any door's shape: the API's, OpenAI's or JSON-RPC's. */
const messageOf = (body) => body?.error?.message ?? "";
const a2aSend = (text) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: {
      message: { kind: "message", messageId: `m-${Date.now()}`, role: "user", parts: [{ kind: "text", text }] },
    },
  });

try {
  server = await startDevServer({
    port: await freePort(),
    token,
    persistTo,
    vars: { TELEGRAM_BOT_TOKEN: "123456:hostile-input-check" },
  });
  const created = await post(
    "/api/agents",
    JSON.stringify({ name: "scout", systemPrompt: "You are Scout. The launch code word is pineapple." }),
  );
  check(
    "an ordinary agent is created (the positive control of every door below)",
    created.status === 201,
    shown(created),
  );
  const telegram = await fetch(`${server.url}/api/agents/scout/gateways/telegram`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      botTokenSecret: "TELEGRAM_BOT_TOKEN",
      approverUserIds: [1],
      allowedChatIds: [1],
      secretToken: telegramSecret,
    }),
  });
  check("the Telegram gateway is set up with its webhook secret", telegram.status === 200, String(telegram.status));

  // ---- 10,000 deep on every door ----
  const webhook = { "x-telegram-bot-api-secret-token": telegramSecret };
  // Each door's third body is a valid one with a 10,000-deep value in a field the door lets through.
  const inside = {
    "/api/agents": (d) => `{"name":"deep-one","description":${d}}`,
    "/v1/chat/completions": (d) => `{"model":"scout","messages":[{"role":"user","content":"hi"}],"metadata":${d}}`,
    "/mcp": (d) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":${d}}}`,
    "/mcp/agents/scout": (d) => `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":${d}}}`,
    "/agui/agents/scout": (d) =>
      `{"threadId":"t","runId":"r","messages":[{"id":"q","role":"user","content":"hi"}],"state":${d}}`,
    "/a2a/agents/scout": (d) => a2aSend("hi").replace('"kind":"message"', `"kind":"message","metadata":${d}`),
    "/gateways/telegram/default/scout": (d) =>
      `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":99,"type":"private"},"text":"hi"},"extra":${d}}`,
  };
  const doors = [
    [
      "/api/agents",
      {},
      true,
      () => post("/api/agents", JSON.stringify({ name: "second", description: "x" })),
      (r) => r.status === 201,
    ],
    [
      "/v1/chat/completions",
      {},
      true,
      () =>
        post(
          "/v1/chat/completions",
          JSON.stringify({ model: "scout", messages: [{ role: "user", content: "What is the launch code word?" }] }),
        ),
      (r) => r.status === 200 && r.text.includes("pineapple"),
    ],
    [
      "/mcp",
      {},
      true,
      () => post("/mcp", '{"jsonrpc":"2.0","id":1,"method":"ping"}'),
      (r) => r.status === 200 && r.body?.result !== undefined,
    ],
    [
      "/mcp/agents/scout",
      {},
      true,
      () => post("/mcp/agents/scout", '{"jsonrpc":"2.0","id":1,"method":"ping"}'),
      (r) => r.status === 200 && r.body?.result !== undefined,
    ],
    [
      "/agui/agents/scout",
      {},
      true,
      () =>
        post(
          "/agui/agents/scout",
          JSON.stringify({
            threadId: "t",
            runId: "r",
            messages: [{ id: "q", role: "user", content: "What is the launch code word?" }],
          }),
        ),
      (r) => r.status === 200 && r.text.includes("pineapple"),
    ],
    [
      "/a2a/agents/scout",
      {},
      true,
      () => post("/a2a/agents/scout", a2aSend("What is the launch code word?")),
      (r) => r.status === 200 && r.text.includes("pineapple"),
    ],
    // A chat that is not allowed: handled (and ignored) without any call to Telegram.
    [
      "/gateways/telegram/default/scout",
      webhook,
      false,
      () =>
        post(
          "/gateways/telegram/default/scout",
          JSON.stringify({
            update_id: 1,
            message: {
              message_id: 1,
              date: 1,
              chat: { id: 99, type: "private" },
              from: { id: 99, is_bot: false, first_name: "X" },
              text: "hi",
            },
          }),
          webhook,
          false,
        ),
      (r) => r.status === 200 && r.body?.ok === true,
    ],
  ];
  for (const [path, headers, withToken, normal, works] of doors) {
    const bodies = [
      ...Object.entries(deep).map(([shape, body]) => [`a body of ${shape}s nested 10,000 deep`, body]),
      ["a valid body with a field nested 10,000 deep", inside[path](deep.object)],
    ];
    for (const [what, body] of bodies) {
      const res = await post(path, body, headers, withToken);
      check(
        `${path}: ${what} is a 400 naming the limit`,
        res.status === 400 && messageOf(res.body).includes(depthMessage),
        shown(res),
      );
    }
    const ok = await normal();
    check(`${path}: a normal body is answered`, works(ok), shown(ok));
  }
  // The JSON-lines doors: each line gets the limit a body gets, and the refusal names the line.
  const ndjson = { "content-type": "application/x-ndjson" };
  for (const [path, good] of [
    ["/api/agents/scout/memories/import", '{"kind":"fact","text":"A line beside a deep one."}'],
    [
      "/api/agents/scout/snapshot/restore",
      '{"type":"memory","kind":"fact","text":"A restored line beside a deep one."}',
    ],
  ]) {
    for (const [shape, line] of Object.entries(deep)) {
      const res = await post(path, `${good}\n${line}\n`, ndjson);
      check(
        `${path}: a line of ${shape}s nested 10,000 deep is a 400 naming the line`,
        res.status === 400 && messageOf(res.body) === `line 2: ${depthMessage}`,
        shown(res),
      );
    }
    const ok = await post(path, `${good}\n`, ndjson);
    check(`${path}: the same lines without it are kept`, ok.status === 200 && ok.body?.errors?.length === 0, shown(ok));
  }
  const stranger = await post("/gateways/telegram/default/scout", deep.array, {}, false);
  check(
    "the Telegram webhook without the secret answers 401 before reading the deep body",
    stranger.status === 401,
    shown(stranger),
  );

  // ---- __proto__, reserved names, providers ----
  const proto = await post("/api/agents", '{"__proto__":{"x":1},"name":"third"}');
  check(
    "a `__proto__` key is a 400 validation_failed with its path, not dropped",
    proto.status === 400 &&
      proto.body?.error?.code === "validation_failed" &&
      JSON.stringify(proto.body?.error?.details?.issues?.[0]?.path) === '["__proto__"]',
    shown(proto),
  );
  const project = await post("/api/projects", JSON.stringify({ slug: "files" }));
  check("a project for the file imports is created", project.status === 201, shown(project));
  const constructorFile = await post(
    "/api/projects/files/import",
    JSON.stringify({ agents: { constructor: { description: "x" } } }),
  );
  check(
    "a project file with an agent named `constructor` is a 400 naming `$.agents.constructor` and the rule (it was a 500)",
    constructorFile.status === 400 &&
      constructorFile.body?.error?.issues?.some(
        (i) => i.path === "$.agents.constructor" && i.message.includes("reserved name"),
      ),
    shown(constructorFile),
  );
  const goodFile = await post(
    "/api/projects/files/import",
    JSON.stringify({ agents: { builder: { description: "x" } } }),
  );
  check(
    "the same file with an ordinary agent name imports",
    goodFile.status === 200 && goodFile.body?.agents?.created?.includes("builder"),
    shown(goodFile),
  );
  const namedConstructor = await post("/api/agents", JSON.stringify({ name: "constructor" }));
  check(
    "POST /api/agents with name `constructor` is a 400 naming `name`",
    namedConstructor.status === 400 &&
      JSON.stringify(namedConstructor.body?.error?.details?.issues?.[0]?.path) === '["name"]',
    shown(namedConstructor),
  );
  const provider = await post(
    "/api/agents",
    JSON.stringify({ name: "fourth", model: { provider: "foo", name: "bar" } }),
  );
  check(
    "an unknown model provider is a 400 at model.provider naming the known ones",
    provider.status === 400 &&
      provider.body?.error?.details?.issues?.[0]?.message?.startsWith(
        "'foo' is not a known provider: use one of openai, anthropic, workers-ai, offline or a provider of project",
      ),
    shown(provider),
  );

  // ---- 413s say the door's own limit ----
  const huge = await post(
    "/agui/agents/scout",
    JSON.stringify({
      threadId: "t",
      runId: "r",
      messages: [{ id: "q", role: "user", content: "x".repeat(8 * 1024 * 1024 + 16) }],
    }),
  );
  check(
    "/agui over 8 MiB is a 413 naming /agui and 8 MiB",
    huge.status === 413 && messageOf(huge.body) === "the request body is larger than 8 MiB: /agui takes at most 8 MiB",
    shown(huge),
  );
  const bigApi = await post("/api/agents", JSON.stringify({ name: "fifth", description: "x".repeat(70 * 1024) }));
  check(
    "/api over 64 KiB is a 413 naming /api and 64 KiB",
    bigApi.status === 413 &&
      messageOf(bigApi.body) === "the request body is larger than 64 KiB: /api takes at most 64 KiB",
    shown(bigApi),
  );

  // ---- 250 memories: every one with its vector, and found ----
  const lines = Array.from({ length: 250 }, (_, i) =>
    JSON.stringify({ kind: "fact", text: `The locker code of room kestrel${i} is ${4000 + i}` }),
  ).join("\n");
  const imported = await post("/api/agents/scout/memories/import", lines, { "content-type": "application/x-ndjson" });
  check(
    "a 250-memory import stores all 250 without a warning",
    imported.status === 200 && imported.body?.imported === 250 && imported.body?.warnings?.length === 0,
    shown(imported),
  );
  const status = await get("/api/agents/scout/memories/status");
  check(
    "every imported memory has its vector",
    status.missingVectors === 0 && status.vectors?.reduce((n, s) => n + s.vectors, 0) >= 250,
    shown(status),
  );
  const found = await get(`/api/agents/scout/memories?q=${encodeURIComponent("locker code room kestrel199")}&limit=3`);
  check(
    "search finds an imported memory",
    found.memories?.[0]?.text === "The locker code of room kestrel199 is 4199",
    shown(found),
  );
  const reembed = await post("/api/agents/scout/memories/reembed", "{}");
  check(
    "reembed works and finds nothing left to do",
    reembed.status === 200 && reembed.body?.warnings?.length === 0,
    shown(reembed),
  );

  const logs = server.output();
  check(
    "no request above ended in a 500 (the server logged no internal error)",
    !/"level":"error","requestId"/.test(logs),
    logs.match(/.*"level":"error".*/)?.[0] ?? "",
  );
} catch (error) {
  check("the hostile-input check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();

// Web Push through a real local stack (wrangler dev): people signed in by invite subscribe their
// device against a loopback push service double that does what a browser's push service and the
// browser do together — checks each push's VAPID JWT (ES256 with the key it names, audience its
// own origin, expiry ahead and within 24 hours) and decrypts the aes128gcm body with the
// subscription's private key (RFC 8291, node:crypto, nothing shared with the worker's code). An
// approval reaches the approver and clears when answered; a reply reaches its person while their
// chat is closed and not while it is open; a feature's task blocked on a worker's question reaches
// the approver; a chat-scope person, a revoked device and another project's person get nothing.
// Prints `N passed, N failed` last. CHECK_PORT picks wrangler's port (default: a free one).
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, until } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-push-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const b64u = (b) => Buffer.from(b).toString("base64url");

/** A browser's subscription: its key pair and auth secret, and what its push service received for it. */
const devices = new Map();
function newDevice(key) {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const device = { key, ecdh, auth: randomBytes(16), pushes: [] };
  devices.set(key, device);
  return device;
}

/** What the browser does with a push: RFC 8291 decryption with the subscription's private key. */
function decrypt(device, body) {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const senderPublic = body.subarray(21, 21 + idlen);
  const shared = device.ecdh.computeSecret(senderPublic);
  const info = Buffer.concat([Buffer.from("WebPush: info\0"), device.ecdh.getPublicKey(), senderPublic]);
  const ikm = Buffer.from(hkdfSync("sha256", shared, device.auth, info, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const record = body.subarray(21 + idlen);
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("no last-record delimiter");
  return JSON.parse(padded.subarray(0, end).toString("utf8"));
}

/** What the push service does first: the VAPID JWT is for it, not expired, signed by the key it names. */
function vapidProblems(authorization, origin) {
  const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(authorization ?? "");
  if (!match) return [`authorization is not VAPID: ${authorization}`];
  const [, head, claims, signature, k] = match;
  const payload = JSON.parse(Buffer.from(claims, "base64url").toString("utf8"));
  const now = Date.now() / 1000;
  const point = Buffer.from(k, "base64url");
  const key = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33, 65)) },
    format: "jwk",
  });
  const signed = verify(
    "sha256",
    Buffer.from(`${head}.${claims}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  return [
    ...(payload.aud === origin ? [] : [`aud ${payload.aud} is not ${origin}`]),
    ...(payload.exp > now && payload.exp <= now + 24 * 3600 ? [] : [`exp ${payload.exp} out of range`]),
    ...(signed ? [] : ["the signature does not verify with k"]),
  ];
}

const pushPort = await freePort();
const pushOrigin = `http://127.0.0.1:${pushPort}`;
const pushService = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const device = devices.get(/^\/push\/([\w-]+)$/.exec(req.url ?? "")?.[1] ?? "");
  if (req.method !== "POST" || !device) {
    res.writeHead(404);
    return res.end();
  }
  const problems = vapidProblems(req.headers.authorization, pushOrigin);
  let notice = null;
  try {
    if (req.headers["content-encoding"] !== "aes128gcm") problems.push("content-encoding is not aes128gcm");
    notice = decrypt(device, Buffer.concat(chunks));
  } catch (error) {
    problems.push(`does not decrypt: ${error.message}`);
  }
  device.pushes.push({ notice, problems, topic: req.headers.topic });
  // RFC 8030: an unauthorized push is refused with 403; a taken one is 201 Created.
  res.writeHead(problems.length ? 403 : 201);
  res.end();
});
await new Promise((resolve) => pushService.listen(pushPort, "127.0.0.1", resolve));

/**
 * The model, an OpenAI-compatible double: a feature's worker asks its question (task.block) first
 * and waits; anything else answers a line (memory extraction an empty list).
 */
const model = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : {};
  const messages = parsed.messages ?? [];
  const afterUser = messages.slice(messages.map((m) => m.role).lastIndexOf("user") + 1);
  const block = parsed.model === "worker-model" && afterUser.length === 0;
  const content = String(messages[0]?.content ?? "").includes("long-term memory") ? '{"memories":[]}' : "ok";
  const message = block
    ? {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_block",
            type: "function",
            function: {
              name: "task__block",
              arguments: JSON.stringify({ question: "Which colour? secret-colour-token" }),
            },
          },
        ],
      }
    : { role: "assistant", content };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const finish_reason = block ? "tool_calls" : "stop";
  if (!parsed.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(
      JSON.stringify({
        id: "c",
        object: "chat.completion",
        model: parsed.model,
        choices: [{ index: 0, message, finish_reason }],
        usage,
      }),
    );
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta, reason = null) =>
    res.write(
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: parsed.model, choices: [{ index: 0, delta, finish_reason: reason }] })}\n\n`,
    );
  chunk(
    block
      ? { role: "assistant", tool_calls: [{ index: 0, ...message.tool_calls[0] }] }
      : { role: "assistant", content },
  );
  chunk({}, finish_reason);
  res.write(
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: parsed.model, choices: [], usage })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
});
await new Promise((resolve) => model.listen(0, "127.0.0.1", resolve));

let server;
try {
  server = await startDevServer({
    port: Number(process.env.CHECK_PORT) || (await freePort()),
    token,
    persistTo,
    vars: {
      PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
      OPENAI_API_KEY: "sk-push-check",
      OPENAI_BASE_URL: `http://127.0.0.1:${model.address().port}/v1`,
    },
  });
  const api = (path, init = {}) => call(server.url, path, init);
  const as = (bearer, path, init = {}) => makeCall(bearer)(server.url, path, init);

  /** A person signed in by invite in `project`, with a subscribed device. */
  async function person(name, scope, project = "default") {
    const headers = { "x-pantheon-project": project };
    if (project !== "default") await api("/api/projects", { method: "POST", body: JSON.stringify({ slug: project }) });
    const invite = await api("/api/invites", { method: "POST", headers, body: JSON.stringify({ name, scope }) });
    const redeemed = await fetch(`${server.url}/api/invites/redeem`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ code: invite.body.code, device: `${name}'s phone` }),
    }).then((r) => r.json());
    const device = newDevice(`${name}-${randomBytes(4).toString("hex")}`);
    const subscribed = await as(redeemed.token, "/api/push/subscriptions", {
      method: "POST",
      headers,
      body: JSON.stringify({
        endpoint: `${pushOrigin}/push/${device.key}`,
        keys: { p256dh: b64u(device.ecdh.getPublicKey()), auth: b64u(device.auth) },
      }),
    });
    check(
      `${name} (${scope}, project ${project}) subscribes a device`,
      subscribed.status === 201,
      JSON.stringify(subscribed),
    );
    return { name, token: redeemed.token, tokenId: redeemed.id, device };
  }

  const key = await api("/api/push/key");
  check(
    "the server serves its VAPID public key",
    key.status === 200 && key.body.enabled && /^B[\w-]{86}$/.test(key.body.publicKey),
    JSON.stringify(key.body),
  );

  const approver = await person("ana", "approve");
  const chatter = await person("bo", "chat");
  const revoked = await person("cy", "approve");
  const stranger = await person("di", "admin", "push-other");
  check(
    "revoking cy's device answers 204",
    (await api(`/api/tokens/${revoked.tokenId}`, { method: "DELETE" })).status === 204,
  );

  await api("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "gated", runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } }),
  });
  const run = await api("/api/agents/gated/messages", {
    method: "POST",
    body: JSON.stringify({ content: "/tool clock.now {}" }),
  });
  check("a run waits for approval", run.body?.status === "waiting_approval", JSON.stringify(run.body));
  await until("ana's approval notice", () => approver.device.pushes.length, { ok: (n) => n >= 1, ms: 20_000 });
  const [first] = approver.device.pushes;
  check(
    "ana's push passes the push service's VAPID check and decrypts with her device's key",
    first.problems.length === 0,
    JSON.stringify(first.problems),
  );
  check(
    "it is the approval: title, one line, the link to that run and its tag",
    first.notice?.title === "gated asks to use clock.now" &&
      first.notice?.url === `/#/agents/gated/runs/${run.body.runId}` &&
      first.notice?.tag === `approval:${run.body.runId}` &&
      first.topic?.length === 32,
    JSON.stringify(first),
  );
  check(
    "a chat-scope person, a revoked device and another project's admin got nothing (same batch as ana's)",
    chatter.device.pushes.length === 0 && revoked.device.pushes.length === 0 && stranger.device.pushes.length === 0,
    JSON.stringify([chatter.device.pushes, revoked.device.pushes, stranger.device.pushes]),
  );

  const pending = await api(`/api/agents/gated/runs/${run.body.runId}`);
  await as(approver.token, `/api/agents/gated/runs/${run.body.runId}/approval`, {
    method: "POST",
    body: JSON.stringify({ decision: "approve", callId: pending.body.run.pending[0].callId }),
  });
  await until("the clearing notice", () => approver.device.pushes.length, { ok: (n) => n >= 2, ms: 20_000 });
  check(
    "answered, the approval's notice is cleared on ana's device",
    approver.device.pushes[1].notice?.clear === true &&
      approver.device.pushes[1].notice?.tag === `approval:${run.body.runId}`,
    JSON.stringify(approver.device.pushes[1]),
  );

  // A reply: none while bo's chat is open on a socket, one when it is closed.
  await api("/api/agents", { method: "POST", body: JSON.stringify({ name: "helper" }) });
  const socket = new WebSocket(
    `${server.url.replace("http", "ws")}/agents/agent-do/default.helper?token=${chatter.token}`,
  );
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  await as(chatter.token, "/api/agents/helper/messages", {
    method: "POST",
    body: JSON.stringify({ content: "while I look" }),
  });
  socket.close();
  await until("the socket to close", () => socket.readyState, { ok: (s) => s === WebSocket.CLOSED, every: 20 });
  const second = await as(chatter.token, "/api/agents/helper/messages", {
    method: "POST",
    body: JSON.stringify({ content: "phone locked" }),
  });
  await until("bo's reply notice", () => chatter.device.pushes.length, { ok: (n) => n >= 1, ms: 20_000 });
  check(
    "the reply while bo's chat was closed is pushed to him, decrypted and signed right; the one while it was open is not",
    chatter.device.pushes.length === 1 &&
      chatter.device.pushes[0].problems.length === 0 &&
      chatter.device.pushes[0].notice?.tag === `reply:${second.body.sessionId}` &&
      chatter.device.pushes[0].notice?.body.length <= 120,
    JSON.stringify(chatter.device.pushes),
  );

  // A feature's task blocked on its worker's question: the approver is told (the question itself is
  // read in the app), a chat-scope person and a revoked device are not.
  const feature = "paint";
  await api("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "planner", runtime: { tools: ["plan.write", "plan.read", "tasks.sync", "status"] } }),
  });
  const steps = [
    await api("/api/features", {
      method: "POST",
      body: JSON.stringify({
        name: feature,
        title: "Paint",
        orchestrator: "planner",
        worker: { model: { provider: "openai", name: "worker-model" } },
      }),
    }),
    await api(`/api/features/${feature}/plan`, {
      method: "PUT",
      body: JSON.stringify({ markdown: "# Paint\n\n## Tasks\n1. Ask — ask which colour first\n" }),
    }),
    await api(`/api/features/${feature}/plan/approve`, { method: "POST", body: "{}" }),
    await api(`/api/features/${feature}/tasks/sync`, { method: "POST" }),
    await api(`/api/features/${feature}/run-all`, { method: "POST" }),
  ];
  check(
    "a feature is made, its plan approved, its task synced and run-all started",
    steps.map((r) => r.status).join() === "201,200,200,200,202",
    JSON.stringify(steps.map((r) => [r.status, r.body])),
  );
  const taskTag = `task:${feature}:1`;
  const blocked = await until(
    "ana's blocked-task notice",
    () => approver.device.pushes.find((p) => p.notice?.tag === taskTag),
    { ok: Boolean, ms: 60_000 },
  );
  check(
    "the blocked task reaches ana, signed and decrypted right: its title, line and link, not the question",
    blocked.problems.length === 0 &&
      blocked.notice.title === `${feature}: task 1 (ask) is blocked` &&
      blocked.notice.body === "It waits for your answer." &&
      blocked.notice.url === `/#/features/${feature}/tasks/1` &&
      !JSON.stringify(blocked.notice).includes("secret-colour-token"),
    JSON.stringify(blocked),
  );
  check(
    "a chat-scope person, a revoked device and another project's admin got no task notice",
    [chatter, revoked, stranger].every((p) => !p.device.pushes.some((x) => x.notice?.tag?.startsWith("task:"))),
    JSON.stringify([chatter.device.pushes, revoked.device.pushes, stranger.device.pushes]),
  );
} catch (error) {
  check("the push check ran to the end", false, error?.stack ?? String(error));
} finally {
  await server?.stop();
  pushService.close();
  model.close();
  await rm(persistTo, { recursive: true, force: true });
}
finish();

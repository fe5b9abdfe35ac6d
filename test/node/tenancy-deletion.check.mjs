// Issue 26, items 3 and 5, as a user meets them on a real local stack (wrangler dev): two projects,
// real WebSockets (Node's global WebSocket, the browser's API) on their agents. Deleting project b
// closes b's socket by the time DELETE answers; b made again with the same agent reaches neither
// the old socket nor one opened with b's old token; a's socket hears a's runs throughout. Then an
// HTTP tool whose loopback endpoint echoes its secret header back encoded (base64, hex, reversed,
// spaced, percent-encoded): the run's trace, read with a chat token, holds none of them, and the
// rest of the tool's answer is there. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, until } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const secret = `echo-key-${randomBytes(9).toString("hex")}`;
const { check, finish } = makeChecks();
const call = makeCall(token);
const shown = (value) => JSON.stringify(value)?.slice(0, 900);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The tool's endpoint: echoes the secret header it was sent, in every encoding issue 26 names.
const echo = createServer((req, res) => {
  const key = String(req.headers["x-api-key"] ?? "");
  res.setHeader("content-type", "application/json");
  res.end(
    JSON.stringify({
      base64: Buffer.from(key).toString("base64"),
      embedded: Buffer.from(`{"note":"k=${key}"}`).toString("base64"),
      base64url: Buffer.from(`x${key}`).toString("base64url"),
      hex: Buffer.from(key).toString("hex").toUpperCase(),
      reversed: [...key].reverse().join(""),
      spaced: [...key].join(" "),
      dashed: [...key].join("-"),
      percent: [...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(""),
      marker: "weather-is-sunny-marker",
    }),
  );
});
await new Promise((resolve) => echo.listen(0, "127.0.0.1", resolve));
const echoUrl = `http://127.0.0.1:${echo.address().port}/echo`;

/** A WebSocket on an agent, as the PWA opens one: frames and the close (with when it came). */
function watch(url, agent, project, socketToken) {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/agents/agent-do/${project}.${agent}?token=${socketToken}`);
  const seen = { frames: [], closed: null, opened: false, error: false, ws };
  ws.addEventListener("open", () => (seen.opened = true));
  ws.addEventListener("error", () => (seen.error = true));
  ws.addEventListener("message", (event) => seen.frames.push(JSON.parse(String(event.data))));
  ws.addEventListener("close", (event) => (seen.closed = { code: event.code, reason: event.reason }));
  return seen;
}
/** Whether `test` holds within 5 s (a false answer is checked, not thrown). */
const holdsSoon = (test) =>
  until("a socket's state", test, { ms: 5000, every: 20 }).then(
    () => true,
    () => false,
  );
const runEvents = (seen) => seen.frames.filter((f) => f.type === "run_event");
const doneCount = (seen) => runEvents(seen).filter((f) => f.event.type === "done").length;

const persistTo = await mkdtemp(join(tmpdir(), "pantheon-deletion-"));
let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token,
    persistTo,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const as = (project, path, init = {}) =>
    call(server.url, path, { ...init, headers: { "x-pantheon-project": project, ...init.headers } });
  const chat = (project, agent, content, with_ = {}) =>
    as(project, `/api/agents/${agent}/messages`, { method: "POST", body: JSON.stringify({ content }), ...with_ });

  for (const project of ["tenant-a", "tenant-b"]) {
    const made = await call(server.url, "/api/projects", { method: "POST", body: JSON.stringify({ slug: project }) });
    const agent = await as(project, "/api/agents", {
      method: "POST",
      body: JSON.stringify({ name: "helper", description: "helps" }),
    });
    check(
      `project ${project} and its agent 'helper' are made`,
      made.status === 201 && agent.status === 201,
      shown({ made, agent }),
    );
  }
  const bChat = await as("tenant-b", "/api/tokens", {
    method: "POST",
    body: JSON.stringify({ name: "phone", scope: "chat" }),
  });

  // ---- deletion ends access at once -------------------------------------------------------
  const oldB = watch(server.url, "helper", "tenant-b", token);
  const oldBChat = watch(server.url, "helper", "tenant-b", bChat.body.token);
  const aSocket = watch(server.url, "helper", "tenant-a", token);
  await holdsSoon(() => oldB.opened && oldBChat.opened && aSocket.opened);
  await chat("tenant-b", "helper", "hello from the first b");
  const heardBefore = await holdsSoon(() => doneCount(oldB) >= 1 && doneCount(oldBChat) >= 1);
  check(
    "b's sockets (admin and chat token) hear b's run",
    heardBefore,
    shown({ admin: runEvents(oldB).length, chat: runEvents(oldBChat).length }),
  );

  const deleted = await call(server.url, "/api/projects/tenant-b", { method: "DELETE" });
  // Read the moment DELETE answers. CLOSING: the agent's close frame has arrived, nothing can follow
  // it. (Through wrangler dev's proxy the TCP connection, and so the `close` event with its code,
  // lingers until the proxy drops it; test/security/deletion.test.ts checks code 4410 and the reason
  // inside workerd.)
  const statesAtAnswer = { admin: oldB.ws.readyState, chat: oldBChat.ws.readyState };
  check("DELETE /api/projects/tenant-b answers 204", deleted.status === 204, shown(deleted));
  check(
    "b's sockets are closing (the agent's close frame received) by the time DELETE answers",
    [statesAtAnswer.admin, statesAtAnswer.chat].every(
      (state) => state === WebSocket.CLOSING || state === WebSocket.CLOSED,
    ),
    shown(statesAtAnswer),
  );
  check("a's socket stays open across b's deletion", aSocket.closed === null, shown(aSocket.closed));

  const heard = { admin: oldB.frames.length, chat: oldBChat.frames.length };
  await call(server.url, "/api/projects", { method: "POST", body: JSON.stringify({ slug: "tenant-b" }) });
  const again = await as("tenant-b", "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "helper", description: "the new tenant's helper" }),
  });
  const withOldToken = watch(server.url, "helper", "tenant-b", bChat.body.token);
  const newB = watch(server.url, "helper", "tenant-b", token);
  await holdsSoon(() => newB.opened && (withOldToken.closed || withOldToken.error));
  const turn = await chat("tenant-b", "helper", "the new tenant speaks: marmalade-otter");
  const newHeard = await holdsSoon(() => doneCount(newB) >= 1);
  await sleep(300);
  check(
    "b made again, with an agent of the same name, runs a chat turn its own socket hears",
    again.status === 201 && turn.status === 200 && newHeard,
    shown({ again: again.status, turn: turn.status, frames: runEvents(newB).length }),
  );
  check(
    "the old sockets got nothing of the new b (no frame after the close)",
    oldB.frames.length === heard.admin &&
      oldBChat.frames.length === heard.chat &&
      !JSON.stringify([oldB.frames, oldBChat.frames]).includes("marmalade-otter"),
    shown({ heard, now: { admin: oldB.frames.length, chat: oldBChat.frames.length } }),
  );
  check(
    "a socket opened with b's old chat token is refused and gets nothing",
    !withOldToken.opened && withOldToken.frames.length === 0,
    shown({ opened: withOldToken.opened, frames: withOldToken.frames.length, closed: withOldToken.closed }),
  );
  const oldTokenApi = await as("tenant-b", "/api/agents/helper/messages", {
    headers: { authorization: `Bearer ${bChat.body.token}` },
  });
  check("b's old chat token is refused by the API too (401)", oldTokenApi.status === 401, shown(oldTokenApi));

  const aBefore = doneCount(aSocket);
  await chat("tenant-a", "helper", "a is still here");
  check(
    "positive control: a's socket hears a's run after b's deletion",
    await holdsSoon(() => doneCount(aSocket) > aBefore),
    shown(runEvents(aSocket).slice(-2)),
  );
  for (const s of [aSocket, newB, withOldToken]) s.ws.close();

  // ---- the trace holds no encoding of a tool's secret --------------------------------------
  // The secret is tenant-a's own (project secrets): set over the API, opened only inside its agent.
  const stored = await as("tenant-a", "/api/projects/tenant-a/secrets/ECHO_KEY", {
    method: "PUT",
    body: JSON.stringify({ value: secret }),
  });
  check("tenant-a's secret ECHO_KEY is set", stored.status === 200 || stored.status === 201, shown(stored));
  const tool = {
    name: "echo.key",
    description: "echoes its key",
    endpoint: echoUrl,
    headers: { "X-Api-Key": { secret: "ECHO_KEY" } },
  };
  const echoer = await as("tenant-a", "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "echoer", runtime: { tools: [], allowHosts: ["127.0.0.1"], httpTools: [tool] } }),
  });
  check("an agent with an HTTP tool that sends the secret ECHO_KEY is made", echoer.status === 201, shown(echoer));
  const aChat = await as("tenant-a", "/api/tokens", {
    method: "POST",
    body: JSON.stringify({ name: "reader", scope: "chat" }),
  });
  const ran = await chat("tenant-a", "echoer", "/tool echo.key {}", {
    headers: { authorization: `Bearer ${aChat.body.token}` },
  });
  const run = await as("tenant-a", `/api/agents/echoer/runs/${ran.body?.runId}`, {
    headers: { authorization: `Bearer ${aChat.body.token}` },
  });
  const text = JSON.stringify([run.body, ran.body]);
  const forms = {
    plain: secret,
    base64: Buffer.from(secret).toString("base64").replace(/=+$/, ""),
    hex: Buffer.from(secret).toString("hex"),
    HEX: Buffer.from(secret).toString("hex").toUpperCase(),
    reversed: [...secret].reverse().join(""),
    spaced: [...secret].join(" "),
    dashed: [...secret].join("-"),
    percent: [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(""),
    embedded: Buffer.from(`{"note":"k=${secret}"}`).toString("base64").slice(12, 40),
    base64url: Buffer.from(`x${secret}`).toString("base64url").slice(4, 30),
  };
  check(
    "the run read with a chat token answers 200 and carries the tool's result",
    run.status === 200 && text.includes("weather-is-sunny-marker"),
    shown({ status: run.status, ran: ran.status, text: text.slice(0, 600) }),
  );
  const found = Object.entries(forms)
    .filter(([, form]) => text.includes(form))
    .map(([name]) => name);
  check(
    "no form of the secret is in the trace or the reply (plain, base64, embedded, base64url, hex, reversed, spaced, dashed, percent)",
    found.length === 0,
    shown({ found }),
  );
  check("the trace says where it redacted", text.includes("[redacted]"), text.slice(0, 300));
} catch (error) {
  check("the check ran to the end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop?.();
  echo.close();
  await rm(persistTo, { recursive: true, force: true });
}
finish();

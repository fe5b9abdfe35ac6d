// The non-HTTP-API doors of test/node/doors.check.mjs, against `wrangler dev`: the agent's WebSocket
// (PartySocket, as the PWA connects), the Telegram webhook (with a loopback Bot API double), the
// email entry (wrangler's /cdn-cgi/handler/email, which calls the worker's `email` handler) and the
// scheduled handler (the docs' own curl of /cdn-cgi/handler/scheduled, docs/behaviors.md). Each asserts the agent's
// answer and the run behind it, read back over /api.
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import PartySocket from "partysocket";
import PostalMime from "postal-mime";
import { documentationText } from "../readme-commands.mjs";

export const telegramBotToken = "123456789:doors-check-bot-AAbbCCdd";

/**
 * A loopback double of the Telegram Bot API (the gateway's TELEGRAM_API_BASE): it records every
 * `POST /bot<token>/<method>` and answers as Telegram does (401 for another bot token).
 */
export async function startTelegramDouble() {
  const calls = [];
  let messageId = 1000;
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? "");
    if (req.method !== "POST" || !match) return send(404, { ok: false, error_code: 404, description: "Not Found" });
    const body = JSON.parse(raw || "{}");
    calls.push({ token: match[1], method: match[2], body });
    if (match[1] !== telegramBotToken) return send(401, { ok: false, error_code: 401, description: "Unauthorized" });
    if (match[2] === "sendMessage")
      return send(200, { ok: true, result: { message_id: ++messageId, chat: { id: body.chat_id }, text: body.text } });
    return send(200, { ok: true, result: true });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    calls,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Polls `read` until `done(value)` or the time is up; the last value either way. */
export async function eventually(read, done, ms = 30_000) {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    value = await read();
  }
  return value;
}

/** The agent's WebSocket as the PWA opens it (PartySocket, /agents/agent-do/<project>.<agent>): a run's events arrive live. */
export async function socketDoor({ url, token, api, check, shown, runOf }) {
  const { host } = new URL(url);
  const frames = [];
  const socket = new PartySocket({
    party: "agent-do",
    prefix: "agents",
    room: "default.scout",
    host,
    protocol: "ws",
    query: { token },
    maxRetries: 0,
  });
  socket.addEventListener("message", (event) => {
    try {
      frames.push(JSON.parse(String(event.data)));
    } catch {}
  });
  try {
    const opened = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), 15_000);
      socket.addEventListener("open", () => (clearTimeout(timer), resolve(true)));
      socket.addEventListener("close", () => (clearTimeout(timer), resolve(false)));
    });
    check(
      "socket (PartySocket): the agent's WebSocket opens with a chat token in the query, as the PWA connects",
      opened,
      shown(frames),
    );

    const sent = (
      await api("/api/agents/scout/messages", {
        method: "POST",
        body: JSON.stringify({ content: "What is the launch code word?" }),
      })
    ).body;
    const ofRun = () => frames.filter((f) => f.type === "run_event" && f.runId === sent?.runId).map((f) => f.event);
    const events = await eventually(
      async () => ofRun(),
      (e) => e.some((x) => x.type === "done"),
      15_000,
    );
    const streamed = events
      .filter((e) => e.type === "token")
      .map((e) => e.text)
      .join("");
    const done = events.find((e) => e.type === "done");
    const run = await runOf("scout", sent?.runId);
    check(
      "socket (PartySocket): a turn sent over the API streams to the socket as run events, the tokens adding up to the run's reply",
      /pineapple/i.test(streamed) &&
        done?.status === "completed" &&
        done.reply?.content === streamed &&
        run?.reply === streamed &&
        frames.some((f) => f.type === "cf_agent_state"),
      shown({ sent, events, run: run?.run }),
    );
  } finally {
    socket.close();
  }

  const refused = await new Promise((resolve) => {
    const bad = new PartySocket({
      party: "agent-do",
      prefix: "agents",
      room: "default.scout",
      host,
      protocol: "ws",
      query: { token: "pa_not-a-token" },
      maxRetries: 0,
    });
    const timer = setTimeout(() => (bad.close(), resolve("still connecting")), 10_000);
    bad.addEventListener("open", () => (clearTimeout(timer), bad.close(), resolve("open")));
    bad.addEventListener("error", () => (clearTimeout(timer), bad.close(), resolve("refused")));
  });
  check("socket (PartySocket): a wrong token never opens the agent's socket", refused === "refused", refused);
}

let updateId = 1;
const telegramMessage = (chat, text) => ({
  update_id: updateId++,
  message: {
    message_id: updateId,
    date: 1,
    chat: { id: chat, type: "private", first_name: "Ann" },
    from: { id: 42, is_bot: false, first_name: "Ann" },
    text,
  },
});

/** The Telegram webhook, as Telegram calls it (the secret header it was given), answered through the Bot API double. */
export async function telegramDoor({ url, api, check, shown, runOf, telegram }) {
  const put = await api("/api/agents/courier/gateways/telegram", {
    method: "PUT",
    body: JSON.stringify({ botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [42] }),
  });
  const hooked = await api("/api/agents/courier/gateways/telegram/webhook", {
    method: "POST",
    body: JSON.stringify({ url: "https://bot.example.com/" }),
  });
  const registered = telegram.calls.findLast((c) => c.method === "setWebhook");
  const secret = registered?.body.secret_token;
  check(
    "telegram: set-webhook gives the Bot API double the webhook URL and a secret token",
    put.status === 200 &&
      hooked.status === 200 &&
      registered?.body.url === "https://bot.example.com/gateways/telegram/default/courier" &&
      typeof secret === "string",
    shown({ put, hooked, registered }),
  );

  const post = (headers, body) =>
    fetch(`${url}/gateways/telegram/default/courier`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const forged = await post(
    { "x-telegram-bot-api-secret-token": "not-the-secret" },
    telegramMessage(501, "What is the launch code word?"),
  );
  check(
    "telegram: an update without the right secret header is refused (401) and starts no run",
    forged.status === 401 && (await runsOf(api, "courier")).length === 0,
    String(forged.status),
  );

  const res = await post(
    { "x-telegram-bot-api-secret-token": secret },
    telegramMessage(502, "What is the launch code word?"),
  );
  const accepted = await res.json().catch(() => null);
  const replies = await eventually(
    async () => telegram.calls.filter((c) => c.method === "sendMessage" && c.body.chat_id === 502),
    (c) => c.length > 0,
  );
  const [run] = await eventually(
    () => runsOf(api, "courier"),
    (r) => r[0]?.status === "completed",
  );
  const view = await runOf("courier", run?.id);
  check(
    "telegram: a chat message becomes a run of the agent, and its reply goes back to that chat with sendMessage",
    res.status === 200 &&
      accepted?.ok === true &&
      replies[0]?.token === telegramBotToken &&
      /pineapple/i.test(replies[0]?.body.text ?? "") &&
      view?.run.status === "completed" &&
      replies[0].body.text.includes(view.reply),
    shown({ accepted, replies, view }),
  );
}

const runsOf = async (api, agent) => (await api(`/api/agents/${agent}/runs`)).body?.runs ?? [];

function mail({ from, to, subject, body }) {
  return [
    `From: Ann <${from}>`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${crypto.randomUUID()}@mail.example.com>`,
    `Date: ${new Date().toUTCString()}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    body,
  ].join("\r\n");
}

/**
 * The email entry: wrangler dev's `/cdn-cgi/handler/email?from=…&to=…` hands the raw message to the
 * worker's `email` handler as Email Routing would. As documented it answers in words (200, or 400
 * with the handler's rejection); with `format=json` (wrangler's Local Explorer form) it also gives
 * the replies the handler sent, captured locally.
 */
export async function emailDoor({ url, api, check, shown, runOf }) {
  const put = await api("/api/agents/postie/gateways/email", {
    method: "PUT",
    body: JSON.stringify({ allowedSenders: ["ann@example.com"] }),
  });
  const deliver = async (from, subject, format = "") => {
    const res = await fetch(
      `${url}/cdn-cgi/handler/email?from=${encodeURIComponent(from)}&to=postie@agents.example.com${format}`,
      {
        method: "POST",
        body: mail({ from, to: "postie@agents.example.com", subject, body: "What is the launch code word?" }),
      },
    );
    const text = await res.text();
    return { status: res.status, text, body: format ? JSON.parse(text) : null };
  };

  const stranger = await deliver("mallory@example.com", "Let me in");
  check(
    "email: mail from a sender not on the agent's allowlist is rejected by the worker, naming why, and starts no run",
    put.status === 200 &&
      stranger.status === 400 &&
      /rejected email.*sender is not allowed/.test(stranger.text) &&
      (await runsOf(api, "postie")).length === 0,
    shown({ put, stranger }),
  );

  const answered = await deliver("ann@example.com", "Launch", "&format=json");
  const reply = answered.body?.replies?.[0]?.raw ? await PostalMime.parse(answered.body.replies[0].raw) : null;
  const [run] = await eventually(
    () => runsOf(api, "postie"),
    (r) => r[0]?.status === "completed",
  );
  const view = await runOf("postie", run?.id);
  check(
    "email: an allowlisted sender's mail becomes a run of the agent, answered by a reply mail carrying the run's reply",
    answered.status === 200 &&
      answered.body?.outcome === "ok" &&
      reply?.subject === "Re: Launch" &&
      /pineapple/i.test(reply?.text ?? "") &&
      view?.run.status === "completed" &&
      reply.text.includes(view.reply.trim()),
    shown({ answered: answered.body, reply: reply && { subject: reply.subject, text: reply.text }, view: view?.run }),
  );
}

function sh(command) {
  return new Promise((resolve) =>
    execFile("sh", ["-c", command], { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/**
 * The scheduled handler through the docs' own command (`curl …/cdn-cgi/handler/scheduled?cron=…`,
 * on this server's port): it wakes an agent's cron behavior, which runs, and the doctor sees the tick.
 */
export async function scheduledDoor({ url, root, api, check, shown }) {
  const readme = documentationText(root); // docs/behaviors.md today
  const written = /`(curl "http:\/\/localhost:8787\/cdn-cgi\/handler\/scheduled\?cron=[^"`]*")`/.exec(readme)?.[1];
  check(
    "scheduled: the docs give the curl that fires the Cron Trigger locally (/cdn-cgi/handler/scheduled)",
    Boolean(written),
    "no such command in README.md or docs/",
  );
  if (!written) return;

  const cronRuns = async () => (await runsOf(api, "herald")).filter((r) => r.trigger === "behavior:work/tick");
  const before = await cronRuns();
  const fired = await sh(written.replace("http://localhost:8787", url));
  const runs = await eventually(cronRuns, (r) => r[0]?.status === "completed");
  const view = runs[0] ? (await api(`/api/agents/herald/runs/${runs[0].id}`)).body : null;
  const called = view?.trace?.find((s) => s.name === "tool_result");
  check(
    "scheduled: the docs' curl runs the scheduled handler, which runs the agent's cron behavior (its plan's tool ran)",
    before.length === 0 &&
      fired.code === 0 &&
      !/<html/i.test(fired.stdout) &&
      runs.length === 1 &&
      runs[0].status === "completed" &&
      called?.data?.ok === true &&
      /\d{4}-\d{2}-\d{2}T/.test(called.data.output ?? ""),
    shown({ written, fired, runs, trace: view?.trace?.map((s) => s.name) }),
  );
  const schedules = (await api("/api/agents/herald/schedules")).body?.schedules ?? [];
  const doctor = (await api("/api/health?detail=1")).body;
  const cron = doctor?.checks?.find((c) => c.id === "cron");
  check(
    "scheduled: the tick is recorded: the behavior's last run completed, and the doctor's cron check saw the trigger fire",
    schedules.some((s) => s.trigger === "cron * * * * *" && s.lastStatus === "completed") && cron?.status === "ok",
    shown({ schedules, cron }),
  );
}

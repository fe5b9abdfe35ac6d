// The `pantheon doctor` and `pantheon gateway` commands against a recorded fake of the HTTP API
// (no server): the requests they make, what they print, and their exit codes. The real API is
// covered by the workerd tests and test/node/production-model.check.mjs.
import { createServer } from "node:http";
import { makeChecks, makeCli } from "./check-kit.mjs";

const { check, finish } = makeChecks();
const requests = [];
let doctorReport;

const server = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  requests.push({
    method: req.method,
    url: req.url,
    body: body ? JSON.parse(body) : null,
    auth: req.headers.authorization,
  });
  const send = (status, value) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  };
  if (req.url === "/api/health?detail=1") return send(200, doctorReport);
  if (req.url === "/api/agents/scout/gateways/telegram" && req.method === "PUT")
    return send(200, {
      botTokenSecret: "TELEGRAM_BOT_TOKEN",
      botTokenPresent: false,
      allowedChatIds: null,
      approverUserIds: [7, 8],
      secretTokenSet: true,
      webhookPath: "/gateways/telegram/default/scout",
    });
  if (req.url === "/api/agents/scout/gateways/telegram/webhook")
    return send(200, { ok: true, webhookUrl: "https://p.example/gateways/telegram/default/scout" });
  if (req.url === "/api/agents/scout/gateways/email" && req.method === "PUT")
    return send(200, { allowedSenders: ["ann@example.com"], address: "scout@<your Email Routing domain>" });
  return send(404, { error: { code: "not_found", message: "no such thing" } });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}`;

/** `pantheon <args>` against the fake (the real CLI in a child process; PANTHEON_PROJECT and XDG_CONFIG_HOME as the shell has them). */
const cli = makeCli({ url, token: "pa_admin", cwd: "/", timeoutMs: 30_000 });
const shown = (r) => JSON.stringify({ code: r.code, stdout: r.stdout.slice(0, 600), stderr: r.stderr.slice(0, 400) });

const check1 = {
  id: "secret:OPENAI_API_KEY",
  area: "secrets",
  status: "problem",
  message: "OPENAI_API_KEY is not set but agents scout use openai: their runs fail",
  fix: "npx wrangler secret put OPENAI_API_KEY --env production",
};
const agents = [
  {
    name: "scout",
    resolvedModel: {
      provider: "openai",
      name: "gpt-4o-mini",
      status: "unavailable",
      reason:
        "provider 'openai' needs the secret OPENAI_API_KEY: npx wrangler secret put OPENAI_API_KEY --env production",
    },
  },
];
doctorReport = {
  ok: false,
  deployment: "production",
  version: "0.1.0",
  summary: { ok: 1, warn: 0, problem: 1 },
  checks: [
    check1,
    { id: "binding:AGENT_DO", area: "durable-objects", status: "ok", message: "AGENT_DO (AgentDO) is bound" },
  ],
  agents,
};
const sick = await cli(["doctor"]);
check(
  "doctor exits 1 on a problem and prints it with its fix",
  sick.code === 1 &&
    sick.stdout.includes("PROBLEM  secret:OPENAI_API_KEY") &&
    sick.stdout.includes("fix: npx wrangler secret put OPENAI_API_KEY --env production") &&
    !sick.stdout.includes("binding:AGENT_DO"),
  shown(sick),
);
check(
  "doctor shows what each agent's model resolves to",
  /scout\s+openai:gpt-4o-mini\s+unavailable/.test(sick.stdout),
  shown(sick),
);
check(
  "doctor sends the token to GET /api/health?detail=1",
  requests.at(-1)?.url === "/api/health?detail=1" && requests.at(-1)?.auth === "Bearer pa_admin",
  JSON.stringify(requests.at(-1)),
);
const all = await cli(["doctor", "--all"]);
check("doctor --all lists passed checks too", all.stdout.includes("binding:AGENT_DO"), shown(all));
doctorReport = {
  ...doctorReport,
  ok: true,
  summary: { ok: 2, warn: 0, problem: 0 },
  checks: [{ ...check1, status: "ok", message: "OPENAI_API_KEY is set" }],
};
const healthy = await cli(["doctor"]);
check("doctor exits 0 when healthy", healthy.code === 0 && healthy.stdout.includes("No problems."), shown(healthy));
const asJson = await cli(["doctor", "--json"]);
check("doctor --json prints the report", asJson.code === 0 && JSON.parse(asJson.stdout).ok === true, shown(asJson));

const set = await cli(["gateway", "telegram", "set", "scout", "--approvers", "7, 8"]);
check(
  "gateway telegram set PUTs the config and says what is missing",
  set.code === 0 &&
    JSON.stringify(requests.at(-1)) ===
      JSON.stringify({
        method: "PUT",
        url: "/api/agents/scout/gateways/telegram",
        body: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [7, 8] },
        auth: "Bearer pa_admin",
      }) &&
    set.stdout.includes("npx wrangler secret put TELEGRAM_BOT_TOKEN --env production"),
  `${shown(set)} ${JSON.stringify(requests.at(-1))}`,
);
const hook = await cli(["gateway", "telegram", "set-webhook", "scout", "--public-url", "https://p.example"]);
check(
  "gateway telegram set-webhook asks the server to call setWebhook",
  hook.code === 0 &&
    requests.at(-1)?.url === "/api/agents/scout/gateways/telegram/webhook" &&
    requests.at(-1)?.body?.url === "https://p.example" &&
    hook.stdout.includes("https://p.example/gateways/telegram/default/scout"),
  shown(hook),
);
const viaUrl = await cli(["gateway", "telegram", "set-webhook", "scout", "--url", url]);
check(
  "set-webhook --url <server> makes that server's URL the webhook base (and says Telegram wants https)",
  viaUrl.code === 0 && requests.at(-1)?.body?.url === url && viaUrl.stderr.includes("Telegram calls only https URLs"),
  shown(viaUrl),
);
const mail = await cli(["gateway", "email", "set", "scout", "--senders", "ann@example.com"]);
check(
  "gateway email set PUTs the allowlist",
  mail.code === 0 && JSON.stringify(requests.at(-1)?.body) === JSON.stringify({ allowedSenders: ["ann@example.com"] }),
  shown(mail),
);
const typo = await cli(["gateway", "telegram", "set", "scout", "--approvers", "me"]);
check(
  "a mistyped id is a usage error (exit 2) naming the option",
  typo.code === 2 && typo.stderr.includes("--approvers takes Telegram ids"),
  shown(typo),
);
const noAgent = await cli(["gateway", "telegram", "set-webhook"]);
check(
  "set-webhook without an agent is a usage error",
  noAgent.code === 2 && noAgent.stderr.includes("name the agent"),
  shown(noAgent),
);
const missing = await cli(["gateway", "telegram", "show", "ghost"]);
check(
  "an API refusal exits 1 with its message",
  missing.code === 1 && missing.stderr.includes("no such thing"),
  shown(missing),
);

server.close();
finish();

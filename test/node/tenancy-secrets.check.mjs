// Two tenants on one real local stack (wrangler dev): projects a and b, each with its own admin
// token, its own secrets (set through the real `pantheon secrets set`, value on stdin), its own HTTP
// tool pointed at a loopback echo server run here, and a Telegram bot on a Bot API stand-in run
// here (TELEGRAM_API_BASE). b's admin tries a's secrets and a's bot; every refusal sits beside its
// positive control (a's own use works). Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";

const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-tenancy-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 600);

/** A loopback server recording each request: the echo endpoint of the tools, and the Bot API stand-in. */
async function recorder(answer) {
  const seen = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method, path: req.url, headers: req.headers, body });
    const [status, value] = answer(req.url ?? "/", body);
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(value));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
const echo = await recorder(() => [200, { ok: true }]);
const botApi = await recorder((path) =>
  /^\/bot[^/]+\/setWebhook$/.test(path)
    ? [200, { ok: true, result: true }]
    : [404, { ok: false, description: "Not Found" }],
);

const aValue = `a-airtable-${randomBytes(8).toString("hex")}`;
const bValue = `b-own-${randomBytes(8).toString("hex")}`;
const aBot = `111:${randomBytes(10).toString("hex")}`;
const defaultBot = `100:${randomBytes(10).toString("hex")}`;
const deploymentAirtable = `deployment-airtable-${randomBytes(6).toString("hex")}`;

/** `pantheon <args>` as an operator runs it (the real CLI in a child process), stdin piped and ended (empty unless `input`). */
const cli = makeCli({
  url: () => server.url,
  project: "",
  cwd: persistTo,
  configHome: join(persistTo, "config"),
  input: "",
});

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token: deploymentToken,
    persistTo,
    vars: {
      PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
      TELEGRAM_API_BASE: botApi.url,
      TELEGRAM_BOT_TOKEN: defaultBot,
      AIRTABLE_KEY: deploymentAirtable,
      PANTHEON_TOOL_SECRETS: "AIRTABLE_KEY",
    },
  });
  const call = makeProjectCall(server.url);
  const tenant = (slug) => makeTenant(call, deploymentToken, slug);
  const a = await tenant("a");
  const b = await tenant("b");
  check(
    "the deployment admin made projects a and b, each with an admin token of its own",
    a.token?.startsWith("pt_") && b.token?.startsWith("pt_"),
    shown({ a: a.token, b: b.token }),
  );

  // --- secrets through the real CLI ----------------------------------------------------------
  const setA = await cli(["secrets", "set", "AIRTABLE_KEY", "--project", "a"], {
    token: a.token,
    input: `${aValue}\n`,
  });
  check(
    "pantheon secrets set reads the value from stdin and never prints it",
    setA.code === 0 &&
      /Set AIRTABLE_KEY in project a \(fingerprint [0-9a-f]{8}\)/.test(setA.stdout) &&
      !setA.stdout.includes(aValue) &&
      !setA.stderr.includes(aValue),
    shown(setA),
  );
  const setB = await cli(["secrets", "set", "B_KEY", "--project", "b"], { token: b.token, input: bValue });
  check("b sets its own secret the same way", setB.code === 0, shown(setB));
  const asArg = await cli(["secrets", "set", "AIRTABLE_KEY", "leaked-on-the-command-line", "--project", "a"], {
    token: a.token,
  });
  check(
    "a value given as an argument is refused (exit 2), and nothing is set",
    asArg.code === 2 && asArg.stderr.includes("the value is never an argument"),
    shown(asArg),
  );
  const listA = await cli(["secrets", "list", "--project", "a", "--json"], { token: a.token });
  const listed = JSON.parse(listA.stdout || "{}");
  check(
    "pantheon secrets list shows a's names and fingerprints, never a value",
    listA.code === 0 &&
      listed.secrets?.map((s) => s.name).join() === "AIRTABLE_KEY" &&
      /^[0-9a-f]{8}$/.test(listed.secrets[0].fingerprint) &&
      !listA.stdout.includes(aValue),
    shown(listA),
  );
  const bListsA = await b.call("/api/projects/a/secrets");
  check(
    "b's admin token cannot list a's secrets (403)",
    bListsA.status === 403 && !bListsA.text.includes("AIRTABLE_KEY"),
    shown(bListsA),
  );
  const bListsAcli = await cli(["secrets", "list", "--project", "a"], { token: b.token });
  check(
    "nor through the CLI with a's project named (401: not a token of a)",
    bListsAcli.code === 1 && !bListsAcli.stdout.includes("AIRTABLE_KEY"),
    shown(bListsAcli),
  );
  const bWritesA = await b.call("/api/projects/a/secrets/AIRTABLE_KEY", {
    method: "PUT",
    body: JSON.stringify({ value: "overwritten-by-b" }),
  });
  check("b cannot overwrite a's secret (403)", bWritesA.status === 403, shown(bWritesA));

  // --- HTTP tools name only their own project's secrets ---------------------------------------
  const tool = (secret, path) => ({
    name: "notes.add",
    description: "Adds a note",
    parameters: { type: "object", properties: { text: { type: "string" } } },
    endpoint: `${echo.url}/${path}`,
    headers: { "X-Key": { secret } },
  });
  const runtime = (secret, path) => ({ allowHosts: ["127.0.0.1"], httpTools: [tool(secret, path)] });
  const thief = await b.call("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "thief", runtime: runtime("AIRTABLE_KEY", "b-steals") }),
  });
  check(
    "b's admin naming a's (and default's) AIRTABLE_KEY in a tool header is refused: 400 naming project b",
    thief.status === 400 && thief.body?.error?.message.includes("no secret 'AIRTABLE_KEY' in project 'b'"),
    shown(thief),
  );
  const owner = await a.call("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "owner", runtime: runtime("AIRTABLE_KEY", "a-hook") }),
  });
  const invokedA = await a.call("/api/agents/owner/tools/notes.add/invoke", {
    method: "POST",
    body: JSON.stringify({ arguments: { text: "hi" } }),
  });
  const atA = echo.seen.filter((r) => r.path === "/a-hook");
  check(
    "a's own tool sends a's value to a's endpoint (positive control), and the answer does not show it",
    owner.status === 201 &&
      invokedA.body?.ok === true &&
      atA.length === 1 &&
      atA[0].headers["x-key"] === aValue &&
      !invokedA.text.includes(aValue),
    shown({ owner: owner.status, invokedA: invokedA.body, atA: atA.map((r) => r.headers["x-key"]) }),
  );
  const bOwn = await b.call("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "own", runtime: runtime("B_KEY", "b-hook") }),
  });
  const invokedB = await b.call("/api/agents/own/tools/notes.add/invoke", {
    method: "POST",
    body: JSON.stringify({ arguments: { text: "hi" } }),
  });
  const atB = echo.seen.filter((r) => r.path === "/b-hook");
  check(
    "b's own tool sends b's own value",
    bOwn.status === 201 && invokedB.body?.ok === true && atB.length === 1 && atB[0].headers["x-key"] === bValue,
    shown({ bOwn: bOwn.status, invokedB: invokedB.body }),
  );
  check(
    "no request to the echo server ever carried a's value outside a's endpoint, nor the deployment's",
    echo.seen.every((r) => r.path === "/a-hook" || r.headers["x-key"] !== aValue) &&
      echo.seen.every((r) => r.headers["x-key"] !== deploymentAirtable) &&
      !echo.seen.some((r) => r.path === "/b-steals"),
    shown(echo.seen.map((r) => r.path)),
  );
  const grantByB = await b.call("/api/projects/b/grants/AIRTABLE_KEY", { method: "PUT" });
  check("b's admin cannot grant itself the deployment's AIRTABLE_KEY (403)", grantByB.status === 403, shown(grantByB));

  // --- Telegram: a bot belongs to its project ------------------------------------------------
  const setBot = await cli(["secrets", "set", "TELEGRAM_BOT_TOKEN", "--project", "a"], { token: a.token, input: aBot });
  check("a sets its bot token as a project secret", setBot.code === 0, shown(setBot));
  await b.call("/api/agents", { method: "POST", body: JSON.stringify({ name: "bot" }) });
  await a.call("/api/agents", { method: "POST", body: JSON.stringify({ name: "bot" }) });
  const gateway = JSON.stringify({ botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1] });
  const bNames = await b.call("/api/agents/bot/gateways/telegram", { method: "PUT", body: gateway });
  check(
    "b naming TELEGRAM_BOT_TOKEN (default's worker secret, a's project secret) is refused: 400, no such secret in project b",
    bNames.status === 400 && bNames.body?.error?.message.includes("no secret 'TELEGRAM_BOT_TOKEN' in project 'b'"),
    shown(bNames),
  );
  const bHook = await b.call("/api/agents/bot/gateways/telegram/webhook", {
    method: "POST",
    body: JSON.stringify({ url: "https://attacker.example" }),
  });
  check("b cannot re-point a webhook it has no gateway for (404)", bHook.status === 404, shown(bHook));
  const aPut = await a.call("/api/agents/bot/gateways/telegram", { method: "PUT", body: gateway });
  const aHook = await a.call("/api/agents/bot/gateways/telegram/webhook", {
    method: "POST",
    body: JSON.stringify({ url: "https://a.example" }),
  });
  const setWebhooks = botApi.seen.filter((r) => r.path.endsWith("/setWebhook"));
  check(
    "a's own webhook is registered with a's bot token and a's URL (positive control)",
    aPut.status === 200 &&
      aHook.status === 200 &&
      setWebhooks.length === 1 &&
      setWebhooks[0].path === `/bot${aBot}/setWebhook` &&
      JSON.parse(setWebhooks[0].body).url === "https://a.example/gateways/telegram/a/bot",
    shown({ aPut: aPut.body, aHook: aHook.body, setWebhooks }),
  );
  check(
    "the Bot API stand-in never saw default's bot token, nor a request for b",
    botApi.seen.every((r) => !r.path.includes(defaultBot) && !r.body.includes("attacker")),
    shown(botApi.seen.map((r) => r.path)),
  );
  const owners = await call(deploymentToken, "default", "/api/gateways/telegram");
  const bOwners = await b.call("/api/gateways/telegram");
  check(
    "the deployment admin sees which project owns which bot, without the token; b's admin cannot (403)",
    owners.status === 200 &&
      owners.body?.bots?.some(
        (o) =>
          o.project === "a" &&
          o.agent === "bot" &&
          o.botTokenSecret === "TELEGRAM_BOT_TOKEN" &&
          /^[0-9a-f]{8}$/.test(o.fingerprint),
      ) &&
      !owners.text.includes(aBot) &&
      bOwners.status === 403,
    shown({ owners: owners.body, b: bOwners.status }),
  );

  // --- the doctor: presence only --------------------------------------------------------------
  const doctor = await a.call("/api/health?detail=1");
  check(
    "a's doctor lists a's secrets by name, never a value",
    doctor.status === 200 &&
      doctor.body?.checks?.some((c) => c.id === "project-secret:AIRTABLE_KEY" && c.status === "ok") &&
      !doctor.text.includes(aValue) &&
      !doctor.text.includes(aBot),
    shown(doctor.body?.checks?.filter((c) => c.id.startsWith("project-secret"))),
  );
} catch (error) {
  check("the check ran to its end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await echo.close();
  await botApi.close();
  await rm(persistTo, { recursive: true, force: true });
}
finish();

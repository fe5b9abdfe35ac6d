// An MCP server that wants OAuth 2.1 (the MCP authorization spec), through the real stack (wrangler
// dev) and the agents SDK's OAuth client: a loopback authorization server and resource server run
// here on the official SDK (@modelcontextprotocol/sdk: mcpAuthRouter with its in-memory demo
// provider, requireBearerAuth). The agent discovers the authorization server from the 401,
// registers itself (dynamic client registration), sends the person to the consent page with PKCE;
// the consent step is driven by fetch, and the browser's return lands on the worker's callback,
// which sends it on to the PWA. Refusals beside their controls: a callback at another agent's or
// another project's address, and the same callback replayed, are 400s; the access token is in no
// trace, snapshot, listing or log. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { registerAdd, startOAuthMcpServer } from "../doubles/mcp-oauth-server.mjs";
import { makeChecks, makeProjectCall, makeTenant } from "./check-kit.mjs";

/** The ports of helper I's range (brief 39), so parallel checks never collide. */
const port = 8891;
const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-mcp-oauth-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 600);

const provider = new DemoInMemoryAuthProvider();
/** What the careless `whoami` tool was sent: the positive control that the token really went out. */
const echoed = [];
const oauth = await startOAuthMcpServer({
  provider,
  register(server) {
    registerAdd(server);
    // A careless server: answers the Authorization header it was sent, the access token in it.
    server.registerTool(
      "whoami",
      { description: "Answers the header it was sent.", inputSchema: {} },
      (_args, extra) => {
        echoed.push(String(extra.requestInfo?.headers.authorization));
        return { content: [{ type: "text", text: `you sent: ${echoed.at(-1)}` }] };
      },
    );
  },
});
const { origin, mcpUrl } = oauth;
const issuedTokens = () => [...provider.tokens.keys()];

let server;
try {
  server = await startDevServer({
    port,
    token: deploymentToken,
    persistTo,
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const call = makeProjectCall(server.url);
  const a = await makeTenant(call, deploymentToken, "a");
  const b = await makeTenant(call, deploymentToken, "b");
  const agent = (name) => ({ method: "POST", body: JSON.stringify({ name, runtime: { allowHosts: ["127.0.0.1"] } }) });
  await a.call("/api/agents", agent("helper"));
  await a.call("/api/agents", agent("other"));
  await b.call("/api/agents", agent("helper"));

  const started = await a.call("/api/agents/helper/mcp", {
    method: "POST",
    body: JSON.stringify({ name: "notes", url: mcpUrl.href }),
  });
  const authUrl = started.body?.authUrl ? new URL(started.body.authUrl) : undefined;
  check(
    "the server's 401 starts OAuth: 201 authenticating with the provider's consent URL (PKCE S256, a state, a registered client)",
    started.status === 201 &&
      started.body.state === "authenticating" &&
      authUrl?.origin === origin &&
      authUrl.searchParams.get("code_challenge_method") === "S256" &&
      authUrl.searchParams.get("state")?.endsWith(".notes") &&
      provider.clientsStore.clients.size === 1,
    shown(started),
  );

  // The person consents (the demo provider consents at once and redirects back with a code).
  const consent = await fetch(authUrl, { redirect: "manual" });
  const callback = new URL(consent.headers.get("location") ?? "", server.url);
  check(
    "the consent page sends the browser back to the worker's callback for this project and agent",
    consent.status === 302 &&
      callback.pathname === "/api/oauth/mcp/a/helper/callback" &&
      callback.searchParams.get("code"),
    `${consent.status} ${callback}`,
  );

  const elsewhere = async (path) => fetch(`${server.url}${path}${callback.search}`, { redirect: "manual" });
  const foreignAgent = await elsewhere("/api/oauth/mcp/a/other/callback");
  const foreignProject = await elsewhere("/api/oauth/mcp/b/helper/callback");
  check(
    "the same code and state at another agent's or another project's callback are refused (400), and no token is issued",
    foreignAgent.status === 400 && foreignProject.status === 400 && issuedTokens().length === 0,
    `${foreignAgent.status} ${await foreignAgent.text()} / ${foreignProject.status}`,
  );

  const landed = await fetch(callback, { redirect: "manual" });
  check(
    "the callback completes the flow and sends the browser on to the agent's tools page in the PWA",
    landed.status === 302 &&
      landed.headers.get("location") === "/#/agents/helper/tools?mcp=notes" &&
      issuedTokens().length === 1,
    `${landed.status} ${landed.headers.get("location")} ${await landed.text()}`,
  );
  const replayed = await fetch(callback, { redirect: "manual" });
  const replayedText = await replayed.text();
  check(
    "the same callback replayed is refused (400 naming the state), and no second token is issued",
    replayed.status === 400 && replayedText.includes("state") && issuedTokens().length === 1,
    `${replayed.status} ${replayedText}`,
  );

  const listed = await a.call("/api/agents/helper/mcp");
  const notes = listed.body?.servers?.find((s) => s.id === "notes");
  check(
    "the server is ready with its tools once authorised",
    notes?.state === "ready" && notes.tools.some((t) => t.name === "notes.add") && !notes.authUrl,
    shown(listed.body),
  );
  const turn = (
    await a.call("/api/agents/helper/messages", {
      method: "POST",
      body: JSON.stringify({ content: '/tool notes.add {"a":2,"b":3}' }),
    })
  ).body;
  check(
    "the authorised server's tool answers in a turn",
    turn?.reply?.content === "The tool notes.add returned: 5",
    shown(turn),
  );

  const [token] = issuedTokens();
  const careless = (
    await a.call("/api/agents/helper/messages", {
      method: "POST",
      body: JSON.stringify({ content: "/tool notes.whoami {}" }),
    })
  ).body;
  const carelessTrace = await a.call(`/api/agents/helper/runs/${careless?.runId}`);
  check(
    "a server that echoes its access token back: the reply and the trace say [redacted] (control: the server was sent that token)",
    echoed.at(-1) === `Bearer ${token}` &&
      careless?.reply?.content?.includes("you sent: Bearer [redacted]") &&
      carelessTrace.status === 200 &&
      carelessTrace.text.includes("[redacted]") &&
      !carelessTrace.text.includes(token) &&
      !JSON.stringify(careless).includes(token),
    shown({ echoed: echoed.length, reply: careless?.reply?.content }),
  );
  const [trace, snapshot, exported] = await Promise.all([
    a.call(`/api/agents/helper/runs/${turn?.runId}`),
    a.call("/api/agents/helper/snapshot"),
    a.call("/api/projects/a/export"),
  ]);
  check(
    "the access token is in no trace, snapshot, export or listing",
    [trace, snapshot, exported, listed].every((r) => r.status === 200 && !r.text.includes(token)),
    shown([trace.status, snapshot.status, exported.status]),
  );
  const bList = await b.call("/api/agents/helper/mcp");
  check("project b's agent of the same name has no such server", bList.body?.servers?.length === 0, shown(bList.body));

  await server.stop();
  check("the access token is in no line wrangler dev logged", !server.output().includes(token), "found in the logs");
} catch (error) {
  check("the check ran to the end", false, error?.stack ?? String(error));
} finally {
  await server?.stop();
  oauth.close();
  await rm(persistTo, { recursive: true, force: true });
  finish();
}

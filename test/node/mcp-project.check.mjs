// The project's MCP servers, for all its agents, through the real stack (wrangler dev) and the CLI as
// an admin types it: `pantheon mcp add|list|remove --project-wide` with a static bearer secret, and
// one authorised once by OAuth for the whole project (`--oauth`): the loopback authorization server
// and resource server are the official SDK's (mcpAuthRouter with its in-memory demo provider,
// requireBearerAuth). The consent step is driven by fetch; the browser's return lands on the
// project's callback. Refusals beside their controls: the callback at another project's address and
// the same callback replayed are 400s; another project's agent never gets the token; the token is in
// no trace, snapshot, export, listing or log; a revoked token leaves the server needing authorising
// again. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { mcpHandler, startOAuthMcpServer } from "../doubles/mcp-oauth-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";

/** A port of helper F's range (brief 47), so parallel checks never collide. */
const port = 8960;
const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const staticToken = `static_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-mcp-project-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 800);

// One origin: the authorization server, the OAuth resource server at /mcp, the static bearer one at /static.
/** The demo provider, answering a token it no longer holds (revoked) with 401 invalid_token, as a real one does. */
class RevokingProvider extends DemoInMemoryAuthProvider {
  async verifyAccessToken(token) {
    if (!this.tokens.has(token)) throw new InvalidTokenError("the token was revoked");
    return super.verifyAccessToken(token);
  }
}
const provider = new RevokingProvider();
const oauth = await startOAuthMcpServer({ provider, name: "project-mcp" });
const { origin, mcpUrl } = oauth;
oauth.app.all("/static", (req, res, next) =>
  req.headers.authorization === `Bearer ${staticToken}` ? next() : res.status(401).json({ error: "unauthorized" }),
);
oauth.app.all("/static", mcpHandler("project-mcp"));
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
  const turn = async (tenant, name, content) =>
    (await tenant.call(`/api/agents/${name}/messages`, { method: "POST", body: JSON.stringify({ content }) })).body;
  const cli = makeCli({
    url: server.url,
    token: a.token,
    project: "a",
    cwd: persistTo,
    configHome: join(persistTo, "cfg"),
  });

  // ---- a static bearer secret, through the CLI as written -------------------------------------
  const secret = await cli(["secrets", "set", "STATIC_MCP_TOKEN"], { input: `${staticToken}\n` });
  const added = await cli([
    "mcp",
    "add",
    "--project-wide",
    "docs",
    `${origin}/static`,
    "--bearer-secret",
    "STATIC_MCP_TOKEN",
  ]);
  check(
    "`pantheon mcp add --project-wide docs <url> --bearer-secret NAME` declares it for every agent of the project",
    secret.code === 0 && added.code === 0 && added.stdout.includes("docs: declared for every agent of the project"),
    shown({ secret, added }),
  );
  const listedDocs = await cli(["mcp", "list", "--project-wide"]);
  check(
    "`pantheon mcp list --project-wide` lists it",
    listedDocs.code === 0 && /docs\s+-\s+http:\/\/127\.0\.0\.1:\d+\/static/.test(listedDocs.stdout),
    shown(listedDocs),
  );
  const [helperDocs, otherDocs] = await Promise.all([
    turn(a, "helper", '/tool docs.add {"a":2,"b":3}'),
    turn(a, "other", '/tool docs.add {"a":4,"b":4}'),
  ]);
  check(
    "every agent of the project calls its tool (the secret sent as the bearer header)",
    helperDocs?.reply?.content === "The tool docs.add returned: 5" &&
      otherDocs?.reply?.content === "The tool docs.add returned: 8",
    shown({ helperDocs, otherDocs }),
  );

  // ---- one authorised by OAuth once, for the whole project ------------------------------------
  const oauthAdded = await cli(["mcp", "add", "--project-wide", "notes", mcpUrl.href, "--oauth"]);
  const printed = /authorise 'notes' for the project by opening: (\S+)/.exec(oauthAdded.stderr + oauthAdded.stdout);
  const authUrl = printed ? new URL(printed[1]) : undefined;
  check(
    "`pantheon mcp add --project-wide notes <url> --oauth` prints the consent URL (discovered, registered, PKCE S256, a state)",
    oauthAdded.code === 0 &&
      authUrl?.origin === origin &&
      authUrl.searchParams.get("code_challenge_method") === "S256" &&
      authUrl.searchParams.get("state")?.endsWith(".notes") &&
      provider.clientsStore.clients.size === 1,
    shown(oauthAdded),
  );
  const early = await turn(a, "helper", '/tool notes.add {"a":1,"b":1}');
  check(
    "before anyone authorised it, the agents are not given its tools",
    /I was not given a tool named notes\.add/.test(early?.reply?.content ?? ""),
    shown(early),
  );

  const consent = await fetch(authUrl, { redirect: "manual" });
  const callback = new URL(consent.headers.get("location") ?? "", server.url);
  check(
    "the consent page sends the browser back to the project's callback",
    consent.status === 302 &&
      callback.pathname === "/api/oauth/mcp-project/a/callback" &&
      callback.searchParams.get("code"),
    `${consent.status} ${callback}`,
  );
  const foreign = await fetch(`${server.url}/api/oauth/mcp-project/b/callback${callback.search}`, {
    redirect: "manual",
  });
  check(
    "the same code and state at another project's callback are refused (400), and no token is issued",
    foreign.status === 400 && issuedTokens().length === 0,
    `${foreign.status} ${await foreign.text()}`,
  );
  const landed = await fetch(callback, { redirect: "manual" });
  check(
    "the callback completes the flow and sends the browser on to the project's agents in the PWA",
    landed.status === 302 && landed.headers.get("location") === "/?project=a#/agents" && issuedTokens().length === 1,
    `${landed.status} ${landed.headers.get("location")} ${await landed.text()}`,
  );
  const replayed = await fetch(callback, { redirect: "manual" });
  const replayedText = await replayed.text();
  check(
    "the same callback replayed is refused (400 naming the state), and no second token is issued",
    replayed.status === 400 && replayedText.includes("state") && issuedTokens().length === 1,
    `${replayed.status} ${replayedText}`,
  );

  const listedOAuth = await cli(["mcp", "list", "--project-wide"]);
  check(
    "`pantheon mcp list --project-wide` says it is authorised",
    listedOAuth.code === 0 && /notes\s+authorised\s+http/.test(listedOAuth.stdout),
    shown(listedOAuth),
  );
  const [helperNotes, otherNotes] = [
    await turn(a, "helper", '/tool notes.add {"a":2,"b":3}'),
    await turn(a, "other", '/tool notes.add {"a":5,"b":5}'),
  ];
  check(
    "every agent of the project calls its tool with the one token the project was given",
    helperNotes?.reply?.content === "The tool notes.add returned: 5" &&
      otherNotes?.reply?.content === "The tool notes.add returned: 10" &&
      issuedTokens().length === 1,
    shown({ helperNotes, otherNotes }),
  );

  // Project b declares the same server: it is not authorised there, and b's agent never has a's token.
  const bDeclared = await b.call("/api/projects/b/mcp", {
    method: "POST",
    body: JSON.stringify({ name: "notes", url: mcpUrl.href, oauth: true }),
  });
  const bTurn = await turn(b, "helper", '/tool notes.add {"a":1,"b":1}');
  check(
    "another project declaring the same server waits for its own authorisation; its agent is not given the tool (the control above: a's agents are)",
    bDeclared.status === 201 &&
      bDeclared.body?.authorisation?.state === "authenticating" &&
      /I was not given a tool named notes\.add/.test(bTurn?.reply?.content ?? "") &&
      issuedTokens().length === 1,
    shown({ bDeclared: bDeclared.body, bTurn }),
  );

  const [token] = issuedTokens();
  const [trace, snapshot, exported, listing, agentListing] = await Promise.all([
    a.call(`/api/agents/helper/runs/${helperNotes?.runId}`),
    a.call("/api/agents/helper/snapshot"),
    a.call("/api/projects/a/export"),
    a.call("/api/projects/a/mcp"),
    a.call("/api/agents/helper/mcp"),
  ]);
  check(
    "the access token is in no trace, snapshot, export or listing",
    [trace, snapshot, exported, listing, agentListing].every((r) => r.status === 200 && !r.text.includes(token)),
    shown([trace.status, snapshot.status, exported.status, listing.status, agentListing.status]),
  );

  // Revoked: the server refuses it, the registry cannot refresh it (the demo provider issues no refresh token).
  provider.tokens.clear();
  const refused = await turn(a, "helper", '/tool notes.add {"a":1,"b":2}');
  const afterRevoke = (await a.call("/api/projects/a/mcp")).body?.servers?.find((s) => s.name === "notes");
  const cliAfter = await cli(["mcp", "list", "--project-wide"]);
  const doctorAfter = await cli(["doctor", "--json"]);
  check(
    "a revoked token: the call says the server needs authorising again, the run completes, the project lists it so and the CLI says so",
    refused?.status === "completed" &&
      /needs authorising again/.test(refused?.reply?.content ?? "") &&
      afterRevoke?.authorisation?.state === "needs_reauthorization" &&
      /notes\s+needs authorising again/.test(cliAfter.stdout),
    shown({ refused: refused?.reply, afterRevoke, cliAfter: cliAfter.stdout }),
  );
  const again = await cli(["mcp", "authorise", "--project-wide", "notes"]);
  const againUrl = /by opening: (\S+)/.exec(again.stderr + again.stdout)?.[1];
  const reconsent = againUrl ? await fetch(againUrl, { redirect: "manual" }) : undefined;
  const relanded = reconsent
    ? await fetch(new URL(reconsent.headers.get("location") ?? "", server.url), { redirect: "manual" })
    : undefined;
  const back = await turn(a, "helper", '/tool notes.add {"a":3,"b":4}');
  const doctorBack = await cli(["doctor", "--json"]);
  const projectCheck = (run) => {
    try {
      return JSON.parse(run.stdout).checks.find((c) => c.id === "mcp:project:notes");
    } catch {
      return "unreadable";
    }
  };
  check(
    "the doctor names the project's server that needs authorising again and the command that does it; once authorised, it does not (control)",
    projectCheck(doctorAfter)?.status === "problem" &&
      projectCheck(doctorAfter).fix.includes("pantheon mcp authorise --project-wide notes") &&
      projectCheck(doctorBack) === undefined,
    shown({ after: projectCheck(doctorAfter), back: projectCheck(doctorBack), stderr: doctorAfter.stderr }),
  );
  check(
    "`pantheon mcp authorise --project-wide notes` prints a new consent URL; authorised again, the agents' calls answer",
    again.code === 0 && relanded?.status === 302 && back?.reply?.content === "The tool notes.add returned: 7",
    shown({ again, status: relanded?.status, back: back?.reply }),
  );

  const removed = await cli(["mcp", "remove", "--project-wide", "docs"]);
  const gone = await turn(a, "helper", '/tool docs.add {"a":1,"b":1}');
  const listedGone = await cli(["mcp", "list", "--project-wide"]);
  check(
    "`pantheon mcp remove --project-wide docs` removes it from the project and from its agents",
    removed.code === 0 &&
      removed.stdout.includes("removed docs from the project") &&
      /I was not given a tool named docs\.add/.test(gone?.reply?.content ?? "") &&
      !listedGone.stdout.includes("/static"),
    shown({ removed, gone: gone?.reply, listedGone: listedGone.stdout }),
  );

  await server.stop();
  const logs = server.output();
  check(
    "no access token and not the static secret is in any line wrangler dev logged",
    ![staticToken, token, ...issuedTokens()].some((t) => t && logs.includes(t)),
    "found in the logs",
  );
} catch (error) {
  check("the check ran to the end", false, error?.stack ?? String(error));
} finally {
  await server?.stop();
  oauth.close();
  await rm(persistTo, { recursive: true, force: true });
  finish();
}

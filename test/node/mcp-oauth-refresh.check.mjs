// An MCP server's OAuth token refreshed before it expires, and one revoked leading to "needs
// authorising again", through the real stack (wrangler dev) and the agents SDK's OAuth client. The
// loopback authorization server is the official SDK's (mcpAuthRouter) with the demo provider taught
// to issue short-lived tokens (30 s) with refresh tokens, to invalidate the old access token when it
// refreshes (so a call that works used the refreshed one), and to revoke everything on demand.
// Then the API's listing, the CLI (`pantheon mcp list`) and the doctor say the server needs
// authorising again, the run is not failed and its trace says what its model was told, and a person
// authorising again brings the server back. Prints `N passed, N failed` as the last line.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { startOAuthMcpServer } from "../doubles/mcp-oauth-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";

/** A port of helper I2's range (brief 39), so parallel checks never collide. */
const port = 8921;
/** The lifetime of the tokens issued from now on (the last check issues hour-long ones). */
let lifetimeSeconds = 30;
const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-mcp-refresh-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 800);

/** The demo provider with refresh tokens: short-lived access tokens, refresh invalidating the old one, revocation. */
class RefreshingProvider extends DemoInMemoryAuthProvider {
  refreshTokens = new Map();
  refreshes = 0;
  issue(client, access, scopes, resource) {
    this.tokens.set(access, {
      token: access,
      clientId: client.client_id,
      scopes,
      resource,
      expiresAt: Date.now() + lifetimeSeconds * 1000,
      type: "access",
    });
    const refresh = randomUUID();
    this.refreshTokens.set(refresh, { clientId: client.client_id, scopes, resource });
    return {
      access_token: access,
      token_type: "bearer",
      expires_in: lifetimeSeconds,
      refresh_token: refresh,
      scope: scopes.join(" "),
    };
  }
  async exchangeAuthorizationCode(client, code, verifier, redirectUri, resource) {
    const tokens = await super.exchangeAuthorizationCode(client, code, verifier, redirectUri, resource);
    const data = this.tokens.get(tokens.access_token);
    return this.issue(client, tokens.access_token, data.scopes, data.resource);
  }
  async exchangeRefreshToken(client, refreshToken) {
    const held = this.refreshTokens.get(refreshToken);
    if (!held || held.clientId !== client.client_id) throw new InvalidGrantError("the refresh token is revoked");
    this.refreshTokens.delete(refreshToken);
    this.refreshes += 1;
    for (const [token, data] of this.tokens) if (data.clientId === client.client_id) this.tokens.delete(token);
    return this.issue(client, randomUUID(), held.scopes, held.resource);
  }
  /** A revoked or unknown token is a 401 (the demo's plain Error would be a 500). */
  async verifyAccessToken(token) {
    try {
      return await super.verifyAccessToken(token);
    } catch {
      throw new InvalidTokenError("the token is revoked or expired");
    }
  }
  revokeAll() {
    this.tokens.clear();
    this.refreshTokens.clear();
  }
}

const provider = new RefreshingProvider();
const oauth = await startOAuthMcpServer({ provider });
const { origin, mcpUrl } = oauth;

/** The person consents at `authUrl` and the browser follows the redirect to the worker's callback. */
async function authorise(serverUrl, authUrl) {
  const consent = await fetch(authUrl, { redirect: "manual" });
  const callback = new URL(consent.headers.get("location") ?? "", serverUrl);
  return fetch(callback, { redirect: "manual" });
}

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
  await a.call("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "helper", runtime: { allowHosts: ["127.0.0.1"] } }),
  });
  const turn = async (content) =>
    (await a.call("/api/agents/helper/messages", { method: "POST", body: JSON.stringify({ content }) })).body;
  const notesOf = async () => (await a.call("/api/agents/helper/mcp")).body?.servers?.find((s) => s.id === "notes");

  const started = await a.call("/api/agents/helper/mcp", {
    method: "POST",
    body: JSON.stringify({ name: "notes", url: mcpUrl.href }),
  });
  const landed = await authorise(server.url, started.body.authUrl);
  check(
    "the server is authorised (a token of 30 s with a refresh token)",
    landed.status === 302 && (await notesOf())?.state === "ready" && provider.refreshTokens.size === 1,
    shown(started.body),
  );

  const first = await turn('/tool notes.add {"a":2,"b":3}');
  check(
    "a token expiring within the minute is refreshed before the turn calls the tool, and the call uses the new one (the old one no longer works)",
    first?.reply?.content === "The tool notes.add returned: 5" && provider.refreshes === 1,
    `${provider.refreshes} refreshes; ${shown(first)}`,
  );
  const [access] = [...provider.tokens.keys()];
  const [refresh] = [...provider.refreshTokens.keys()];
  const firstTrace = await a.call(`/api/agents/helper/runs/${first?.runId}`);
  check(
    "neither the refreshed access token nor the refresh token is in the run's trace or the listing",
    !firstTrace.text.includes(access) &&
      !firstTrace.text.includes(refresh) &&
      !JSON.stringify(await notesOf()).includes(access),
    "found",
  );

  provider.revokeAll();
  const second = await turn('/tool notes.add {"a":2,"b":3}');
  const secondTrace = (await a.call(`/api/agents/helper/runs/${second?.runId}`)).body?.trace ?? [];
  const told = secondTrace.find((s) => s.name === "mcp_unavailable");
  check(
    "with its tokens revoked the run is not failed: it completes without the server's tools, and its trace says the model was told",
    second?.status === "completed" &&
      told?.data?.server === "notes" &&
      /could not be refreshed/.test(told.data.reason) &&
      !secondTrace.some((s) => s.name === "tool_result" && s.data?.ok),
    shown({ second, told }),
  );
  const waiting = await notesOf();
  check(
    "the API lists the server as needing authorising again, with a new consent URL",
    waiting?.state === "needs_reauthorization" &&
      /needs authorising again/.test(waiting.error ?? "") &&
      new URL(waiting.authUrl ?? "about:blank").origin === origin,
    shown(waiting),
  );

  const cli = makeCli({
    url: server.url,
    token: a.token,
    project: "a",
    cwd: persistTo,
    configHome: join(persistTo, "cfg"),
  });
  const listed = await cli(["mcp", "list", "helper"]);
  check(
    "the CLI's `pantheon mcp list` says it needs authorising again and prints the URL to open",
    listed.code === 0 &&
      /notes\s+needs authorising again/.test(listed.stdout) &&
      listed.stderr.includes(`authorise 'notes' by opening: ${waiting?.authUrl}`),
    JSON.stringify(listed).slice(0, 800),
  );
  const doctor = await a.call("/api/health?detail=1");
  const problem = doctor.body?.checks?.find((c) => c.id === "mcp:helper:notes");
  check(
    "the doctor reports it as a problem with the fix",
    problem?.status === "problem" && /needs authorising again/.test(problem.message) && /Authorise/.test(problem.fix),
    shown(doctor.body?.checks?.filter((c) => c.id.startsWith("mcp")) ?? doctor.body),
  );

  const again = await authorise(server.url, waiting.authUrl);
  const back = await notesOf();
  const third = await turn('/tool notes.add {"a":4,"b":5}');
  const doctorAfter = await a.call("/api/health?detail=1");
  check(
    "a person authorising again brings it back: ready, its tool answers, the doctor no longer reports it",
    again.status === 302 &&
      again.headers.get("location") === "/#/agents/helper/tools?mcp=notes" &&
      back?.state === "ready" &&
      third?.reply?.content === "The tool notes.add returned: 9" &&
      !doctorAfter.body?.checks?.some((c) => c.id === "mcp:helper:notes"),
    shown({ status: again.status, location: again.headers.get("location"), back, third }),
  );

  // A token revoked long before it expires: the server refuses it in a call, the SDK's own refresh is
  // refused too, and the server needs authorising again instead of the run failing.
  lifetimeSeconds = 3600;
  await a.call("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "keeper", runtime: { allowHosts: ["127.0.0.1"] } }),
  });
  const kept = await a.call("/api/agents/keeper/mcp", {
    method: "POST",
    body: JSON.stringify({ name: "notes", url: mcpUrl.href }),
  });
  await authorise(server.url, kept.body.authUrl);
  const refreshesBefore = provider.refreshes;
  const fine = (
    await a.call("/api/agents/keeper/messages", {
      method: "POST",
      body: JSON.stringify({ content: '/tool notes.add {"a":1,"b":1}' }),
    })
  ).body;
  provider.revokeAll();
  const refused = (
    await a.call("/api/agents/keeper/messages", {
      method: "POST",
      body: JSON.stringify({ content: '/tool notes.add {"a":1,"b":1}' }),
    })
  ).body;
  const keeperNotes = (await a.call("/api/agents/keeper/mcp")).body?.servers?.[0];
  check(
    "an hour-long token is not refreshed early; revoked, the server refuses it in a call: the call says the server needs authorising again, the run completes, and the server is listed so",
    fine?.reply?.content === "The tool notes.add returned: 2" &&
      provider.refreshes === refreshesBefore &&
      refused?.status === "completed" &&
      /needs authorising again \(it refused its token\)/.test(refused?.reply?.content ?? "") &&
      keeperNotes?.state === "needs_reauthorization" &&
      Boolean(keeperNotes.authUrl),
    JSON.stringify({ refused: refused?.reply?.content, keeperNotes }),
  );

  await server.stop();
  const logs = server.output();
  check(
    "no access or refresh token is in any line wrangler dev logged",
    ![access, refresh, ...provider.tokens.keys()].some((t) => logs.includes(t)),
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

// A person authorises an agent's MCP server from the phone: the agent's tools page shows the server
// waiting with an Authorise button, which opens the loopback authorization server's consent page
// (the official SDK's auth router; the demo provider given a page with an Allow link); Allow sends
// the browser through Pantheon's callback back to the tools page (`?mcp=notes`), which says the
// server is connected. The control: before consenting the server is not connected and the page says so.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ConsentProvider, startOAuthMcpServer } from "../doubles/mcp-oauth-server.mjs";
import { PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let oauth;
let origin;
let b;
const agent = uniqueName("authoriser");

before(async () => {
  oauth = await startOAuthMcpServer({
    provider: new ConsentProvider("Let Pantheon use your notes?"),
    name: "notes",
  });
  origin = oauth.origin;
  const { mcpUrl } = oauth;
  await createAgent(agent, { runtime: { allowHosts: ["127.0.0.1"] } });
  const started = await api(`/api/agents/${agent}/mcp`, {
    method: "POST",
    body: JSON.stringify({ name: "notes", url: mcpUrl.href }),
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  assert.equal(started.body.state, "authenticating");
  b = await launchSignedIn({ viewport: PHONE });
});

after(async () => {
  await b?.close();
  oauth?.close();
});

test("the tools page shows the server waiting, with an Authorise button opening the consent page", async () => {
  const { page } = b;
  await page.goto(`/#/agents/${agent}/tools`);
  const servers = page.getByRole("region", { name: "MCP servers" });
  await servers.getByText("waiting to be authorised").waitFor();
  const authorise = servers.getByRole("link", { name: "Authorise notes" });
  assert.equal(new URL(await authorise.getAttribute("href")).origin, origin);
  assert.equal(await servers.getByText("connected", { exact: true }).count(), 0);
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "mcp-authorise-waiting");
  await authorise.click();
  await page.waitForURL((url) => url.origin === origin);
  await page.getByRole("heading", { name: "Let Pantheon use your notes?" }).waitFor();
});

test("Allow on the consent page lands back on the tools page, which says the server is connected", async () => {
  const { page } = b;
  await page.getByRole("link", { name: "Allow" }).click();
  await page.waitForURL((url) => url.hash === `#/agents/${agent}/tools?mcp=notes`);
  const servers = page.getByRole("region", { name: "MCP servers" });
  await servers.getByRole("status").filter({ hasText: "notes is connected" }).waitFor();
  await servers.getByText("connected", { exact: true }).waitFor();
  assert.equal(await servers.getByRole("link", { name: "Authorise notes" }).count(), 0);
  await shootBoth(page, "mcp-authorise-connected");
  const listed = await api(`/api/agents/${agent}/mcp`);
  assert.equal(listed.body.servers[0].state, "ready");
  assert.deepEqual(b.errors, []);
});

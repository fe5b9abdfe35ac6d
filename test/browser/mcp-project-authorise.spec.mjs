// An admin authorises the project's MCP server (for all its agents) from the phone: an agent's tools
// page shows the server marked as the project's and waiting, with an Authorise button; the consent
// page (the official SDK's auth router, the demo provider given a page with an Allow link) sends the
// browser through the worker's project callback back to the PWA, and the tools page then shows the
// server connected with its tool. The refusal beside it: a person with a chat token gets no
// Authorise button (nor the server lists, which are an admin's) and is told an admin of the project
// authorises the servers (the admin's page, with its row and button, is the control).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { z } from "zod";
import { ConsentProvider, startOAuthMcpServer } from "../doubles/mcp-oauth-server.mjs";
import { PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

let oauth;
let origin;
let admin;
let person;
let chatToken;
const agent = uniqueName("wiki-reader");
// A unique server name, so a rerun against the same deployment never finds it authorised already.
const server = `wiki${Date.now().toString(36).slice(-5)}`;

before(async () => {
  oauth = await startOAuthMcpServer({
    provider: new ConsentProvider("Let Pantheon's project use your wiki?"),
    name: "wiki",
    register: (mcp) =>
      mcp.registerTool("search", { description: "Searches the wiki.", inputSchema: { q: z.string() } }, ({ q }) => ({
        content: [{ type: "text", text: `no page mentions ${q}` }],
      })),
  });
  origin = oauth.origin;
  const { mcpUrl } = oauth;
  await createAgent(agent, { runtime: { allowHosts: ["127.0.0.1"] } });
  const declared = await api("/api/projects/default/mcp", {
    method: "POST",
    body: JSON.stringify({ name: server, url: mcpUrl.href, oauth: true }),
  });
  assert.equal(declared.status, 201, JSON.stringify(declared.body));
  assert.equal(declared.body.authorisation?.state, "authenticating", JSON.stringify(declared.body));
  const made = await api("/api/tokens", {
    method: "POST",
    body: JSON.stringify({ name: "a chatting person", scope: "chat" }),
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  chatToken = made.body.token;
  admin = await launchSignedIn({ viewport: PHONE });
  person = await launchSignedIn({ viewport: PHONE, token: chatToken });
});

after(async () => {
  await admin?.close();
  await person?.close();
  oauth?.close();
});

test("a chat-scope person's tools page has no Authorise button and says an admin of the project authorises the servers", async () => {
  const { page } = person;
  await page.goto(`/#/agents/${agent}/tools`);
  const servers = page.getByRole("region", { name: "MCP servers" });
  await servers.getByText(/An admin of the project sees the agent's MCP servers and authorises/).waitFor();
  // The lists are an admin's (they carry the server's URL and consent page): no row, no button, no error.
  assert.equal(await servers.getByRole("button", { name: /Authorise/ }).count(), 0);
  assert.equal(await servers.getByRole("link", { name: /Authorise/ }).count(), 0);
  assert.equal(await servers.getByText(server).count(), 0);
  assert.equal(await page.getByRole("alert").filter({ hasText: "MCP servers" }).count(), 0);
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "mcp-project-authorise-chat-person");
  assert.deepEqual(person.errors, []);
});

test("an admin sees the same server as the project's and waiting, and Authorise opens the consent page", async () => {
  const { page } = admin;
  await page.goto(`/#/agents/${agent}/tools`);
  const servers = page.getByRole("region", { name: "MCP servers" });
  const row = servers.getByRole("listitem").filter({ hasText: server });
  await row.getByText("project's", { exact: true }).waitFor();
  await row.getByText("waiting to be authorised").waitFor();
  assert.equal(await row.getByText("an admin of the project authorises it").count(), 0);
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "mcp-project-authorise-waiting");
  await row.getByRole("button", { name: `Authorise ${server} for the project` }).click();
  await page.waitForURL((url) => url.origin === origin);
  await page.getByRole("heading", { name: "Let Pantheon's project use your wiki?" }).waitFor();
});

test("Allow returns through the project's callback to the tools page it started from, which shows the server connected with its tool", async () => {
  const { page } = admin;
  await page.getByRole("link", { name: "Allow" }).click();
  await page.waitForURL((url) => url.origin !== origin && url.hash === `#/agents/${agent}/tools?mcp=${server}`);
  assert.equal(new URL(page.url()).search, "");
  const listed = await api("/api/projects/default/mcp");
  assert.equal(listed.body.servers.find((s) => s.name === server)?.authorisation?.state, "authorised");
  const servers = page.getByRole("region", { name: "MCP servers" });
  await servers
    .getByRole("status")
    .filter({ hasText: `${server} is connected: its 1 tool is the agent's.` })
    .waitFor();
  const row = servers.getByRole("listitem").filter({ hasText: server });
  await row.getByText("project's", { exact: true }).waitFor();
  await row.getByText("connected", { exact: true }).waitFor();
  await row.getByText("1 tool", { exact: true }).waitFor();
  assert.equal(await row.getByRole("button", { name: /Authorise/ }).count(), 0);
  await shootBoth(page, "mcp-project-authorise-connected");
  assert.deepEqual(admin.errors, []);
});

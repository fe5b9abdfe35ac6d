// A person authorises an agent's MCP server from the phone: the agent's tools page shows the server
// waiting with an Authorise button, which opens the loopback authorization server's consent page
// (the official SDK's auth router; the demo provider given a page with an Allow link); Allow sends
// the browser through Pantheon's callback back to the tools page (`?mcp=notes`), which says the
// server is connected. The control: before consenting the server is not connected and the page says so.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import express from "express";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

/** The demo provider with a consent page: the person presses Allow instead of being sent back at once. */
class ConsentProvider extends DemoInMemoryAuthProvider {
  async authorize(client, params, res) {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new Error("unregistered redirect_uri");
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const back = new URL(params.redirectUri);
    back.search = new URLSearchParams({ code, ...(params.state ? { state: params.state } : {}) }).toString();
    res
      .type("html")
      .send(
        `<!doctype html><html lang="en"><meta name="viewport" content="width=device-width"><title>Consent</title>` +
          `<main><h1>Let Pantheon use your notes?</h1><a id="allow" href="${back.href.replaceAll("&", "&amp;")}">Allow</a></main></html>`,
      );
  }
}

const provider = new ConsentProvider();
const app = express();
app.use(express.json());
let listening;
let origin;
let b;
const agent = uniqueName("authoriser");

before(async () => {
  listening = await new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  origin = `http://127.0.0.1:${listening.address().port}`;
  const mcpUrl = new URL("/mcp", origin);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(origin), resourceServerUrl: mcpUrl }));
  app.all(
    "/mcp",
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
    async (req, res) => {
      const server = new McpServer({ name: "notes", version: "1.0.0" });
      server.registerTool(
        "add",
        { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } },
        ({ a, b: c }) => ({ content: [{ type: "text", text: String(a + c) }] }),
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
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
  listening?.closeAllConnections?.();
  listening?.close();
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

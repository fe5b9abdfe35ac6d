// A loopback MCP server that wants OAuth 2.1 (the MCP authorization spec), built on the official SDK:
// one origin serves the authorization server (metadata, /register, /authorize, /token: mcpAuthRouter
// over `provider`, the SDK's in-memory demo one or a subclass) and the resource server at /mcp
// (requireBearerAuth), a fresh stateless Streamable HTTP server per request. The OAuth node checks
// (test/node/mcp-*.check.mjs) start it; `app` takes further routes (a static-bearer server beside it).
import { randomUUID } from "node:crypto";
import express from "express";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/**
 * The SDK's demo provider with a consent page: the person presses Allow (a link back to the client
 * with the code) instead of being sent back at once. `question` is the page's heading.
 */
export class ConsentProvider extends DemoInMemoryAuthProvider {
  constructor(question) {
    super();
    this.question = question;
  }
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
          `<main><h1>${this.question}</h1><a id="allow" href="${back.href.replaceAll("&", "&amp;")}">Allow</a></main></html>`,
      );
  }
}

/** Registers `add`, the tool every OAuth check calls. */
export function registerAdd(server) {
  server.registerTool(
    "add",
    { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
}

/** An express handler answering one MCP request with a server whose tools `register` adds. */
export function mcpHandler(name, register = registerAdd) {
  return async (req, res) => {
    const server = new McpServer({ name, version: "1.0.0" });
    register(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
}

/**
 * Starts the server on a free loopback port.
 * @example
 * const oauth = await startOAuthMcpServer({ provider: new DemoInMemoryAuthProvider() });
 * // POST oauth.mcpUrl → 401 naming the metadata; after consent, the issued tokens are provider.tokens
 * oauth.close();
 */
export async function startOAuthMcpServer({ provider, name = "oauth-mcp", register = registerAdd }) {
  const app = express();
  app.use(express.json());
  const listening = await new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  const origin = `http://127.0.0.1:${listening.address().port}`;
  const mcpUrl = new URL("/mcp", origin);
  app.use(
    mcpAuthRouter({ provider, issuerUrl: new URL(origin), resourceServerUrl: mcpUrl, scopesSupported: ["mcp:tools"] }),
  );
  app.all(
    "/mcp",
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
    mcpHandler(name, register),
  );
  return {
    app,
    origin,
    mcpUrl,
    close() {
      listening.closeAllConnections?.();
      listening.close();
    },
  };
}

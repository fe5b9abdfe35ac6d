// Every door that starts a run passes its caller's principal: through /v1, the project's /mcp,
// AG-UI and A2A, a chat token's message that asks for memory.forget leaves the memory and waits
// for an admin; the admin token's own message forgets (positive control). Driven by each door's
// reference client through the real worker (SELF).
import { SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { HttpAgent } from "@ag-ui/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { SELF } from "cloudflare:test";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, api, createAgent } from "../api/client";

let chatToken = "";
beforeAll(async () => {
  const res = await api("/api/tokens", { method: "POST", json: { name: "doors chat", scope: "chat" } });
  chatToken = ((await res.json()) as { token: string }).token;
});

const into: typeof fetch = (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init);

/** Sends `content` through one door with `token`. */
type Door = (agent: string, content: string, token: string) => Promise<void>;

const doors: Record<string, Door> = {
  "/v1 chat completions (openai SDK)": async (agent, content, token) => {
    const openai = new OpenAI({ apiKey: token, baseURL: "https://pantheon.test/v1", fetch: into as never, maxRetries: 0 });
    await openai.chat.completions.create({ model: agent, messages: [{ role: "user", content }] });
  },
  "/mcp ask_agent (MCP client)": async (agent, content, token) => {
    const transport = new StreamableHTTPClientTransport(new URL("https://pantheon.test/mcp"), { fetch: into, requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: "doors", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    await client.connect(transport);
    await client.callTool({ name: "ask_agent", arguments: { agent, message: content } });
    await client.close();
  },
  "AG-UI (HttpAgent)": async (agent, content, token) => {
    const client = new HttpAgent({ url: `https://pantheon.test/agui/agents/${agent}`, headers: { authorization: `Bearer ${token}` }, fetch: (url, init) => SELF.fetch(url, init) });
    client.addMessage({ id: crypto.randomUUID(), role: "user", content });
    await client.runAgent().catch(() => undefined);
  },
  "A2A message/send (A2A client)": async (agent, content, token) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const request = new Request(input instanceof Request ? input : String(input), init);
      request.headers.set("authorization", `Bearer ${token}`);
      return SELF.fetch(request);
    };
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
    const client = await factory.createFromUrl(`https://pantheon.test/a2a/agents/${agent}/.well-known/agent-card.json`, "");
    await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: content }] } }));
  },
};

async function lastRun(agent: string) {
  return ((await (await api(`/api/agents/${agent}/runs`)).json()) as { runs: any[] }).runs[0];
}

describe("every door passes its caller's rights to the run", () => {
  for (const [door, send] of Object.entries(doors)) {
    it(`${door}: a chat token's memory.forget waits and the memory stays; the admin token's forgets`, async () => {
      const { name } = await createAgent();
      const { id } = (await (await api(`/api/agents/${name}/memories`, { method: "POST", json: { text: "The ladder is in the barn." } })).json()) as { id: string };
      const message = `/tool memory.forget {"id":"${id}"}`;

      await send(name, message, chatToken);
      expect(await lastRun(name)).toMatchObject({ status: "waiting_approval", principal: { scope: "chat", name: expect.stringContaining("token:doors chat") } });
      expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(200);

      await send(name, message, adminToken);
      expect(await lastRun(name)).toMatchObject({ status: "completed", principal: { scope: "admin" } });
      expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(404);
    });
  }
});

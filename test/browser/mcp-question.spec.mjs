// An MCP server that asks back (elicitation/create, form mode) while its tool runs: the question
// appears in the approvals inbox with a form of the fields its schema asks for (a string, an enum, a
// number, a boolean); the person fills it in on the phone and the answer reaches the server, whose
// result ends the run. Declining ends the call cleanly too. A chat-scope person, who may not answer,
// does not see it (the inbox and the questions route refuse them) while the admin does.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { BASE_URL, PHONE, api, axe, createAgent, launchSignedIn, shootBoth, uniqueName } from "./harness.mjs";

const requestedSchema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name on the booking" },
    cabin: { type: "string", title: "Cabin", enum: ["economy", "business"], enumNames: ["Economy", "Business"] },
    seats: { type: "integer", title: "Seats", minimum: 1, maximum: 9 },
    window: { type: "boolean", title: "Window seat" },
  },
  required: ["name", "cabin", "seats"],
};

/** A session per `mcp-session-id`: the client's answer is a request of its own and must reach the server that asked. */
const sessions = new Map();
function travelServer() {
  const server = new McpServer({ name: "travel", version: "1.0.0" });
  server.registerTool(
    "reserve",
    { description: "Reserves seats after asking the person.", inputSchema: {} },
    async (_a, extra) => {
      const answer = await extra.sendRequest(
        { method: "elicitation/create", params: { message: "Who travels, and how?", requestedSchema } },
        ElicitResultSchema,
      );
      const text = answer.action === "accept" ? `reserved ${JSON.stringify(answer.content)}` : answer.action;
      return { content: [{ type: "text", text }] };
    },
  );
  return server;
}

let listening;
let b;
const agent = uniqueName("traveller");

before(async () => {
  listening = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    await travelServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => listening.listen(0, "127.0.0.1", resolve));
  await createAgent(agent, { runtime: { allowHosts: ["127.0.0.1"] } });
  const connected = await api(`/api/agents/${agent}/mcp`, {
    method: "POST",
    body: JSON.stringify({ name: "travel", url: `http://127.0.0.1:${listening.address().port}/mcp` }),
  });
  assert.equal(connected.status, 201, JSON.stringify(connected.body));
  b = await launchSignedIn({ viewport: PHONE });
});

after(async () => {
  await b?.close();
  for (const transport of sessions.values()) await transport.close();
  listening?.closeAllConnections?.();
  listening?.close();
});

/** Starts a turn that calls `travel.reserve` (left running) and waits until its question is listed. */
async function asked() {
  const turn = api(`/api/agents/${agent}/messages`, {
    method: "POST",
    body: JSON.stringify({ content: "/tool travel.reserve {}" }),
  });
  for (let i = 0; i < 200; i++) {
    const [question] = (await api(`/api/agents/${agent}/mcp/questions`)).body.questions;
    if (question) return { turn, question };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the server's question never reached the agent's list");
}

test("the question shows in the inbox as a form; the answer filled in on the phone reaches the server", async () => {
  const { turn, question } = await asked();
  const page = b.page;
  await page.goto("/#/agents");
  await page.goto("/#/approvals");
  const card = page.locator("pantheon-approvals article", { hasText: "Who travels, and how?" });
  await card.waitFor();
  assert.deepEqual(await axe(page), []);
  await shootBoth(page, "approvals-mcp-question");
  await card.getByLabel("Name on the booking (required)").fill("Ada");
  await card.getByLabel("Cabin (required)").selectOption("business");
  await card.getByLabel("Seats (required)").fill("2");
  await card.getByLabel("Window seat").check();
  await card.getByRole("button", { name: "Send answer" }).click();
  await card.waitFor({ state: "detached" });
  const reply = (await turn).body;
  assert.equal(reply.status, "completed");
  assert.equal(
    reply.reply.content,
    'The tool travel.reserve returned: reserved {"name":"Ada","cabin":"business","seats":2,"window":true}',
  );
  assert.deepEqual((await api(`/api/agents/${agent}/mcp/questions`)).body.questions, []);
  assert.ok(question.id);
});

test("declining on the phone ends the call cleanly: the server hears 'decline' and the run completes", async () => {
  const { turn } = await asked();
  const page = b.page;
  await page.goto("/#/agents");
  await page.goto("/#/approvals");
  const card = page.locator("pantheon-approvals article", { hasText: "Who travels, and how?" });
  await card.getByRole("button", { name: "Decline" }).click();
  await card.waitFor({ state: "detached" });
  const reply = (await turn).body;
  assert.equal(reply.status, "completed");
  assert.equal(reply.reply.content, "The tool travel.reserve returned: decline");
});

test("a chat-scope person does not see the question, which the admin's inbox shows", async () => {
  const { turn, question } = await asked();
  const token = await api("/api/tokens", {
    method: "POST",
    body: JSON.stringify({ name: uniqueName("reader"), scope: "chat" }),
  });
  assert.equal(token.status, 201, JSON.stringify(token.body));
  const reader = await launchSignedIn({ viewport: PHONE, token: token.body.token });
  try {
    const refused = await fetch(`${BASE_URL}/api/agents/${agent}/mcp/questions`, {
      headers: { authorization: `Bearer ${token.body.token}` },
    });
    assert.equal(refused.status, 403);
    await reader.page.goto("/#/approvals");
    const inbox = reader.page.locator("pantheon-approvals");
    await inbox.getByRole("alert").waitFor();
    assert.equal(await inbox.locator("article", { hasText: "Who travels, and how?" }).count(), 0);
    // The control: the admin's inbox shows it at the same moment.
    await b.page.goto("/#/agents");
    await b.page.goto("/#/approvals");
    const card = b.page.locator("pantheon-approvals article", { hasText: "Who travels, and how?" });
    await card.waitFor();
    await card.getByRole("button", { name: "Decline" }).click();
    await card.waitFor({ state: "detached" });
    const reply = await turn;
    assert.equal(reply.body.status, "completed", JSON.stringify(reply));
    assert.ok(question.id);
  } finally {
    await reader.close();
  }
});

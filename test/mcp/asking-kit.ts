import { env } from "cloudflare:test";
import { expect } from "vitest";
import { api, createAgent, uniqueName } from "../api/client";

// The set-up of the tests of an MCP server that asks back (elicitation): the asking server of
// test/doubles/mcp-server.ts, an agent connected to it, and the agent's list of its questions.

const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;
/** The MCP test server's origin: its `/__calls?tenant=` says what each tenant's tools were called with. */
export const mcpOrigin = new URL(mcpUrl).origin;

/**
 * An agent connected to the asking server as `travel` (its `book` and read-only `quote` ask how many
 * seats before they answer), on a tenant of its own so its calls are counted apart.
 */
export async function askingAgent(): Promise<{ agent: string; tenant: string }> {
  const tenant = uniqueName("tenant");
  const agent = await createAgent({ runtime: { allowHosts: [new URL(mcpUrl).hostname] } });
  const res = await api(`/api/agents/${agent.name}/mcp`, {
    method: "POST",
    json: { name: "travel", url: `${mcpOrigin}/mcp-asking?tenant=${tenant}` },
  });
  expect(res.status).toBe(201);
  return { agent: agent.name, tenant };
}

/** The questions the agent's servers wait on, as its route lists them. */
export const questionsOf = async (agent: string) =>
  ((await (await api(`/api/agents/${agent}/mcp/questions`)).json()) as any).questions as any[];

/** Starts the turn that calls `travel.book` and waits until its server's question is listed. */
export async function askedQuestion(agent: string) {
  const turn = api(`/api/agents/${agent}/messages`, { method: "POST", json: { content: "/tool travel.book {}" } });
  for (let i = 0; i < 300; i++) {
    const [question] = await questionsOf(agent);
    if (question) return { turn, question };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the server's question never reached the agent's list");
}

/** A person's answer to question `id` (accept with content, decline or cancel). */
export const answer = (agent: string, id: string, json: unknown) =>
  api(`/api/agents/${agent}/mcp/questions/${id}`, { method: "POST", json });

import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { maxAguiBodyBytes } from "../../workers/doors/agui";
import { maxBodyBytes } from "../../workers/doors/door";
import { maxInlineImageBodyBytes } from "../../workers/images";
import { api, adminToken, createAgent, uniqueName } from "../api/client";

/**
 * Every bearer-token door opens with the same entrance (workers/doors/door.ts): the project header,
 * the body limit, the token, the project's existence, then the scope, in that order. Each door
 * answers the same refusals in that order (in its own error shape), and the same request with a
 * right token in an existing project gets through (the positive control beside each refusal).
 */
type Entrance = {
  door: string;
  limit: number;
  path: (agent: string) => string;
  body: (agent: string) => string;
  ok: number;
};

const ping = () => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
const hello = "What is the launch code word?";
const entrances: Entrance[] = [
  {
    door: "/api",
    limit: maxBodyBytes,
    path: (a) => `/api/agents/${a}/messages`,
    body: () => JSON.stringify({ content: hello }),
    ok: 200,
  },
  {
    door: "/v1",
    limit: maxInlineImageBodyBytes,
    path: () => "/v1/chat/completions",
    body: (a) => JSON.stringify({ model: a, messages: [{ role: "user", content: hello }] }),
    ok: 200,
  },
  { door: "/mcp", limit: maxBodyBytes, path: () => "/mcp", body: ping, ok: 200 },
  { door: "/mcp/agents", limit: maxBodyBytes, path: (a) => `/mcp/agents/${a}`, body: ping, ok: 200 },
  {
    door: "/agui",
    limit: maxAguiBodyBytes,
    path: (a) => `/agui/agents/${a}`,
    body: () => JSON.stringify({ threadId: "t", runId: "r", messages: [{ id: "q", role: "user", content: hello }] }),
    ok: 200,
  },
  { door: "/a2a", limit: maxBodyBytes, path: (a) => `/a2a/agents/${a}`, body: ping, ok: 200 },
];

function post(path: string, body: string, headers: Record<string, string> = {}, token: string | null = adminToken) {
  return SELF.fetch(`https://pantheon.test${path}`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });
}

/** The error's words, whatever the door's shape (the API's, OpenAI's or JSON-RPC's). */
async function words(res: Response): Promise<string> {
  const body = (await res.json()) as {
    error?: { message?: string; details?: { issues?: { path: string[] }[] } } | string;
    message?: string;
  };
  return JSON.stringify(body);
}

describe("every bearer door has the same entrance, in the same order", () => {
  for (const e of entrances) {
    it(`${e.door}: project header, then body limit, then token, then the project's existence; the right token gets through`, async () => {
      const agent = (await createAgent()).name;
      const path = e.path(agent);
      const body = e.body(agent);
      const tooBig = "x".repeat(e.limit + 1);

      // 1. A malformed project header is refused before anything else (even an oversized, unauthenticated body).
      const badProject = await post(path, tooBig, { "x-pantheon-project": "Not A Slug" }, null);
      expect(badProject.status).toBe(400);
      expect(await words(badProject)).toContain("X-Pantheon-Project");

      // 2. An oversized body is a 413 naming the door and its limit, before the token is read.
      const big = await post(path, tooBig, {}, null);
      expect(big.status).toBe(413);
      expect(await words(big)).toContain(e.door);

      // 3. No token, or a wrong one: 401.
      expect((await post(path, body, {}, null)).status).toBe(401);
      expect((await post(path, body, {}, "pt_not-a-token")).status).toBe(401);

      // 4. A project that does not exist: 401 to a stranger (it learns nothing), 404 to a valid token.
      const missing = uniqueName("nowhere");
      expect((await post(path, body, { "x-pantheon-project": missing }, null)).status).toBe(401);
      const unknown = await post(path, body, { "x-pantheon-project": missing });
      expect(unknown.status).toBe(404);
      expect(await words(unknown)).toContain(missing);

      // Positive control: the same request with the token, in the default project, is answered.
      const answered = await post(path, body);
      expect(answered.status).toBe(e.ok);
      await answered.text();
    });
  }
});

describe("a project's token opens only its own project's doors", () => {
  it("project b's admin token is refused at every door of project a; on b's own doors it gets through", async () => {
    const a = uniqueName("proja");
    const b = uniqueName("projb");
    const made = await api("/api/tokens", {
      method: "POST",
      json: { name: "b admin", scope: "admin" },
      headers: { "x-pantheon-project": b },
    });
    expect(made.status).toBe(201);
    const bToken = ((await made.json()) as { token: string }).token;
    const agentOf = async (project: string) => {
      const name = uniqueName("door");
      expect(
        (
          await api("/api/agents", {
            method: "POST",
            json: { name, description: "door test" },
            headers: { "x-pantheon-project": project },
          })
        ).status,
      ).toBe(201);
      return name;
    };
    const [inA, inB] = [await agentOf(a), await agentOf(b)];
    for (const e of entrances) {
      const intoA = await post(e.path(inA), e.body(inA), { "x-pantheon-project": a }, bToken);
      expect(intoA.status, `${e.door} in project a with b's token`).toBe(401);
      const intoB = await post(e.path(inB), e.body(inB), { "x-pantheon-project": b }, bToken);
      expect(intoB.status, `${e.door} in project b with b's token`).toBe(e.ok);
      await intoB.text();
    }
  });
});

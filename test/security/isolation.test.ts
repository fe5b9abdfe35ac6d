import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent, uniqueName, type ErrorBody } from "../api/client";

/** Opens an agent socket the way a browser does (token in the query); the response, upgraded or not. */
function openSocket(path: string, token: string | null, headers: Record<string, string> = {}) {
  return api(`${path}${token ? `${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : ""}`, {
    token: null,
    headers: { upgrade: "websocket", ...headers },
  });
}

function listen(ws: WebSocket) {
  const messages: any[] = [];
  const closed: { code?: number } = {};
  ws.addEventListener("message", (event) => {
    try {
      messages.push(JSON.parse(event.data as string));
    } catch {
      messages.push(event.data);
    }
  });
  ws.addEventListener("close", (event) => {
    closed.code = event.code;
  });
  return { messages, closed };
}

async function until(check: () => boolean, label: string) {
  for (let i = 0; i < 300; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${label}`);
}

async function tokenOf(project: string, scope: "chat" | "approve" | "admin") {
  const res = await api("/api/tokens", {
    method: "POST",
    json: { name: `${scope} token`, scope },
    headers: { "x-pantheon-project": project },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string; scope: string };
}

async function agentIn(project: string) {
  const name = uniqueName("iso");
  const res = await api("/api/agents", {
    method: "POST",
    json: { name, description: "isolation test agent" },
    headers: { "x-pantheon-project": project },
  });
  expect(res.status).toBe(201);
  return name;
}

describe("hole 1: a token of one project opens no socket of another", () => {
  it("a default-project token is refused on project b's agent socket, and hears nothing of its runs", async () => {
    const b = uniqueName("projb");
    const secretAgent = await agentIn(b);
    const { token } = await tokenOf("default", "admin");

    const res = await openSocket(`/agents/agent-do/${b}.${secretAgent}`, token);
    expect(res.status).toBe(401);
    expect(res.webSocket).toBeFalsy();
    // Naming project b in the query or header changes nothing: the path decides, and the token is not b's.
    expect((await openSocket(`/agents/agent-do/${b}.${secretAgent}?project=${b}`, token)).status).toBe(401);
    expect((await openSocket(`/agents/agent-do/${b}.${secretAgent}`, token, { "x-pantheon-project": b })).status).toBe(
      401,
    );
    // Nor does a token of project b open project a's agent with a's name in the query.
    const own = await tokenOf(b, "chat");
    const aAgent = (await createAgent()).name;
    expect((await openSocket(`/agents/agent-do/default.${aAgent}?project=${b}`, own.token)).status).toBe(401);
  });

  it("a token of the agent's own project (any scope) and the admin secret are let in", async () => {
    const b = uniqueName("projb");
    const agent = await agentIn(b);
    const { token } = await tokenOf(b, "chat");
    const res = await openSocket(`/agents/agent-do/${b}.${agent}`, token);
    expect(res.status).toBe(101);
    res.webSocket!.accept();
    res.webSocket!.close();
    const admin = await openSocket(`/agents/agent-do/${b}.${agent}`, adminToken);
    expect(admin.status).toBe(101);
    admin.webSocket!.accept();
    admin.webSocket!.close();
  });

  it("only the agent binding is routable: the registry, unknown bindings and malformed names are 404 JSON", async () => {
    for (const path of [
      "/agents/registry/default",
      "/agents/registry/x",
      "/agents/nope/default.x",
      "/agents/agent-do/no-dot",
      "/agents/agent-do/default.",
      "/agents/agent-do/Default.x",
      "/agents/agent-do/default.x/extra",
      "/agents/agent-do/%E0%A4%A",
      "/agents/agent-do",
    ]) {
      const res = await openSocket(path, adminToken);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as ErrorBody).error.code, path).toBe("not_found");
    }
  });

  it("an agent that does not exist is 404, and a plain request (no upgrade) is 400", async () => {
    const missing = await openSocket(`/agents/agent-do/default.${uniqueName("ghost")}`, adminToken);
    expect(missing.status).toBe(404);
    const agent = await createAgent();
    const plain = await api(`/agents/agent-do/default.${agent.name}?token=${adminToken}`, { token: null });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as ErrorBody).error.message).toContain("WebSocket");
  });
});

describe("hole 2: socket clients cannot write the agent's state", () => {
  it("a null state frame is refused, every route keeps working, and other clients never see a forged state", async () => {
    const agent = await createAgent();
    const path = `/agents/agent-do/default.${agent.name}`;
    const attacker = (await openSocket(path, adminToken)).webSocket!;
    attacker.accept();
    const heard = listen(attacker);
    const bystanderSocket = (await openSocket(path, adminToken)).webSocket!;
    bystanderSocket.accept();
    const bystander = listen(bystanderSocket);
    await until(
      () =>
        heard.messages.some((m) => m.type === "cf_agent_state") &&
        bystander.messages.some((m) => m.type === "cf_agent_state"),
      "initial states",
    );

    attacker.send(JSON.stringify({ type: "cf_agent_state", state: null }));
    attacker.send(
      JSON.stringify({
        type: "cf_agent_state",
        state: { status: "waiting_approval", runId: "forged", typing: false, lastActivityAt: 1 },
      }),
    );
    await until(() => heard.messages.filter((m) => m.type === "cf_agent_state_error").length === 2, "two refusals");

    expect((await api("/api/agents")).status).toBe(200);
    const detail = await api(`/api/agents/${agent.name}`);
    expect(detail.status).toBe(200);
    expect(((await detail.json()) as any).status).toBe("idle");
    const reply = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "still there?" },
    });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as any).status).toBe("completed");
    await until(
      () => bystander.messages.some((m) => m.type === "run_event" && m.event.type === "done"),
      "the run's events",
    );
    const seen = bystander.messages.filter((m) => m.type === "cf_agent_state").map((m) => m.state);
    expect(seen.every((s) => s && s.runId !== "forged" && s.status !== "waiting_approval")).toBe(true);
    attacker.close();
    bystanderSocket.close();
  });

  it("a malformed state already in storage never breaks a route, and is repaired on the next start", async () => {
    const agent = await createAgent();
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE cf_agents_state SET state = 'null'");
    });
    await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evict"))).rejects.toThrow();
    // The first call may still meet the instance being torn down; the next one builds a fresh one.
    await until(() => true, "a tick");
    for (let attempt = 0; ; attempt++) {
      try {
        await api(`/api/agents/${agent.name}`);
        break;
      } catch (error) {
        if (attempt > 5) throw error;
      }
    }

    expect((await api("/api/agents")).status).toBe(200);
    const detail = await api(`/api/agents/${agent.name}`);
    expect(detail.status).toBe(200);
    const reply = await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "hello" } });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as any).status).toBe("completed");
    const fresh = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    const stored = await runInDurableObject(
      fresh,
      (_instance, state) => state.storage.sql.exec("SELECT state FROM cf_agents_state").one().state as string,
    );
    expect(JSON.parse(stored)).toMatchObject({ status: "idle", typing: false });
  });
});

describe("revoking a token closes its sockets", () => {
  it("the socket of a deleted token is closed, even if its client forged the token header", async () => {
    const agent = await createAgent();
    const { id, token } = await tokenOf("default", "chat");
    const res = await openSocket(`/agents/agent-do/default.${agent.name}`, token, { "x-pantheon-token-id": "admin" });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const socket = listen(ws);
    await until(() => socket.messages.some((m) => m.type === "cf_agent_state"), "initial state");

    expect((await api(`/api/tokens/${id}`, { method: "DELETE" })).status).toBe(204);
    await until(() => socket.closed.code !== undefined, "the socket to close");
    expect(socket.closed.code).toBe(4401);
    // And it cannot come back.
    expect((await openSocket(`/agents/agent-do/default.${agent.name}`, token)).status).toBe(401);
  });
});

describe("token scopes", () => {
  it("a token's scope is chosen when it is made, shown in the list, and least privilege by default", async () => {
    const project = uniqueName("scopes");
    const headers = { "x-pantheon-project": project };
    const plain = await api("/api/tokens", { method: "POST", json: { name: "phone" }, headers });
    expect(((await plain.json()) as any).scope).toBe("chat");
    await api("/api/tokens", { method: "POST", json: { name: "ops", scope: "admin" }, headers });
    const listed = ((await (await api("/api/tokens", { headers })).json()) as any).tokens.map((t: any) => [
      t.name,
      t.scope,
    ]);
    expect(listed).toEqual([
      ["phone", "chat"],
      ["ops", "admin"],
    ]);
    const bad = await api("/api/tokens", { method: "POST", json: { name: "x", scope: "root" }, headers });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.details!.issues![0]!.path).toEqual(["scope"]);
  });

  it("a chat token talks and reads, and is refused (403, naming the scope) everything else", async () => {
    const agent = await createAgent();
    const { token } = await tokenOf("default", "chat");
    expect((await api("/api/agents", { token })).status).toBe(200);
    const said = await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "hi" }, token });
    expect(said.status).toBe(200);
    const runId = ((await said.json()) as any).runId as string;
    expect((await api(`/api/agents/${agent.name}/runs/${runId}`, { token })).status).toBe(200);
    expect((await api(`/api/agents/${agent.name}/messages`, { token })).status).toBe(200);

    const refused: [string, string, unknown?][] = [
      ["POST", "/api/agents", { name: uniqueName(), description: "x" }],
      ["PATCH", `/api/agents/${agent.name}`, { description: "taken over" }],
      ["DELETE", `/api/agents/${agent.name}`],
      ["PUT", `/api/agents/${agent.name}/script`, { name: agent.name }],
      ["POST", `/api/agents/${agent.name}/tools/clock.now/invoke`, { arguments: {} }],
      ["POST", `/api/agents/${agent.name}/mcp`, { name: "x", url: "https://example.com/mcp" }],
      ["GET", `/api/agents/${agent.name}/memories`],
      ["POST", "/api/tokens", { name: "escalate", scope: "admin" }],
      ["GET", "/api/tokens"],
      ["GET", "/api/approvals"],
      ["POST", `/api/agents/${agent.name}/runs/${runId}/approval`, { decision: "approve" }],
    ];
    for (const [method, path, json] of refused) {
      const res = await api(path, { method, token, ...(json !== undefined ? { json } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code).toBe("forbidden");
      expect(body.error.message).toMatch(/needs a token with the '(admin|approve)' scope; this token has 'chat'/);
    }
    // The agent was not changed by any of it.
    expect(((await (await api(`/api/agents/${agent.name}`)).json()) as any).description).toBe("A test agent");
  });

  it("an approve token decides approvals but cannot administer", async () => {
    const agent = await createAgent();
    const { token } = await tokenOf("default", "approve");
    expect((await api("/api/approvals", { token })).status).toBe(200);
    // Past the scope check: the run does not exist.
    expect(
      (
        await api(`/api/agents/${agent.name}/runs/nope/approval`, {
          method: "POST",
          json: { decision: "approve" },
          token,
        })
      ).status,
    ).toBe(404);
    const res = await api(`/api/agents/${agent.name}`, { method: "PATCH", json: { description: "x" }, token });
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorBody).error.message).toContain("'admin' scope; this token has 'approve'");
  });

  it("chat tokens reach /v1 and /mcp; an unknown /api route still needs admin", async () => {
    const agent = await createAgent();
    const { token } = await tokenOf("default", "chat");
    const completion = await api("/v1/chat/completions", {
      method: "POST",
      token,
      json: { model: agent.name, messages: [{ role: "user", content: "hi" }] },
    });
    expect(completion.status).toBe(200);
    const mcp = await api("/mcp", {
      method: "POST",
      token,
      headers: { accept: "application/json, text/event-stream" },
      json: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    expect(mcp.status).toBe(200);
    expect((await api("/api/no-such-route", { token })).status).toBe(403);
    expect((await api("/api/no-such-route")).status).toBe(404);
  });
});

import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent, type ErrorBody } from "./client";

function collect(ws: WebSocket) {
  const messages: any[] = [];
  ws.addEventListener("message", (event) => {
    try {
      messages.push(JSON.parse(event.data as string));
    } catch {
      messages.push(event.data);
    }
  });
  return messages;
}

async function until(check: () => boolean, label: string) {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${label}`);
}

describe("live updates over the agent's WebSocket", () => {
  it("a client with a token gets the agent's state and the run's events", async () => {
    const agent = await createAgent();
    const res = await api(`/agents/agent-do/default.${agent.name}?token=${adminToken}`, {
      token: null,
      headers: { upgrade: "websocket" },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const messages = collect(ws);
    await until(() => messages.some((m) => m.type === "cf_agent_state"), "initial state");
    expect(messages.find((m) => m.type === "cf_agent_state").state).toMatchObject({ status: "idle", typing: false });

    await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "hello" } });
    await until(() => messages.some((m) => m.type === "run_event" && m.event.type === "done"), "done event");
    const events = messages.filter((m) => m.type === "run_event").map((m) => m.event.type);
    expect(events[0]).toBe("run");
    expect(events.at(-1)).toBe("done");
    const states = messages.filter((m) => m.type === "cf_agent_state").map((m) => m.state.status);
    expect(states).toContain("running");
    expect(states.at(-1)).toBe("idle");
    ws.close();
  });

  it("a turn nobody watches still shows in the listing: running while it runs, then idle with its time as the last activity", async () => {
    const { scriptedAgent } = await import("../runs/scripted");
    const agent = await scriptedAgent();
    await agent.script([{ content: "Slowly.", delayMs: 800 }]);
    const before = Date.now();
    const pending = agent.send("take your time");
    let during = "";
    for (let i = 0; i < 50 && during !== "running"; i++) {
      during = ((await (await api(`/api/agents/${agent.name}`)).json()) as { status: string }).status;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(during).toBe("running");

    // A client that connects mid-run is told the agent is running.
    const res = await api(`/agents/agent-do/default.${agent.name}?token=${adminToken}`, {
      token: null,
      headers: { upgrade: "websocket" },
    });
    const ws = res.webSocket!;
    ws.accept();
    const messages = collect(ws);
    await until(
      () => messages.some((m) => m.type === "cf_agent_state" && m.state.status === "running"),
      "the running state",
    );
    ws.close();

    expect((await pending).body.status).toBe("completed");
    const after = (await (await api(`/api/agents/${agent.name}`)).json()) as { status: string; lastActivityAt: number };
    expect(after.status).toBe("idle");
    expect(after.lastActivityAt).toBeGreaterThanOrEqual(before);
  });

  it("a request that is not a WebSocket upgrade is the API's JSON 400, not the SDK's plain text", async () => {
    const agent = await createAgent();
    const res = await api(`/agents/agent-do/default.${agent.name}`, { method: "POST", json: { hello: "agent" } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({
      code: "bad_request",
      message: "this route only accepts WebSocket upgrades (send 'Upgrade: websocket')",
    });
    expect(res.headers.get("x-request-id")).toBe(body.error.requestId);
  });

  it("only the agents' binding is a socket route: the registry's is a JSON 404, not a 500", async () => {
    const res = await api("/agents/registry/default", { headers: { upgrade: "websocket" } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe("not_found");
    const unknown = await api("/agents/nothing/default.x", { headers: { upgrade: "websocket" } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ErrorBody).error.code).toBe("not_found");
  });

  it("a client cannot overwrite the agent's live state: the status the API reports stays the agent's", async () => {
    const agent = await createAgent();
    const res = await api(`/agents/agent-do/default.${agent.name}?token=${adminToken}`, {
      token: null,
      headers: { upgrade: "websocket" },
    });
    const ws = res.webSocket!;
    ws.accept();
    const messages = collect(ws);
    await until(() => messages.some((m) => m.type === "cf_agent_state"), "initial state");
    ws.send(
      JSON.stringify({
        type: "cf_agent_state",
        state: { status: "waiting_approval", runId: "forged", typing: true, lastActivityAt: 1 },
      }),
    );
    await until(() => messages.some((m) => m.type === "cf_agent_state_error"), "the refusal");
    expect(messages.find((m) => m.type === "cf_agent_state_error").error).toBe("Connection is readonly");
    const profile = (await (await api(`/api/agents/${agent.name}`)).json()) as { status: string };
    expect(profile.status).toBe("idle");
    ws.close();
  });

  it("a socket URL too long for the connection's attachment is a 400, not an upgrade that dies at once", async () => {
    const agent = await createAgent();
    const res = await api(`/agents/agent-do/default.${agent.name}?x=${"a".repeat(20_000)}`, {
      headers: { upgrade: "websocket" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({
      code: "bad_request",
      message: "the socket URL is longer than 8192 characters",
    });
  });
});

import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent } from "./client";

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
    const res = await api(`/agents/agent-do/default.${agent.name}?token=${adminToken}`, { token: null, headers: { upgrade: "websocket" } });
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
});

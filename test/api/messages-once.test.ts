import { describe, expect, it } from "vitest";
import { api, createAgent, type ErrorBody } from "./client";

// Messages arrive once: a message sent again with the same client id (an answer lost on a bad
// network, a Background Sync retry, the page's retry) is the first one — its run, its reply.

async function send(
  agent: string,
  json: Record<string, unknown>,
  init: { token?: string; headers?: HeadersInit } = {},
) {
  const res = await api(`/api/agents/${agent}/messages`, { method: "POST", json, ...init });
  return { res, body: (await res.json()) as any };
}

async function userMessages(agent: string, headers?: HeadersInit): Promise<string[]> {
  const history = (await (await api(`/api/agents/${agent}/messages?limit=200`, { headers })).json()) as any;
  return history.messages.filter((m: any) => m.role === "user").map((m: any) => m.content);
}

async function chatToken(project?: string): Promise<string> {
  const headers = project ? { "x-pantheon-project": project } : undefined;
  const res = await api("/api/tokens", { method: "POST", json: { name: "phone", scope: "chat" }, headers });
  return ((await res.json()) as { token: string }).token;
}

describe("a message sent again with its client id", () => {
  it("is the same message when the first answer was dropped after the server accepted it", async () => {
    const agent = await createAgent();
    const clientId = crypto.randomUUID();
    // The first send streams; the client reads that the run began, then its connection drops.
    const first = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "Tell me the launch code word", clientId },
      headers: { accept: "text/event-stream" },
    });
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    const opening = new TextDecoder().decode((await reader.read()).value);
    expect(opening).toContain("event: run");
    const firstRunId = JSON.parse(/^data: (.*)$/m.exec(opening)![1]!).runId as string;
    await reader.cancel();

    // The outbox sends it again: the first's run and reply come back, and nothing new is written.
    const again = await send(agent.name, { content: "Tell me the launch code word", clientId });
    expect(again.res.status).toBe(200);
    expect(again.body.runId).toBe(firstRunId);
    expect(again.body.status).toBe("completed");
    expect(again.body.reply.content.toLowerCase()).toContain("pineapple");
    const third = await send(agent.name, { content: "Tell me the launch code word", clientId });
    expect(third.body).toEqual(again.body);
    expect(await userMessages(agent.name)).toEqual(["Tell me the launch code word"]);
    const runs = (await (await api(`/api/agents/${agent.name}/runs`)).json()) as any;
    expect(runs.runs.map((r: any) => r.id)).toEqual([firstRunId]);
  });

  it("a repeat streamed answers the first run's end without running again", async () => {
    const agent = await createAgent();
    const clientId = crypto.randomUUID();
    const first = await send(agent.name, { content: "hello once", clientId });
    const res = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "hello once", clientId },
      headers: { accept: "text/event-stream" },
    });
    const text = await res.text();
    expect(text).toContain(`"runId":"${first.body.runId}"`);
    expect(text).toContain("event: done");
    expect(text).not.toContain("event: token");
    expect(await userMessages(agent.name)).toEqual(["hello once"]);
  });

  it("control: two client ids are two messages, and a message without one is always new", async () => {
    const agent = await createAgent();
    const a = await send(agent.name, { content: "same words", clientId: crypto.randomUUID() });
    const b = await send(agent.name, { content: "same words", clientId: crypto.randomUUID() });
    await send(agent.name, { content: "same words" });
    await send(agent.name, { content: "same words" });
    expect(a.body.runId).not.toBe(b.body.runId);
    expect(await userMessages(agent.name)).toEqual(["same words", "same words", "same words", "same words"]);
  });

  it("never meets the same id from another token, another agent or another project", async () => {
    const agent = await createAgent();
    const other = await createAgent();
    const clientId = crypto.randomUUID();
    const mine = await send(agent.name, { content: "from the admin", clientId });

    // Another token in the same agent: its own message, and it does not read the first one's reply.
    const token = await chatToken();
    const theirs = await send(agent.name, { content: "from the phone", clientId }, { token });
    expect(theirs.res.status).toBe(200);
    expect(theirs.body.runId).not.toBe(mine.body.runId);
    expect(theirs.body.userMessage.content).toBe("from the phone");
    expect(await userMessages(agent.name)).toEqual(["from the phone", "from the admin"]);

    // Another agent, another project: their own first message each.
    const elsewhere = await send(other.name, { content: "to the other agent", clientId });
    expect(elsewhere.body.userMessage.content).toBe("to the other agent");
    const headers = { "x-pantheon-project": "once-elsewhere" };
    await api("/api/agents", {
      method: "POST",
      json: { name: agent.name, description: "same name, other project", systemPrompt: "Be brief." },
      headers,
    });
    const project = await send(agent.name, { content: "in another project", clientId }, { headers });
    expect(project.res.status).toBe(200);
    expect(project.body.userMessage.content).toBe("in another project");
    expect(await userMessages(agent.name, headers)).toEqual(["in another project"]);
    // Control: the first agent's own repeat still finds its message.
    expect((await send(agent.name, { content: "from the admin", clientId })).body.runId).toBe(mine.body.runId);
  });

  it("refuses a client id that is not one, naming the field and what is allowed", async () => {
    const agent = await createAgent();
    const { res, body } = await send(agent.name, { content: "hi", clientId: "a b" });
    expect(res.status).toBe(400);
    const issue = (body as ErrorBody).error.details!.issues!.find((i) => i.path.includes("clientId"));
    expect(issue?.message).toContain("8 to 64 letters, digits");
    expect(await userMessages(agent.name)).toEqual([]);
  });
});

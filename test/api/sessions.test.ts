import { describe, expect, it } from "vitest";
import { api, createAgent } from "./client";

async function json(res: Response | Promise<Response>) {
  return (await (await res).json()) as any;
}

describe("sessions", () => {
  it("a message without a session goes to the default session", async () => {
    const agent = await createAgent();
    const sent = await json(api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "hi" } }));
    const sessions = await json(api(`/api/agents/${agent.name}/sessions`));
    expect(sessions.sessions).toHaveLength(1);
    expect(sessions.sessions[0]).toMatchObject({ id: sent.sessionId, isDefault: true });
  });

  it("creates, renames and deletes a session; its messages stay separate from the default", async () => {
    const agent = await createAgent();
    const created = await api(`/api/agents/${agent.name}/sessions`, {
      method: "POST",
      json: { title: "Trip planning" },
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as any;
    await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "Book Lisbon", session: session.id },
    });
    await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "Default thread" } });

    const inSession = await json(api(`/api/agents/${agent.name}/messages?session=${session.id}`));
    expect(inSession.messages.map((m: any) => m.content)).toContain("Book Lisbon");
    expect(inSession.messages.map((m: any) => m.content)).not.toContain("Default thread");

    const renamed = await json(
      api(`/api/agents/${agent.name}/sessions/${session.id}`, { method: "PATCH", json: { title: "Lisbon" } }),
    );
    expect(renamed.title).toBe("Lisbon");

    expect((await api(`/api/agents/${agent.name}/sessions/${session.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/api/agents/${agent.name}/messages?session=${session.id}`)).status).toBe(404);
    const list = await json(api(`/api/agents/${agent.name}/sessions`));
    expect(list.sessions.map((s: any) => s.id)).not.toContain(session.id);
  });

  it("forks a session from a chosen message: the fork has history up to it and diverges after", async () => {
    const agent = await createAgent();
    const first = await json(
      api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "first question" } }),
    );
    await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "second question" } });

    const fork = await api(`/api/agents/${agent.name}/sessions/${first.sessionId}/fork`, {
      method: "POST",
      json: { fromMessageId: first.reply.id, title: "What if" },
    });
    expect(fork.status).toBe(201);
    const forked = (await fork.json()) as any;
    expect(forked).toMatchObject({
      title: "What if",
      forkedFrom: { sessionId: first.sessionId, messageId: first.reply.id },
    });

    const forkHistory = await json(api(`/api/agents/${agent.name}/messages?session=${forked.id}`));
    expect(forkHistory.messages.map((m: any) => m.content).reverse()).toEqual(["first question", first.reply.content]);

    await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "only in the fork", session: forked.id },
    });
    const original = await json(api(`/api/agents/${agent.name}/messages?session=${first.sessionId}`));
    expect(original.messages.map((m: any) => m.content)).not.toContain("only in the fork");
  });

  it("fork from a message of another session is 404; unknown sessions are 404; bad titles 400", async () => {
    const agent = await createAgent();
    const a = await json(api(`/api/agents/${agent.name}/sessions`, { method: "POST", json: {} }));
    const b = await json(api(`/api/agents/${agent.name}/sessions`, { method: "POST", json: {} }));
    const sent = await json(
      api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "in a", session: a.id } }),
    );
    expect(
      (
        await api(`/api/agents/${agent.name}/sessions/${b.id}/fork`, {
          method: "POST",
          json: { fromMessageId: sent.reply.id },
        })
      ).status,
    ).toBe(404);
    expect((await api(`/api/agents/${agent.name}/sessions/nope/fork`, { method: "POST", json: {} })).status).toBe(404);
    expect(
      (await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "x", session: "nope" } }))
        .status,
    ).toBe(404);
    expect(
      (await api(`/api/agents/${agent.name}/sessions/${a.id}`, { method: "PATCH", json: { title: "" } })).status,
    ).toBe(400);
  });
});

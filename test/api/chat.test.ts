import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createAgent, readSse, type ErrorBody } from "./client";

async function send(agent: string, content: string, extra: Record<string, unknown> = {}) {
  const res = await api(`/api/agents/${agent}/messages`, { method: "POST", json: { content, ...extra } });
  return { res, body: (await res.json()) as any };
}

describe("one chat turn", () => {
  it("stores the message, answers from the agent's context, and stores the reply", async () => {
    const agent = await createAgent();
    const { res, body } = await send(agent.name, "What is the launch code word?");
    expect(res.status).toBe(200);
    expect(body.status).toBe("completed");
    expect(body.userMessage).toMatchObject({ role: "user", content: "What is the launch code word?" });
    expect(body.reply.role).toBe("assistant");
    expect(body.reply.content.toLowerCase()).toContain("pineapple");

    const history = (await (await api(`/api/agents/${agent.name}/messages`)).json()) as any;
    expect(history.messages.map((m: any) => m.role)).toEqual(["assistant", "user"]);
    expect(history.messages[0].id).toBe(body.reply.id);
  });

  it("uses recent history: a later turn can answer from an earlier message", async () => {
    const agent = await createAgent({ systemPrompt: "You are terse." });
    await send(agent.name, "My favourite colour is teal.");
    const { body } = await send(agent.name, "What is my favourite colour?");
    expect(body.reply.content.toLowerCase()).toContain("teal");
  });

  it("streams the reply as server-sent events when asked, ending with done", async () => {
    const agent = await createAgent();
    const res = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "Tell me the launch code word" },
      headers: { accept: "text/event-stream" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await readSse(res);
    expect(events[0]?.event).toBe("run");
    const tokens = events.filter((e) => e.event === "token");
    expect(tokens.length).toBeGreaterThan(1);
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    expect(done.data.status).toBe("completed");
    expect(tokens.map((t) => t.data.text).join("")).toBe(done.data.reply.content);

    const history = (await (await api(`/api/agents/${agent.name}/messages`)).json()) as any;
    expect(history.messages[0].content).toBe(done.data.reply.content);
  });

  it("traces the turn's steps with timings", async () => {
    const agent = await createAgent();
    const { body } = await send(agent.name, "hello there");
    const runs = (await (await api(`/api/agents/${agent.name}/runs`)).json()) as any;
    expect(runs.runs[0]).toMatchObject({ id: body.runId, status: "completed", trigger: "message" });
    const detail = (await (await api(`/api/agents/${agent.name}/runs/${body.runId}`)).json()) as any;
    // The reply passed the output gates before it went out: that decision is a step of its own.
    expect(detail.trace.map((s: any) => s.name)).toEqual([
      "run_started",
      "model_called",
      "model_result",
      "gate_decisions",
      "run_finished",
    ]);
    const model = detail.trace.find((s: any) => s.name === "model_result");
    expect(model.kind).toBe("model");
    expect(model.data.usage.outputTokens).toBeGreaterThan(0);
    for (const step of detail.trace) {
      expect(step.durationMs).toBeGreaterThanOrEqual(0);
      expect(step.startedAt).toBeGreaterThan(0);
    }
    expect(detail.trace.map((s: any) => s.seq)).toEqual(detail.trace.map((_: unknown, i: number) => i + 1));
    expect((await api(`/api/agents/${agent.name}/runs/nope`)).status).toBe(404);
  });

  it("rejects empty and oversized messages with the field named", async () => {
    const agent = await createAgent();
    const empty = await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "   " } });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual(["content"]);
    const missing = await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { text: "hi" } });
    expect(missing.status).toBe(400);
    const long = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "x".repeat(40_000) },
    });
    expect(long.status).toBe(400);
    const history = (await (await api(`/api/agents/${agent.name}/messages`)).json()) as any;
    expect(history.messages).toEqual([]);
  });

  it("pages history newest first with an opaque cursor", async () => {
    const agent = await createAgent();
    for (const n of [1, 2, 3]) await send(agent.name, `message number ${n}`);
    const first = (await (await api(`/api/agents/${agent.name}/messages?limit=4`)).json()) as any;
    expect(first.messages).toHaveLength(4);
    expect(first.messages[1].content).toBe("message number 3");
    expect(first.nextCursor).toBeTruthy();
    const second = (await (
      await api(`/api/agents/${agent.name}/messages?limit=4&cursor=${encodeURIComponent(first.nextCursor)}`)
    ).json()) as any;
    expect(second.messages.map((m: any) => m.content)).toContain("message number 1");
    expect(second.messages).toHaveLength(2);
    expect(second.nextCursor).toBeNull();

    expect((await api(`/api/agents/${agent.name}/messages?cursor=garbage`)).status).toBe(400);
    expect((await api(`/api/agents/${agent.name}/messages?limit=0`)).status).toBe(400);
    expect((await api(`/api/agents/${agent.name}/messages?limit=abc`)).status).toBe(400);
  });

  it("history survives a fresh Durable Object instance", async () => {
    const agent = await createAgent();
    await send(agent.name, "Remember: the boat is called Marigold.");
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    // Drop the live instance: the next request builds a new one from SQLite alone.
    await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evict"))).rejects.toThrow("evict");
    await new Promise((r) => setTimeout(r, 10));
    const history = (await (await api(`/api/agents/${agent.name}/messages`)).json()) as any;
    expect(history.messages.map((m: any) => m.content)).toContain("Remember: the boat is called Marigold.");
    const { body } = await send(agent.name, "What is the boat called?");
    expect(body.reply.content).toContain("Marigold");
  });
});

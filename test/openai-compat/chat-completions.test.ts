import { SELF } from "cloudflare:test";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent, uniqueName } from "../api/client";

/** The real OpenAI SDK, pointed at the worker. */
function client(apiKey = adminToken) {
  return new OpenAI({
    apiKey,
    baseURL: "https://pantheon.test/v1",
    fetch: (input, init) => SELF.fetch(input as RequestInfo, init as RequestInit),
    maxRetries: 0,
  });
}

async function history(agent: string, session?: string): Promise<{ role: string; content: string }[]> {
  const res = await api(`/api/agents/${agent}/messages${session ? `?session=${session}` : ""}`);
  return ((await res.json()) as { messages: { role: string; content: string }[] }).messages;
}

describe("POST /v1/chat/completions", () => {
  it("answers as the agent named by model, and the turn lands in the agent's history", async () => {
    const agent = await createAgent();
    const answer = await client().chat.completions.create({
      model: agent.name,
      messages: [
        { role: "system", content: "ignored: the agent has its own prompt" },
        { role: "user", content: "What is the launch code word?" },
      ],
    });
    expect(answer.object).toBe("chat.completion");
    expect(answer.model).toBe(agent.name);
    expect(answer.choices[0]?.finish_reason).toBe("stop");
    const content = answer.choices[0]?.message.content ?? "";
    expect(content.toLowerCase()).toContain("pineapple");
    expect(answer.usage?.total_tokens).toBeGreaterThan(0);

    const stored = await history(agent.name);
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["assistant", content],
      ["user", "What is the launch code word?"],
    ]);
  });

  it("streams chat.completion.chunk deltas whose concatenation is the stored reply", async () => {
    const agent = await createAgent();
    const stream = await client().chat.completions.create({
      model: agent.name,
      messages: [{ role: "user", content: "Tell me the launch code word" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === agent.name)).toBe(true);
    const deltas = chunks.map((c) => c.choices[0]?.delta.content ?? "");
    expect(deltas.filter(Boolean).length).toBeGreaterThan(1);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);

    const [reply] = await history(agent.name);
    expect(reply?.role).toBe("assistant");
    expect(deltas.join("")).toBe(reply?.content);
    expect(reply?.content.toLowerCase()).toContain("pineapple");
  });

  it("ends the raw stream with data: [DONE]", async () => {
    const agent = await createAgent();
    const res = await api("/v1/chat/completions", {
      method: "POST",
      json: { model: agent.name, stream: true, messages: [{ role: "user", content: "hi" }] },
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = (await res.text()).split("\n\n").filter(Boolean);
    expect(frames.at(-1)).toBe("data: [DONE]");
  });

  it("keeps each OpenAI user in their own session of the agent", async () => {
    const agent = await createAgent();
    await client().chat.completions.create({
      model: agent.name,
      user: "alice",
      messages: [{ role: "user", content: "My favourite colour is teal." }],
    });
    await client().chat.completions.create({
      model: agent.name,
      user: "bob",
      messages: [{ role: "user", content: "I like maps." }],
    });
    const sessions = (
      (await (await api(`/api/agents/${agent.name}/sessions`)).json()) as { sessions: { id: string; title: string }[] }
    ).sessions;
    const alice = sessions.find((s) => s.title === "openai:alice");
    expect(alice).toBeDefined();
    expect((await history(agent.name, alice!.id)).map((m) => m.content)).toContain("My favourite colour is teal.");
    expect((await history(agent.name, alice!.id)).map((m) => m.content)).not.toContain("I like maps.");
    const again = await client().chat.completions.create({
      model: agent.name,
      user: "alice",
      messages: [{ role: "user", content: "What is my favourite colour?" }],
    });
    expect(again.choices[0]?.message.content?.toLowerCase()).toContain("teal");
  });

  it("answers 404 model_not_found in OpenAI's error shape for an unknown agent", async () => {
    const error = await client()
      .chat.completions.create({ model: "nobody-here", messages: [{ role: "user", content: "hello" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const e = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(e.status).toBe(404);
    expect(e.code).toBe("model_not_found");
    expect(e.param).toBe("model");
    expect(e.type).toBe("invalid_request_error");
    expect(e.message).toContain("nobody-here");
  });

  it("rejects a request without a user message with 400 naming the parameter", async () => {
    const agent = await createAgent();
    const res = await api("/v1/chat/completions", {
      method: "POST",
      json: { model: agent.name, messages: [{ role: "system", content: "only a system message" }] },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: "messages: include a message with role 'user' (or send an input object)",
        type: "invalid_request_error",
        param: "messages",
        code: "invalid_value",
      },
    });
    const missing = await api("/v1/chat/completions", { method: "POST", json: { model: agent.name } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { param: string } }).error.param).toBe("messages");
  });

  it("answers 401 in OpenAI's shape without a valid token", async () => {
    const agent = await createAgent();
    const error = await client("wrong-token")
      .chat.completions.create({ model: agent.name, messages: [{ role: "user", content: "hello" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("invalid_api_key");

    const bare = await api("/v1/chat/completions", {
      method: "POST",
      token: null,
      json: { model: agent.name, messages: [{ role: "user", content: "hi" }] },
    });
    expect(bare.status).toBe(401);
    expect(((await bare.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    expect(await history(agent.name)).toEqual([]);
  });
});

describe("GET /v1/models", () => {
  it("lists the project's agents as models", async () => {
    const first = await createAgent();
    const second = await createAgent();
    const ids = [];
    for await (const model of client().models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining([first.name, second.name]));
    const one = await client().models.retrieve(first.name);
    expect(one).toMatchObject({ id: first.name, object: "model", owned_by: "default" });
  });

  it("lists only the agents of the project the request names", async () => {
    const project = uniqueName("project");
    const res = await api("/api/agents", {
      method: "POST",
      headers: { "x-pantheon-project": project },
      json: { name: "far-away" },
    });
    expect(res.status).toBe(201);
    const models = await api("/v1/models", { headers: { "x-pantheon-project": project } });
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(["far-away"]);
  });
});

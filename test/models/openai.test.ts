import { describe, expect, it } from "vitest";
import { makeOpenAiLlm } from "../../adapters/llm-openai";
import type { LlmStreamEvent, ModelTool } from "../../core/ports";
import { makeOpenAiDouble } from "../doubles/openai-double";
import { notingTransport } from "../doubles/noting-transport";

const apiKey = "sk-test-OPENAI-secret-0123456789";
const clockTool: ModelTool = {
  name: "clock.now",
  description: "Current time",
  parameters: { type: "object", properties: { zone: { type: "string" } } },
};

async function collect(events: AsyncIterable<LlmStreamEvent>): Promise<LlmStreamEvent[]> {
  const out: LlmStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("OpenAI adapter (real openai SDK against a wire-format double)", () => {
  it("answers a plain completion and sends model, messages and the bearer key", async () => {
    const double = makeOpenAiDouble([{ text: "Hello, Ada." }]);
    const llm = makeOpenAiLlm({ apiKey, fetch: double.fetch });

    const reply = await llm.complete({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Greet me", name: "ada" },
      ],
      temperature: 0.2,
      maxTokens: 50,
    });

    expect(reply).toEqual({
      content: "Hello, Ada.",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 11, outputTokens: 7 },
      model: "gpt-4o-mini",
    });
    const sent = double.requests[0]!;
    expect(sent.url).toBe("https://api.openai.com/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(sent.body).toMatchObject({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Greet me", name: "ada" },
      ],
      temperature: 0.2,
      max_completion_tokens: 50,
    });
    expect(sent.body.stream).toBeUndefined();
    expect(sent.body.tools).toBeUndefined();
  });

  it("streams tokens whose concatenation is the final content, with usage from the last chunk", async () => {
    const double = makeOpenAiDouble([{ text: "The sky is blue today." }]);
    const llm = makeOpenAiLlm({ apiKey, fetch: double.fetch });

    const events = await collect(llm.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Sky?" }] }));

    const tokens = events.filter((event) => event.type === "token").map((event) => event.text);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe("The sky is blue today.");
    expect(events.at(-1)).toEqual({
      type: "done",
      response: {
        content: "The sky is blue today.",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 11, outputTokens: 7 },
        model: "gpt-4o-mini",
      },
    });
    expect(double.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("sends tools as function tools and returns the model's tool call with its dotted name restored", async () => {
    const double = makeOpenAiDouble([
      { toolCalls: [{ id: "call_1", name: "clock__now", arguments: { zone: "UTC" } }] },
    ]);
    const llm = makeOpenAiLlm({ apiKey, fetch: double.fetch });

    const reply = await llm.complete({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "time?" }],
      tools: [clockTool],
    });

    expect(reply.finishReason).toBe("tool_calls");
    expect(reply.content).toBe("");
    expect(reply.toolCalls).toEqual([{ id: "call_1", name: "clock.now", arguments: { zone: "UTC" } }]);
    expect(double.requests[0]!.body.tools).toEqual([
      {
        type: "function",
        function: { name: "clock__now", description: "Current time", parameters: clockTool.parameters },
      },
    ]);
  });

  it("assembles a streamed tool call from its argument deltas", async () => {
    const double = makeOpenAiDouble([
      { toolCalls: [{ id: "call_9", name: "clock__now", arguments: { zone: "Europe/Paris" } }] },
    ]);
    const llm = makeOpenAiLlm({ apiKey, fetch: double.fetch });

    const events = await collect(
      llm.stream({ model: "gpt-4o-mini", messages: [{ role: "user", content: "time?" }], tools: [clockTool] }),
    );

    const call = { id: "call_9", name: "clock.now", arguments: { zone: "Europe/Paris" } };
    expect(events.filter((event) => event.type === "tool_call")).toEqual([{ type: "tool_call", call }]);
    const done = events.at(-1);
    expect(done?.type === "done" && done.response.toolCalls).toEqual([call]);
    expect(done?.type === "done" && done.response.finishReason).toBe("tool_calls");
  });

  it("sends a tool result round trip in OpenAI's shape and reads the final answer", async () => {
    const double = makeOpenAiDouble([{ text: "It is noon in UTC." }]);
    const llm = makeOpenAiLlm({ apiKey, fetch: double.fetch });

    const reply = await llm.complete({
      model: "gpt-4o-mini",
      tools: [clockTool],
      messages: [
        { role: "user", content: "time?" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_1", name: "clock.now", arguments: { zone: "UTC" } }],
        },
        { role: "tool", content: "12:00", toolCallId: "call_1" },
      ],
    });

    expect(reply.content).toBe("It is noon in UTC.");
    expect(double.requests[0]!.body.messages).toEqual([
      { role: "user", content: "time?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "clock__now", arguments: '{"zone":"UTC"}' } }],
      },
      { role: "tool", content: "12:00", tool_call_id: "call_1" },
    ]);
  });

  it("reaches any OpenAI-compatible base URL and sends max_tokens there", async () => {
    const double = makeOpenAiDouble([{ text: "local", model: "llama-3.1-8b" }]);
    const llm = makeOpenAiLlm({ apiKey: "local", baseURL: "http://127.0.0.1:8080/v1", fetch: double.fetch });

    const reply = await llm.complete({ model: "llama", messages: [{ role: "user", content: "hi" }], maxTokens: 9 });

    expect(reply.model).toBe("llama-3.1-8b");
    expect(double.requests[0]!.url).toBe("http://127.0.0.1:8080/v1/chat/completions");
    expect(double.requests[0]!.body.max_tokens).toBe(9);
  });

  it("turns a 400 into a permanent LlmError with the provider's message and without the key", async () => {
    const double = makeOpenAiDouble([
      { error: { status: 400, message: `Invalid value for 'model'. Your key ${apiKey} is fine.` } },
    ]);
    const llm = makeOpenAiLlm({ apiKey, fetch: double.fetch });

    const error = await llm
      .complete({ model: "nope", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ name: "LlmError", provider: "openai", status: 400, retryable: false });
    expect((error as Error).message).toContain("Invalid value for 'model'.");
    expect((error as Error).message).not.toContain(apiKey);
    expect(JSON.stringify(error)).not.toContain(apiKey);
    expect(double.requests).toHaveLength(1);
  });

  it("marks 429 and 5xx as retryable", async () => {
    const double = makeOpenAiDouble([
      { error: { status: 429, message: "Rate limit reached", type: "rate_limit_exceeded" } },
      { error: { status: 503, message: "overloaded", type: "server_error" } },
    ]);
    const llm = makeOpenAiLlm({ apiKey, fetch: double.fetch });
    const request = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };

    await expect(llm.complete(request)).rejects.toMatchObject({ status: 429, retryable: true });
    await expect(llm.stream(request)[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      status: 503,
      retryable: true,
    });
  });

  it("turns a 200 that is not a completion (a proxy's page, an empty object) into an LlmError, not a crash", async () => {
    const answers = [
      new Response("<html>gateway</html>", { status: 200, headers: { "content-type": "text/html" } }),
      Response.json({}),
    ];
    const llm = makeOpenAiLlm({ apiKey, fetch: async () => answers.shift()! });
    const request = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };

    const notJson = await llm.complete(request).catch((e: unknown) => e);
    expect(notJson).toMatchObject({ name: "LlmError", provider: "openai", retryable: false });
    expect((notJson as Error).message).toMatch(/^openai failed: /);
    await expect(llm.complete(request)).rejects.toMatchObject({
      name: "LlmError",
      message: "openai answered without choices",
      retryable: true,
    });
  });

  it("stops reading a reply whose body stalls once the caller's signal aborts", async () => {
    // As fetch does: the body sent so far, then nothing, until the request's signal errors the body.
    const llm = makeOpenAiLlm({
      apiKey,
      fetch: async (_input, init) => {
        const body = new ReadableStream<Uint8Array>({
          start(stream) {
            stream.enqueue(new TextEncoder().encode('{"choices": ['));
            init?.signal?.addEventListener("abort", () => stream.error(init.signal!.reason), { once: true });
          },
        });
        return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    const controller = new AbortController();
    const pending = llm
      .complete({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], signal: controller.signal })
      .catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 20);

    expect(await pending).toMatchObject({ name: "LlmError", provider: "openai" });
  });

  it("reports each request as sent once it is on its way, before its answer is read", async () => {
    const double = makeOpenAiDouble([{ text: "one" }, { text: "two" }]);
    const order: string[] = [];
    const llm = makeOpenAiLlm({ apiKey, fetch: notingTransport(double.fetch, order) });

    await llm.complete({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
      onSent: () => order.push("sent"),
    });
    await collect(
      llm.stream({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "again" }],
        onSent: () => order.push("sent"),
      }),
    );

    expect(order).toEqual(["fetch", "sent", "answered", "fetch", "sent", "answered"]);
    // The marker rides to the transport only: the double saw an ordinary request.
    expect(double.requests).toHaveLength(2);
  });

  it("refuses to be built without a key", () => {
    expect(() => makeOpenAiLlm({ apiKey: "" })).toThrow("makeOpenAiLlm needs an apiKey");
  });
});

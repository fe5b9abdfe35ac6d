import { describe, expect, it } from "vitest";
import { makeAnthropicLlm } from "../../adapters/llm-anthropic";
import type { LlmStreamEvent, ModelTool } from "../../core/ports";
import { makeAnthropicDouble } from "../doubles/anthropic-double";
import { notingTransport } from "../doubles/noting-transport";

const apiKey = "sk-ant-test-SECRET-abcdefghijklmnop";
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

describe("Anthropic adapter (real @anthropic-ai/sdk against a wire-format double)", () => {
  it("reports a request as sent once it is on its way, before its answer is read", async () => {
    const double = makeAnthropicDouble([{ text: "Bonjour." }]);
    const order: string[] = [];
    const llm = makeAnthropicLlm({ apiKey, fetch: notingTransport(double.fetch, order) });

    await llm.complete({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "hi" }],
      onSent: () => order.push("sent"),
    });

    expect(order).toEqual(["fetch", "sent", "answered"]);
  });

  it("answers a plain completion, taking the system prompt out of the messages", async () => {
    const double = makeAnthropicDouble([{ text: "Bonjour." }]);
    const llm = makeAnthropicLlm({ apiKey, fetch: double.fetch });

    const reply = await llm.complete({
      model: "claude-haiku-4-5",
      messages: [
        { role: "system", content: "Answer in French." },
        { role: "user", content: "Hello" },
      ],
    });

    expect(reply).toEqual({
      content: "Bonjour.",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 13, outputTokens: 5 },
      model: "claude-haiku-4-5",
    });
    const sent = double.requests[0]!;
    expect(sent.url).toBe("https://api.anthropic.com/v1/messages");
    // SDK versions differ on the header (x-api-key or a bearer token); the key must be on one of them.
    expect(sent.headers["x-api-key"] ?? sent.headers.authorization?.replace(/^Bearer /, "")).toBe(apiKey);
    expect(sent.headers["anthropic-version"]).toBeTruthy();
    expect(sent.body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 4096,
      system: "Answer in French.",
      messages: [{ role: "user", content: "Hello" }],
    });
  });

  it("streams text deltas whose concatenation is the final content", async () => {
    const double = makeAnthropicDouble([{ text: "Tides follow the moon." }]);
    const llm = makeAnthropicLlm({ apiKey, fetch: double.fetch });

    const events = await collect(
      llm.stream({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "Tides?" }], maxTokens: 100 }),
    );

    const tokens = events.filter((event) => event.type === "token").map((event) => event.text);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe("Tides follow the moon.");
    expect(events.at(-1)).toEqual({
      type: "done",
      response: {
        content: "Tides follow the moon.",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 13, outputTokens: 5 },
        model: "claude-haiku-4-5",
      },
    });
    expect(double.requests[0]!.body).toMatchObject({ stream: true, max_tokens: 100 });
  });

  it("sends tools with input_schema and returns a tool_use block as a tool call", async () => {
    const double = makeAnthropicDouble([
      { text: "Let me check.", toolCalls: [{ id: "toolu_1", name: "clock__now", arguments: { zone: "UTC" } }] },
    ]);
    const llm = makeAnthropicLlm({ apiKey, fetch: double.fetch });

    const reply = await llm.complete({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "time?" }],
      tools: [clockTool],
    });

    expect(reply.content).toBe("Let me check.");
    expect(reply.finishReason).toBe("tool_calls");
    expect(reply.toolCalls).toEqual([{ id: "toolu_1", name: "clock.now", arguments: { zone: "UTC" } }]);
    expect(double.requests[0]!.body.tools).toEqual([
      { name: "clock__now", description: "Current time", input_schema: clockTool.parameters },
    ]);
  });

  it("assembles a streamed tool call from input_json_delta pieces", async () => {
    const double = makeAnthropicDouble([
      { toolCalls: [{ id: "toolu_7", name: "clock__now", arguments: { zone: "Asia/Tokyo" } }] },
    ]);
    const llm = makeAnthropicLlm({ apiKey, fetch: double.fetch });

    const events = await collect(
      llm.stream({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "time?" }], tools: [clockTool] }),
    );

    const call = { id: "toolu_7", name: "clock.now", arguments: { zone: "Asia/Tokyo" } };
    expect(events.filter((event) => event.type !== "done")).toEqual([{ type: "tool_call", call }]);
    const done = events.at(-1);
    expect(done?.type === "done" && done.response).toMatchObject({
      toolCalls: [call],
      finishReason: "tool_calls",
      content: "",
    });
  });

  it("sends tool results back as tool_result blocks, merging consecutive results into one user turn", async () => {
    const double = makeAnthropicDouble([{ text: "Noon in UTC, 9pm in Tokyo." }]);
    const llm = makeAnthropicLlm({ apiKey, fetch: double.fetch });

    const reply = await llm.complete({
      model: "claude-haiku-4-5",
      tools: [clockTool],
      messages: [
        { role: "system", content: "You tell time." },
        { role: "user", content: "time in UTC and Tokyo?" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "toolu_a", name: "clock.now", arguments: { zone: "UTC" } },
            { id: "toolu_b", name: "clock.now", arguments: { zone: "Asia/Tokyo" } },
          ],
        },
        { role: "tool", content: "12:00", toolCallId: "toolu_a" },
        { role: "tool", content: "21:00", toolCallId: "toolu_b" },
      ],
    });

    expect(reply.content).toBe("Noon in UTC, 9pm in Tokyo.");
    expect(double.requests[0]!.body.messages).toEqual([
      { role: "user", content: "time in UTC and Tokyo?" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_a", name: "clock__now", input: { zone: "UTC" } },
          { type: "tool_use", id: "toolu_b", name: "clock__now", input: { zone: "Asia/Tokyo" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "12:00" },
          { type: "tool_result", tool_use_id: "toolu_b", content: "21:00" },
        ],
      },
    ]);
  });

  it("turns a 400 into a permanent LlmError carrying Anthropic's message, never the key", async () => {
    const double = makeAnthropicDouble([
      { error: { status: 400, message: `messages: roles must alternate (key ${apiKey})` } },
    ]);
    const llm = makeAnthropicLlm({ apiKey, baseURL: "http://127.0.0.1:9/anthropic", fetch: double.fetch });

    const error = await llm
      .complete({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ name: "LlmError", provider: "anthropic", status: 400, retryable: false });
    expect((error as Error).message).toContain("messages: roles must alternate");
    expect((error as Error).message).not.toContain(apiKey);
    expect(double.requests[0]!.url).toBe("http://127.0.0.1:9/anthropic/v1/messages");
  });

  it("marks 429 and 529 overload as retryable", async () => {
    const double = makeAnthropicDouble([
      { error: { status: 429, message: "Number of request tokens has exceeded your rate limit" } },
      { error: { status: 529, message: "Overloaded" } },
    ]);
    const llm = makeAnthropicLlm({ apiKey, fetch: double.fetch });
    const request = { model: "claude-haiku-4-5", messages: [{ role: "user" as const, content: "hi" }] };

    await expect(llm.complete(request)).rejects.toMatchObject({
      status: 429,
      retryable: true,
      message: expect.stringContaining("rate limit"),
    });
    await expect(llm.stream(request)[Symbol.asyncIterator]().next()).rejects.toMatchObject({
      status: 529,
      retryable: true,
    });
  });
});

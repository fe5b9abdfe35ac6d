import { describe, expect, it } from "vitest";
import { makeWorkersAiLlm, type WorkersAiBinding } from "../../adapters/llm-workers-ai";
import type { LlmStreamEvent, ModelTool } from "../../core/ports";

const clockTool: ModelTool = {
  name: "clock.now",
  description: "Current time",
  parameters: { type: "object", properties: {} },
};
const model = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

/** Stands in for env.AI: records each run() and answers (or throws) what the test scripted. */
function fakeAi(answers: (unknown | Error)[]) {
  const calls: { model: string; input: any }[] = [];
  const ai: WorkersAiBinding = {
    async run(runModel, input) {
      calls.push({ model: runModel, input });
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { ai, calls };
}

describe("Workers AI adapter", () => {
  it("sends messages and tools to the binding and reads response, tool_calls and usage", async () => {
    const { ai, calls } = fakeAi([
      {
        response: "",
        tool_calls: [{ name: "clock__now", arguments: { zone: "UTC" } }],
        usage: { prompt_tokens: 30, completion_tokens: 4 },
      },
    ]);
    const llm = makeWorkersAiLlm({ ai });

    const reply = await llm.complete({
      model,
      messages: [
        { role: "system", content: "Tell time." },
        { role: "user", content: "time?" },
      ],
      tools: [clockTool],
      maxTokens: 64,
    });

    expect(reply).toEqual({
      content: "",
      toolCalls: [{ id: "call_0", name: "clock.now", arguments: { zone: "UTC" } }],
      finishReason: "tool_calls",
      usage: { inputTokens: 30, outputTokens: 4 },
      model,
    });
    expect(calls[0]).toEqual({
      model,
      input: {
        messages: [
          { role: "system", content: "Tell time." },
          { role: "user", content: "time?" },
        ],
        tools: [{ name: "clock__now", description: "Current time", parameters: clockTool.parameters }],
        max_tokens: 64,
      },
    });
  });

  it("reads models that answer in the OpenAI chat shape", async () => {
    const { ai } = fakeAi([
      { model: "@cf/openai/gpt-oss-20b", choices: [{ message: { content: "Forty-two." }, finish_reason: "stop" }] },
    ]);

    const reply = await makeWorkersAiLlm({ ai }).complete({
      model: "@cf/openai/gpt-oss-20b",
      messages: [{ role: "user", content: "answer?" }],
    });

    expect(reply).toMatchObject({ content: "Forty-two.", finishReason: "stop", model: "@cf/openai/gpt-oss-20b" });
  });

  it("streams as one token, its tool calls, then done", async () => {
    const { ai } = fakeAi([{ response: "Hello there." }]);
    const events: LlmStreamEvent[] = [];

    for await (const event of makeWorkersAiLlm({ ai }).stream({ model, messages: [{ role: "user", content: "hi" }] }))
      events.push(event);

    expect(events.map((event) => event.type)).toEqual(["token", "done"]);
    expect(events[0]).toEqual({ type: "token", text: "Hello there." });
  });

  it("marks capacity errors retryable and bad input permanent", async () => {
    const { ai } = fakeAi([
      new Error("3040: Capacity temporarily exceeded, please try again."),
      new Error("5006: Error: required properties at '/' are 'messages'"),
    ]);
    const llm = makeWorkersAiLlm({ ai });
    const request = { model, messages: [{ role: "user" as const, content: "hi" }] };

    await expect(llm.complete(request)).rejects.toMatchObject({
      name: "LlmError",
      provider: "workers-ai",
      retryable: true,
      message: expect.stringContaining("Capacity temporarily exceeded"),
    });
    await expect(llm.complete(request)).rejects.toMatchObject({
      name: "LlmError",
      retryable: false,
      message: expect.stringContaining("required properties"),
    });
  });
});

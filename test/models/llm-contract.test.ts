import { describe, expect, it } from "vitest";
import { makeAnthropicLlm } from "../../adapters/llm-anthropic";
import { makeOfflineLlm } from "../../adapters/llm-offline";
import { makeOpenAiLlm } from "../../adapters/llm-openai";
import { makeWorkersAiLlm } from "../../adapters/llm-workers-ai";
import type { LlmPort, LlmRequest, LlmStreamEvent, ModelTool } from "../../core/ports";
import { makeAnthropicDouble } from "../doubles/anthropic-double";
import { makeOpenAiDouble } from "../doubles/openai-double";

const clockTool: ModelTool = {
  name: "clock.now",
  description: "Current time",
  parameters: { type: "object", properties: { zone: { type: "string" } } },
};
const context = "The museum opens at ten in the morning.";
const textRequest: LlmRequest = {
  model: "m",
  messages: [
    { role: "system", content: context },
    { role: "user", content: "When does the museum open?" },
  ],
};
const toolRequest: LlmRequest = {
  model: "m",
  tools: [clockTool],
  messages: [{ role: "user", content: '/tool clock.now {"zone":"UTC"}' }],
};

type Scenario = "text" | "tool";
const textReply = { text: context };
const toolReply = { toolCalls: [{ id: "c1", name: "clock__now", arguments: { zone: "UTC" } }] };
const twice = <T>(value: T) => [value, value];

/** Each adapter, scripted to answer the scenario's request twice (once completed, once streamed). */
const adapters: Record<string, (scenario: Scenario) => LlmPort> = {
  openai: (scenario) =>
    makeOpenAiLlm({
      apiKey: "sk-contract",
      fetch: makeOpenAiDouble(twice(scenario === "text" ? textReply : toolReply)).fetch,
    }),
  anthropic: (scenario) =>
    makeAnthropicLlm({
      apiKey: "sk-ant-contract",
      fetch: makeAnthropicDouble(twice(scenario === "text" ? textReply : toolReply)).fetch,
    }),
  "workers-ai": (scenario) => {
    const answers = twice(
      scenario === "text"
        ? { response: context }
        : { tool_calls: [{ name: "clock__now", arguments: { zone: "UTC" } }] },
    );
    return makeWorkersAiLlm({ ai: { run: async () => answers.shift() } });
  },
  offline: () => makeOfflineLlm(),
};

async function collect(events: AsyncIterable<LlmStreamEvent>): Promise<LlmStreamEvent[]> {
  const out: LlmStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

for (const [name, make] of Object.entries(adapters)) {
  describe(`LlmPort contract: ${name}`, () => {
    it("streams the same answer it completes, ending with exactly one done", async () => {
      const llm = make("text");
      const complete = await llm.complete(textRequest);
      const events = await collect(llm.stream(textRequest));

      expect(complete.content).toContain(context);
      expect(complete.finishReason).toBe("stop");
      expect(events.filter((event) => event.type === "done")).toHaveLength(1);
      const done = events.at(-1);
      expect(done?.type).toBe("done");
      if (done?.type !== "done") return;
      const tokens = events.flatMap((event) => (event.type === "token" ? [event.text] : []));
      expect(tokens.join("")).toBe(done.response.content);
      expect(done.response.content).toBe(complete.content);
    });

    it("proposes a tool call by its Pantheon name, streamed as a tool_call event", async () => {
      const llm = make("tool");
      const complete = await llm.complete(toolRequest);
      const events = await collect(llm.stream(toolRequest));

      expect(complete.finishReason).toBe("tool_calls");
      expect(complete.toolCalls).toMatchObject([{ name: "clock.now", arguments: { zone: "UTC" } }]);
      const done = events.at(-1);
      const streamedCalls = events.flatMap((event) => (event.type === "tool_call" ? [event.call] : []));
      expect(done?.type === "done" && done.response.toolCalls).toEqual(streamedCalls);
      expect(streamedCalls).toMatchObject([{ name: "clock.now", arguments: { zone: "UTC" } }]);
    });

    it("reports usage as non-negative token counts", async () => {
      const { usage } = await make("text").complete(textRequest);

      expect(usage.inputTokens).toBeGreaterThan(0);
      expect(usage.outputTokens).toBeGreaterThan(0);
    });
  });
}

import { describe, expect, it } from "vitest";
import type { LlmPort, LlmRequest, Message } from "../../core/ports";
import { estimateTokenizer, extractiveSummary, foldIntoSummary, makeLlmSummarizer, planFold } from "../../core/context";

const turns: Message[] = Array.from({ length: 12 }, (_, i) => ({
  role: i % 2 ? "assistant" : "user",
  content: `message ${i}`,
}));

describe("planFold", () => {
  it("folds every turn older than the window, oldest first", () => {
    const plan = planFold({ turns, windowSize: 4, summaryTokens: 200 });
    expect(plan.fold).toEqual(turns.slice(0, 8));
    expect(plan.keep).toEqual(turns.slice(8));
    expect(plan.summaryTokens).toBe(200);
  });

  it("folds nothing while the conversation fits the window", () => {
    expect(planFold({ turns, windowSize: 20, summaryTokens: 200 }).fold).toEqual([]);
  });

  it("folds more while the window is over its token allowance", () => {
    const long: Message[] = [
      ...turns.slice(0, 10),
      { role: "user", content: "x".repeat(400) },
      { role: "assistant", content: "ok" },
    ];
    const plan = planFold({ turns: long, windowSize: 6, summaryTokens: 100, windowTokens: 120 });
    // 6 turns cost 137 tokens; the three oldest of them go until the window is within 120.
    expect(plan.keep).toEqual(long.slice(9));
    expect(plan.fold).toEqual(long.slice(0, 9));
  });

  it("never leaves a tool result at the start of the window", () => {
    const withTool: Message[] = [
      { role: "user", content: "find it" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "search", arguments: {} }] },
      { role: "tool", content: "result", toolCallId: "c1" },
      { role: "assistant", content: "here" },
    ];
    const plan = planFold({ turns: withTool, windowSize: 2, summaryTokens: 50 });
    expect(plan.keep).toEqual([withTool[3]]);
    expect(plan.fold).toHaveLength(3);
  });
});

describe("foldIntoSummary", () => {
  it("uses the model's summary when it answers", async () => {
    const seen: unknown[] = [];
    const result = await foldIntoSummary(
      "Ada lives in Lyon.",
      turns.slice(0, 2),
      async (request) => {
        seen.push(request);
        return "  Ada lives in Lyon and said hello.  ";
      },
      { maxTokens: 50 },
    );
    expect(result).toEqual({ summary: "Ada lives in Lyon and said hello.", method: "model" });
    expect(seen).toEqual([{ previousSummary: "Ada lives in Lyon.", turns: turns.slice(0, 2), maxTokens: 50 }]);
  });

  it("falls back to an extractive summary that keeps the previous one when the model returns nothing", async () => {
    const result = await foldIntoSummary(
      "Ada lives in Lyon.",
      [{ role: "user", content: "My dog is named Biscuit." }],
      async () => "",
      { maxTokens: 60 },
    );
    expect(result.method).toBe("extractive");
    expect(result.summary).toBe("Ada lives in Lyon.\nUser: My dog is named Biscuit.");
  });

  it("leaves the summary unchanged when there is nothing to fold", async () => {
    const result = await foldIntoSummary("kept", [], async () => {
      throw new Error("must not be called");
    });
    expect(result).toEqual({ summary: "kept", method: "unchanged" });
  });

  it("cuts a model summary that is longer than asked", async () => {
    const result = await foldIntoSummary("", turns, async () => "word ".repeat(500), { maxTokens: 30 });
    expect(estimateTokenizer.count(result.summary)).toBeLessThanOrEqual(30);
  });

  it("asks the model through the LlmPort with the earlier summary and the turns", async () => {
    const requests: LlmRequest[] = [];
    const llm: LlmPort = {
      provider: "test",
      async complete(request) {
        requests.push(request);
        return {
          content: "Short summary.",
          toolCalls: [],
          finishReason: "stop",
          usage: { inputTokens: 1, outputTokens: 1 },
          model: request.model,
        };
      },
      stream: () => {
        throw new Error("not used");
      },
    };
    const result = await foldIntoSummary("Earlier.", turns.slice(0, 2), makeLlmSummarizer({ llm, model: "m" }), {
      maxTokens: 100,
    });
    expect(result.summary).toBe("Short summary.");
    expect(requests[0]!.model).toBe("m");
    expect(requests[0]!.messages.at(-1)!.content).toContain("Earlier summary:\nEarlier.");
    expect(requests[0]!.messages.at(-1)!.content).toContain("user: message 0");
  });
});

describe("extractiveSummary", () => {
  const chat: Message[] = [
    { role: "user", content: "Hi there! My name is Ada. I need the Atlas report by Friday. What's the weather?" },
    { role: "assistant", content: "Hello Ada. It is sunny. I will remember the Atlas deadline." },
    { role: "tool", content: "raw tool output that should not be summarised" },
    { role: "user", content: "ok cool" },
  ];

  it("keeps the telling sentences in order, with their speaker, within the token limit", () => {
    const summary = extractiveSummary(chat, 17);
    expect(estimateTokenizer.count(summary)).toBeLessThanOrEqual(17);
    expect(summary).toBe("User: My name is Ada.\nUser: I need the Atlas report by Friday.");
  });

  it("returns nothing for a zero budget and never includes tool output", () => {
    expect(extractiveSummary(chat, 0)).toBe("");
    expect(extractiveSummary(chat, 1000)).not.toContain("raw tool output");
  });
});

import { describe, expect, it } from "vitest";
import type { Message } from "../../core/ports";
import {
  countTokens,
  estimateTokenizer,
  extractiveSummary,
  foldIntoSummary,
  makeContextEngine,
  memoryHeader,
  planFold,
  summaryHeader,
  truncationMarker,
  type CompileInput,
  type Tokenizer,
} from "../../core/context";
import { fixedClock, fixtureFacts, makeMemoryStore, paraphrases, seededRandom } from "./fixture";

const words = "alpha beta gamma delta lunch dog budget tulip report Lyon train cello nurse June".split(" ");

function text(random: () => number, maxChars: number): string {
  const target = Math.floor(random() * maxChars);
  let out = "";
  while (out.length < target) out += words[Math.floor(random() * words.length)] + (random() < 0.1 ? ". " : " ");
  return out.trim();
}

function conversation(random: () => number, turns: number, maxChars: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < turns; i++) {
    const roll = random();
    if (roll < 0.1) {
      messages.push({
        role: "assistant",
        content: "",
        toolCalls: [{ id: `c${i}`, name: "search", arguments: { q: text(random, 40) } }],
      });
      messages.push({ role: "tool", content: text(random, maxChars), toolCallId: `c${i}` });
    } else {
      messages.push({ role: i % 2 === 0 ? "user" : "assistant", content: text(random, maxChars) });
    }
  }
  return messages;
}

/** Counts words, not characters: budget checks must follow whichever tokenizer is injected. */
const wordTokenizer: Tokenizer = { count: (t) => t.split(/\s+/).filter(Boolean).length, messageOverhead: 3 };

const base = {
  systemPrompt: "You are a helpful personal assistant.",
  sessionId: "s1",
  sources: ["memory", "docs"],
  recencyWindow: 20,
  halfLifeDays: 30,
};

describe("token budget", () => {
  it("is never exceeded, over 300 random prompts, histories, summaries and budgets (seeded)", async () => {
    const random = seededRandom(20250601);
    for (let run = 0; run < 300; run++) {
      const tokenizer = run % 3 === 0 ? wordTokenizer : estimateTokenizer;
      const history = conversation(random, Math.floor(random() * 30), 800);
      const store = makeMemoryStore({ items: fixtureFacts, sessions: { s1: history } });
      const engine = makeContextEngine({ store, clock: fixedClock, tokenizer });
      const maxTokens = Math.floor(random() * (random() < 0.3 ? 40 : 3000));
      const input: CompileInput = {
        ...base,
        systemPrompt: text(random, 3000),
        goal: random() < 0.5 ? text(random, 300) : undefined,
        query:
          random() < 0.5
            ? paraphrases[Math.floor(random() * paraphrases.length)]!.question
            : text(random, 2000) || "hi",
        summary: random() < 0.5 ? text(random, 2000) : undefined,
        recencyWindow: Math.floor(random() * 40),
        budget: { maxTokens, reserveForReply: Math.floor(random() * maxTokens * 0.6) },
      };
      const { messages, tokens, overflow } = await engine.compile(input);
      const context = `run ${run}: budget ${tokens.budget}`;
      expect(tokens.used, context).toBe(countTokens(messages, tokenizer));
      expect(tokens.used, context).toBeLessThanOrEqual(tokens.budget);
      expect(tokens.budget, context).toBe(Math.max(0, input.budget.maxTokens - input.budget.reserveForReply));
      if (tokens.budget >= 2 * tokenizer.messageOverhead) {
        expect(messages[0]?.role, context).toBe("system");
        expect(messages.at(-1)?.role, context).toBe("user");
      }
      const kept = messages.filter((m) => m.role !== "system").slice(0, -1);
      const window = history.slice(-input.recencyWindow || history.length + 1);
      expect([...overflow, ...kept], context).toEqual(input.recencyWindow ? window : []);
      expect(kept[0]?.role, context).not.toBe("tool");
    }
  });

  it("keeps the question and cuts the system prompt with a marker when the two alone do not fit", async () => {
    const engine = makeContextEngine({
      store: makeMemoryStore({ items: fixtureFacts, sessions: { s1: [{ role: "user", content: "earlier" }] } }),
      clock: fixedClock,
    });
    const systemPrompt = "You are a careful assistant. ".repeat(50);
    const { messages, tokens, items, warnings, overflow } = await engine.compile({
      ...base,
      systemPrompt,
      query: "What do I call my puppy?",
      budget: { maxTokens: 60, reserveForReply: 10 },
    });
    expect(messages).toHaveLength(2);
    expect(messages[0]!.content.endsWith(truncationMarker)).toBe(true);
    expect(systemPrompt.startsWith(messages[0]!.content.slice(0, -truncationMarker.length))).toBe(true);
    expect(messages[1]).toEqual({ role: "user", content: "What do I call my puppy?" });
    expect(tokens.used).toBeLessThanOrEqual(50);
    expect(items.every((i) => !i.included)).toBe(true);
    expect(overflow).toEqual([{ role: "user", content: "earlier" }]);
    expect(warnings).toContain("system prompt cut to fit the budget");
  });

  it("drops the oldest history before any memory item when space runs short", async () => {
    const history: Message[] = Array.from({ length: 10 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `turn ${i} `.repeat(20),
    }));
    const engine = makeContextEngine({
      store: makeMemoryStore({ items: fixtureFacts, sessions: { s1: history } }),
      clock: fixedClock,
    });
    const roomy = await engine.compile({
      ...base,
      query: "What do I call my puppy?",
      budget: { maxTokens: 100_000, reserveForReply: 0 },
    });
    const tight = await engine.compile({
      ...base,
      query: "What do I call my puppy?",
      budget: { maxTokens: roomy.tokens.used - 50, reserveForReply: 0 },
    });
    expect(tight.items.filter((i) => i.included).map((i) => i.id)).toEqual(
      roomy.items.filter((i) => i.included).map((i) => i.id),
    );
    expect(tight.overflow.length).toBeGreaterThan(0);
    expect(tight.overflow[0]).toEqual(history[0]);
    expect(tight.messages.at(-2)).toEqual(history[9]);
  });

  it("leaves out low-ranked memory items that do not fit, keeping the best ones, once the history is gone", async () => {
    const engine = makeContextEngine({ store: makeMemoryStore({ items: fixtureFacts }), clock: fixedClock });
    const query = "What is my job and where is my home and what car do I drive?";
    const roomy = await engine.compile({ ...base, query, budget: { maxTokens: 100_000, reserveForReply: 0 } });
    const chosen = roomy.items.filter((i) => i.included);
    expect(chosen.length).toBeGreaterThan(3);
    const tight = await engine.compile({
      ...base,
      query,
      budget: { maxTokens: roomy.tokens.used - chosen.at(-1)!.tokens, reserveForReply: 0 },
    });
    const kept = tight.items.filter((i) => i.included).map((i) => i.id);
    expect(kept).toHaveLength(chosen.length - 1);
    expect(kept.slice(0, 3)).toEqual(chosen.slice(0, 3).map((i) => i.id));
    const left = tight.items.filter((i) => i.reason.code === "over_budget");
    expect(left).toHaveLength(1);
    expect(left[0]!.reason.detail).toMatch(/^did not fit: \d+ tokens, \d+ left$/);
  });

  it("never starts the history with a tool result whose call was cut", async () => {
    const history: Message[] = [
      { role: "user", content: "look it up" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "search", arguments: { q: "x".repeat(400) } }] },
      { role: "tool", content: "short result", toolCallId: "c1" },
      { role: "assistant", content: "Found it." },
    ];
    const engine = makeContextEngine({
      store: makeMemoryStore({ items: [], sessions: { s1: history } }),
      clock: fixedClock,
    });
    const { messages, overflow } = await engine.compile({
      ...base,
      query: "thanks",
      budget: { maxTokens: 40, reserveForReply: 0 },
    });
    expect(messages.map((m) => m.role)).toEqual(["system", "assistant", "user"]);
    expect(overflow.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("does not repeat the user message when the store already holds it", async () => {
    const history: Message[] = [
      { role: "assistant", content: "Hello." },
      { role: "user", content: "What is my job?" },
    ];
    const engine = makeContextEngine({
      store: makeMemoryStore({ items: [], sessions: { s1: history } }),
      clock: fixedClock,
    });
    const { messages } = await engine.compile({
      ...base,
      query: "What is my job?",
      budget: { maxTokens: 1000, reserveForReply: 0 },
    });
    expect(messages.filter((m) => m.content === "What is my job?")).toHaveLength(1);
  });
});

describe("overflow folds older turns into the summary", () => {
  const history: Message[] = [
    { role: "user", content: "My name is Ada and I live in Lyon. I need the Atlas report by Friday." },
    { role: "assistant", content: "Noted, Ada. The Atlas report is due Friday." },
    ...Array.from(
      { length: 38 },
      (_, i): Message => ({ role: i % 2 ? "assistant" : "user", content: `Small talk number ${i}. `.repeat(8) }),
    ),
  ];

  it("folds what falls out of the window with the extractive fallback when the model fails, and stays within budget", async () => {
    const engine = makeContextEngine({
      store: makeMemoryStore({ items: fixtureFacts, sessions: { s1: history } }),
      clock: fixedClock,
    });
    const budget = { maxTokens: 900, reserveForReply: 200 };
    const first = await engine.compile({ ...base, recencyWindow: 40, query: "What is due on Friday?", budget });
    expect(first.tokens.used).toBeLessThanOrEqual(700);
    expect(first.overflow.length).toBeGreaterThan(0);
    expect(first.overflow[0]).toEqual(history[0]);

    const plan = planFold({ turns: history, windowSize: history.length - first.overflow.length, summaryTokens: 120 });
    expect(plan.fold).toEqual(first.overflow);
    const folded = await foldIntoSummary(
      "",
      plan.fold,
      async () => {
        throw new Error("model offline");
      },
      { maxTokens: plan.summaryTokens },
    );
    expect(folded.method).toBe("extractive");
    expect((folded.error as Error).message).toBe("model offline");
    expect(folded.summary).toContain("User: My name is Ada and I live in Lyon.");
    expect(estimateTokenizer.count(folded.summary)).toBeLessThanOrEqual(120);

    const sessionAfterFold = makeMemoryStore({ items: fixtureFacts, sessions: { s1: plan.keep } });
    const second = await makeContextEngine({ store: sessionAfterFold, clock: fixedClock }).compile({
      ...base,
      recencyWindow: 40,
      query: "What is due on Friday?",
      summary: folded.summary,
      budget,
    });
    expect(second.tokens.used).toBeLessThanOrEqual(700);
    const summaryMessage = second.messages.find((m) => m.content.startsWith(summaryHeader));
    expect(summaryMessage?.content).toContain("Atlas report");
    expect(second.messages.findIndex((m) => m.content.startsWith(memoryHeader))).toBeLessThan(
      second.messages.indexOf(summaryMessage!),
    );
  });

  it("cuts a summary that does not fit, keeping its newest end", async () => {
    const summary = extractiveSummary(history, 400);
    const engine = makeContextEngine({ store: makeMemoryStore({ items: [] }), clock: fixedClock });
    const { messages, tokens, warnings } = await engine.compile({
      ...base,
      query: "hi",
      summary,
      budget: { maxTokens: 80, reserveForReply: 0 },
    });
    expect(tokens.used).toBeLessThanOrEqual(80);
    const cut = messages.find((m) => m.content.startsWith(summaryHeader))!;
    expect(cut.content).toContain(truncationMarker);
    expect(summary.endsWith(cut.content.slice(cut.content.indexOf(truncationMarker) + truncationMarker.length))).toBe(
      true,
    );
    expect(warnings).toContain("summary cut to fit the budget");
  });
});

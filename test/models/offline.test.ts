import { describe, expect, it } from "vitest";
import { makeOfflineLlm } from "../../adapters/llm-offline";
import type { LlmRequest, LlmStreamEvent, Message, ModelTool } from "../../core/ports";

const tools: ModelTool[] = [
  {
    name: "clock.now",
    description: "Current time (ISO 8601)",
    parameters: { type: "object", properties: { zone: { type: "string" } } },
  },
  {
    name: "ask_researcher",
    description: "Ask the researcher agent",
    parameters: { type: "object", properties: { question: { type: "string" } } },
  },
];

const system: Message = {
  role: "system",
  content:
    "You are Iris, the front desk agent of Acme Dental. The clinic opens at 8am and closes at 6pm on weekdays. " +
    "Parking is free behind the building. Dr. Okafor handles emergency appointments.",
};

const ask = (content: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  model: "offline",
  messages: [system, { role: "user", content }],
  tools,
  ...extra,
});

async function collect(events: AsyncIterable<LlmStreamEvent>): Promise<LlmStreamEvent[]> {
  const out: LlmStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("offline model", () => {
  const llm = makeOfflineLlm();

  it("answers from the system prompt and says so", async () => {
    const reply = await llm.complete(ask("When does the clinic open?"));

    expect(reply.content).toBe("From the system prompt: The clinic opens at 8am and closes at 6pm on weekdays.");
    expect(reply).toMatchObject({ toolCalls: [], finishReason: "stop", model: "offline" });
    expect(llm.provider).toBe("offline");
  });

  it("answers from earlier in the conversation, naming who said it", async () => {
    const reply = await llm.complete({
      model: "offline",
      messages: [
        system,
        { role: "user", content: "My dog is called Biscuit. He is a beagle." },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "What is my dog called?" },
      ],
    });

    expect(reply.content).toBe("From earlier in this conversation (user): My dog is called Biscuit.");
    expect(reply.content).not.toContain("Noted");
  });

  it("attributes named context messages to their source", async () => {
    const reply = await llm.complete({
      model: "offline",
      messages: [
        system,
        { role: "system", name: "memory", content: "The patient Lena is allergic to penicillin." },
        { role: "user", content: "Is Lena allergic to anything?" },
      ],
    });

    expect(reply.content).toBe("From the context (memory): The patient Lena is allergic to penicillin.");
  });

  it("says plainly when nothing in its context is relevant", async () => {
    const reply = await llm.complete(ask("What is the capital of Mongolia?"));

    expect(reply.content).toMatch(/^I have nothing in my context about "What is the capital of Mongolia\?"\./);
    expect(reply.content).toContain("not a language model");
    expect(reply.toolCalls).toEqual([]);
  });

  it("turns /tool <name> <json-args> into one tool call", async () => {
    const reply = await llm.complete(ask('/tool clock.now {"zone":"Europe/Paris"}'));

    expect(reply.finishReason).toBe("tool_calls");
    expect(reply.content).toBe("");
    expect(reply.toolCalls).toHaveLength(1);
    expect(reply.toolCalls[0]).toMatchObject({ name: "clock.now", arguments: { zone: "Europe/Paris" } });
    expect(reply.toolCalls[0]!.id).toMatch(/^call_offline_[0-9a-f]{8}$/);
  });

  it("finds a /tool directive on a line of its own in a longer prompt (a task's spec quoting its plan)", async () => {
    const spec =
      '# Task 2: Limits\n\n## What to do (from the approved plan)\n\nask about the limit\n/tool clock.now {"zone":"UTC"}\n\n## How to work\n\ncall /tool only on its own line';
    const reply = await llm.complete(ask(spec));

    expect(reply.toolCalls).toHaveLength(1);
    expect(reply.toolCalls[0]).toMatchObject({ name: "clock.now", arguments: { zone: "UTC" } });
    // Mentioning /tool inside a sentence is not a directive.
    expect((await llm.complete(ask("Please do not type /tool clock.now {} in here"))).toolCalls).toEqual([]);
  });

  it("explains the syntax instead of calling a tool when the arguments are not JSON", async () => {
    const reply = await llm.complete(ask("/tool clock.now {zone: Paris}"));

    expect(reply.toolCalls).toEqual([]);
    expect(reply.finishReason).toBe("stop");
    expect(reply.content).toContain("I could not read the arguments of /tool clock.now as JSON");
    expect(reply.content).toContain("/tool <name> <json-args>");
  });

  it("refuses to call a tool it was not given", async () => {
    const reply = await llm.complete(ask("/tool files.delete {}"));

    expect(reply.toolCalls).toEqual([]);
    expect(reply.content).toBe(
      "I was not given a tool named files.delete. I was given 2 tools:\n- clock.now: Current time (ISO 8601)\n- ask_researcher: Ask the researcher agent",
    );
  });

  it("turns /ask <agent> <text> into an ask_<agent> call with the question", async () => {
    const reply = await llm.complete(ask("/ask researcher what changed in the dental guidelines this year?"));

    expect(reply.toolCalls).toMatchObject([
      { name: "ask_researcher", arguments: { question: "what changed in the dental guidelines this year?" } },
    ]);
  });

  it("lists its tools on /tools", async () => {
    expect((await llm.complete(ask("/tools"))).content).toBe(
      "I was given 2 tools:\n- clock.now: Current time (ISO 8601)\n- ask_researcher: Ask the researcher agent",
    );
    expect((await llm.complete(ask("/tools", { tools: [] }))).content).toBe("I was given no tools.");
  });

  it("summarises a tool result once it arrives", async () => {
    const call = { id: "call_1", name: "clock.now", arguments: { zone: "UTC" } };
    const reply = await llm.complete({
      model: "offline",
      tools,
      messages: [
        system,
        { role: "user", content: '/tool clock.now {"zone":"UTC"}' },
        { role: "assistant", content: "", toolCalls: [call] },
        { role: "tool", content: "2026-05-01T12:00:00Z", toolCallId: "call_1" },
      ],
    });

    expect(reply).toMatchObject({
      content: "The tool clock.now returned: 2026-05-01T12:00:00Z",
      toolCalls: [],
      finishReason: "stop",
    });
  });

  it("gives the same answer, tool call ids included, for the same input", async () => {
    for (const question of ["Where can I park?", "/tool clock.now {}", "/ask researcher why?", "unknown topic zebra"]) {
      expect(await llm.complete(ask(question))).toEqual(await makeOfflineLlm().complete(ask(question)));
    }
  });

  it("streams word by word, and the tokens add up to the complete answer", async () => {
    const request = ask("Who handles emergency appointments and where is parking?");
    const complete = await llm.complete(request);
    const events = await collect(llm.stream(request));

    const tokens = events.flatMap((event) => (event.type === "token" ? [event.text] : []));
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.join("")).toBe(complete.content);
    expect(complete.content).toContain("From the system prompt: Dr. Okafor handles emergency appointments.");
    expect(complete.content).toContain("From the system prompt: Parking is free behind the building.");
    expect(events.at(-1)).toEqual({ type: "done", response: complete });
  });

  it("streams a directive as a tool_call event before done", async () => {
    const events = await collect(llm.stream(ask("/tool clock.now")));

    expect(events.map((event) => event.type)).toEqual(["tool_call", "done"]);
    expect(events[0]).toMatchObject({ type: "tool_call", call: { name: "clock.now", arguments: {} } });
  });

  it("counts usage as roughly four characters per token", async () => {
    const request: LlmRequest = {
      model: "offline",
      messages: [
        { role: "system", content: "Cats purr." },
        { role: "user", content: "Do cats purr?" },
      ],
    };
    const reply = await llm.complete(request);

    expect(reply.content).toBe("From the system prompt: Cats purr.");
    expect(reply.usage).toEqual({
      inputTokens: Math.ceil(10 / 4) + Math.ceil(13 / 4),
      outputTokens: Math.ceil(reply.content.length / 4),
    });
  });
});

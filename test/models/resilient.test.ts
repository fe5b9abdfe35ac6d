import { describe, expect, it } from "vitest";
import { makeAnthropicLlm } from "../../adapters/llm-anthropic";
import { makeOfflineLlm } from "../../adapters/llm-offline";
import { makeOpenAiLlm } from "../../adapters/llm-openai";
import { LlmError, makeResilientLlm } from "../../core/models";
import type { LlmPort, LlmStreamEvent } from "../../core/ports";
import { makeAnthropicDouble } from "../doubles/anthropic-double";
import { makeOpenAiDouble } from "../doubles/openai-double";

const openaiKey = "sk-proj-RESILIENT-0000-1111-2222";
const anthropicKey = "sk-ant-api03-RESILIENT-3333-4444";
const ask = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };

function recordingSleep() {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

async function collect(events: AsyncIterable<LlmStreamEvent>): Promise<LlmStreamEvent[]> {
  const out: LlmStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("makeResilientLlm", () => {
  it("retries a 429 from OpenAI after a jittered backoff and then answers", async () => {
    const double = makeOpenAiDouble([
      { error: { status: 429, message: "Rate limit reached for gpt-4o-mini" } },
      { text: "Hello after waiting." },
    ]);
    const { delays, sleep } = recordingSleep();
    const llm = makeResilientLlm({
      primary: makeOpenAiLlm({ apiKey: openaiKey, fetch: double.fetch }),
      sleep,
      random: () => 0.5,
    });

    const reply = await llm.complete(ask);

    expect(reply.content).toBe("Hello after waiting.");
    expect(double.requests).toHaveLength(2);
    expect(delays).toEqual([125]);
  });

  it("keeps backoff exponential but never above maxDelayMs", async () => {
    const double = makeOpenAiDouble(Array.from({ length: 7 }, () => ({ error: { status: 503, message: "busy" } })));
    const { delays, sleep } = recordingSleep();
    const llm = makeResilientLlm({
      primary: makeOpenAiLlm({ apiKey: openaiKey, fetch: double.fetch }),
      retries: 6,
      baseDelayMs: 250,
      maxDelayMs: 1000,
      sleep,
      random: () => 1,
    });

    await expect(llm.complete(ask)).rejects.toMatchObject({ name: "LlmError", status: 503 });
    expect(delays).toEqual([250, 500, 1000, 1000, 1000, 1000]);
    expect(double.requests).toHaveLength(7);
  });

  it("falls back to the Anthropic model when OpenAI keeps answering 500", async () => {
    const openai = makeOpenAiDouble(
      Array.from({ length: 3 }, () => ({
        error: { status: 500, message: "The server had an error", type: "server_error" },
      })),
    );
    const anthropic = makeAnthropicDouble([{ text: "Answered by the fallback." }]);
    const { delays, sleep } = recordingSleep();
    const llm = makeResilientLlm({
      primary: makeOpenAiLlm({ apiKey: openaiKey, fetch: openai.fetch }),
      fallback: makeAnthropicLlm({ apiKey: anthropicKey, fetch: anthropic.fetch }),
      fallbackModel: "claude-haiku-4-5",
      retries: 2,
      sleep,
      random: () => 0,
    });

    const reply = await llm.complete(ask);

    expect(reply).toMatchObject({ content: "Answered by the fallback.", model: "claude-haiku-4-5" });
    expect(openai.requests).toHaveLength(3);
    expect(delays).toEqual([0, 0]);
    expect(anthropic.requests[0]!.body).toMatchObject({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("does not retry a permanent 400 and surfaces the provider's message without the key", async () => {
    const double = makeOpenAiDouble([
      { error: { status: 400, message: `The model 'gpt-9' does not exist (key ${openaiKey})` } },
    ]);
    const { delays, sleep } = recordingSleep();
    const llm = makeResilientLlm({ primary: makeOpenAiLlm({ apiKey: openaiKey, fetch: double.fetch }), sleep });

    const error = await llm.complete({ ...ask, model: "gpt-9" }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ provider: "openai", status: 400, retryable: false });
    expect((error as Error).message).toContain("The model 'gpt-9' does not exist");
    expect((error as Error).message).not.toContain(openaiKey);
    expect(double.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("names both failures when the fallback fails too, and leaks neither key", async () => {
    const openai = makeOpenAiDouble([{ error: { status: 401, message: `Incorrect API key provided: ${openaiKey}` } }]);
    const anthropic = makeAnthropicDouble([{ error: { status: 401, message: `invalid x-api-key ${anthropicKey}` } }]);
    const llm = makeResilientLlm({
      primary: makeOpenAiLlm({ apiKey: openaiKey, fetch: openai.fetch }),
      fallback: makeAnthropicLlm({ apiKey: anthropicKey, fetch: anthropic.fetch }),
      sleep: async () => undefined,
    });

    const error = (await llm.complete(ask).catch((e: unknown) => e)) as LlmError;

    expect(error).toMatchObject({ name: "LlmError", provider: "anthropic", status: 401 });
    expect(error.message).toContain("invalid x-api-key");
    expect(error.message).toContain("Incorrect API key provided");
    expect(error.message).not.toContain(openaiKey);
    expect(error.message).not.toContain(anthropicKey);
  });

  it("retries a stream that failed before its first token", async () => {
    const double = makeOpenAiDouble([
      { error: { status: 429, message: "slow down" } },
      { text: "streamed after a retry" },
    ]);
    const llm = makeResilientLlm({
      primary: makeOpenAiLlm({ apiKey: openaiKey, fetch: double.fetch }),
      sleep: async () => undefined,
    });

    const events = await collect(llm.stream(ask));

    const tokens = events.flatMap((event) => (event.type === "token" ? [event.text] : []));
    expect(tokens.join("")).toBe("streamed after a retry");
    expect(events.at(-1)?.type).toBe("done");
  });

  it("does not retry or fall back once a stream has emitted a token", async () => {
    let calls = 0;
    const flaky: LlmPort = {
      provider: "flaky",
      complete: async () => {
        throw new Error("unused");
      },
      async *stream() {
        calls++;
        yield { type: "token", text: "Half an ans" };
        throw new LlmError({ provider: "flaky", message: "connection reset", retryable: true });
      },
    };
    const llm = makeResilientLlm({ primary: flaky, fallback: makeOfflineLlm(), sleep: async () => undefined });

    const seen: LlmStreamEvent[] = [];
    const error = await (async () => {
      for await (const event of llm.stream(ask)) seen.push(event);
    })().catch((e: unknown) => e);

    expect(error).toMatchObject({ name: "LlmError", message: "connection reset" });
    expect(seen).toEqual([{ type: "token", text: "Half an ans" }]);
    expect(calls).toBe(1);
  });

  it("gives up on a model that never answers within timeoutMs and uses the fallback", async () => {
    const silent: LlmPort = {
      provider: "silent",
      complete: () => new Promise(() => undefined),
      stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => undefined) }) }),
    };
    const { delays, sleep } = recordingSleep();
    const llm = makeResilientLlm({
      primary: silent,
      fallback: makeOfflineLlm(),
      retries: 1,
      timeoutMs: 5,
      sleep,
      random: () => 0,
    });
    const request = {
      model: "x",
      messages: [
        { role: "system" as const, content: "The password hint is blue." },
        { role: "user" as const, content: "password hint?" },
      ],
    };

    const reply = await llm.complete(request);
    const streamed = await collect(llm.stream(request));

    expect(reply.content).toBe("From the system prompt: The password hint is blue.");
    expect(streamed.at(-1)).toEqual({ type: "done", response: reply });
    expect(delays).toEqual([0, 0]);
  });

  it("does not retry or fall back when the caller aborted", async () => {
    const double = makeOpenAiDouble([{ text: "never read" }]);
    const { delays, sleep } = recordingSleep();
    const llm = makeResilientLlm({
      primary: makeOpenAiLlm({ apiKey: openaiKey, fetch: double.fetch }),
      fallback: makeOfflineLlm(),
      sleep,
    });
    const controller = new AbortController();
    controller.abort();

    await expect(llm.complete({ ...ask, signal: controller.signal })).rejects.toMatchObject({
      name: "LlmError",
      provider: "openai",
      retryable: false,
    });
    expect(delays).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { chooseLlm } from "../../adapters/llm-choice";
import { estimateTokens } from "../../core/models";
import { modelSettingsSchema } from "../../core/run/limits";
import { makeAnthropicDouble } from "../doubles/anthropic-double";
import { makeOpenAiDouble } from "../doubles/openai-double";

const hello = { model: "ignored-by-offline", messages: [{ role: "user" as const, content: "hello" }] };

describe("chooseLlm", () => {
  it("uses the offline model when no key or binding is configured, and says why", async () => {
    const chosen = chooseLlm(modelSettingsSchema.parse({ provider: "openai", name: "gpt-4o-mini" }), {});

    expect(chosen).toMatchObject({
      provider: "offline",
      model: "offline",
      reason: "no OPENAI_API_KEY; offline stand-in (local only)",
    });
    expect(chosen.resolved).toMatchObject({
      status: "stand-in",
      requested: { provider: "openai", name: "gpt-4o-mini" },
      missing: { secret: "OPENAI_API_KEY" },
    });
    expect(chosen.llm.provider).toBe("offline");
    expect((await chosen.llm.complete(hello)).model).toBe("offline");
  });

  it("uses the offline model by default", () => {
    const chosen = chooseLlm(modelSettingsSchema.parse({}), { openaiApiKey: "sk-x" });

    expect(chosen).toMatchObject({
      provider: "offline",
      reason: "offline: the agent asks for the offline model (a deterministic stand-in, not a language model)",
    });
  });

  it("uses OpenAI when its key is present, with the settings' fallback behind it", async () => {
    const openai = makeOpenAiDouble([{ error: { status: 503, message: "overloaded" } }]);
    const anthropic = makeAnthropicDouble([{ text: "from claude" }]);
    let call = 0;
    const chosen = chooseLlm(
      modelSettingsSchema.parse({
        provider: "openai",
        name: "gpt-4o-mini",
        fallback: { provider: "anthropic", name: "claude-haiku-4-5" },
      }),
      {
        openaiApiKey: "sk-a",
        anthropicApiKey: "sk-ant-b",
        // One fetch for both providers, routed by host, as a proxy would be.
        fetch: (input, init) => (
          call++,
          String(input instanceof Request ? input.url : input).includes("anthropic")
            ? anthropic.fetch(input, init)
            : openai.fetch(input, init)
        ),
        retries: 0,
        sleep: async () => undefined,
      },
    );

    expect(chosen).toMatchObject({
      provider: "openai",
      model: "gpt-4o-mini",
      reason: "openai: OPENAI_API_KEY is set; falls back to anthropic (claude-haiku-4-5)",
    });
    const reply = await chosen.llm.complete({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(reply.content).toBe("from claude");
    expect(anthropic.requests[0]!.body.model).toBe("claude-haiku-4-5");
    expect(call).toBe(2);
  });

  it("moves to the fallback provider, with its model, when the primary has no key", async () => {
    const anthropic = makeAnthropicDouble([{ text: "claude here" }]);
    const chosen = chooseLlm(
      modelSettingsSchema.parse({
        provider: "openai",
        name: "gpt-4o-mini",
        fallback: { provider: "anthropic", name: "claude-haiku-4-5" },
      }),
      { anthropicApiKey: "sk-ant-b", fetch: anthropic.fetch },
    );

    expect(chosen).toMatchObject({
      provider: "anthropic",
      model: "claude-haiku-4-5",
      reason: "no OPENAI_API_KEY; the fallback anthropic (claude-haiku-4-5) answers",
    });
    await chosen.llm.complete({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(anthropic.requests[0]!.body.model).toBe("claude-haiku-4-5");
  });

  it("reaches a local OpenAI-compatible server from its base URL alone", async () => {
    const local = makeOpenAiDouble([{ text: "local model says hi" }]);
    const chosen = chooseLlm(modelSettingsSchema.parse({ provider: "openai", name: "qwen2.5" }), {
      openaiBaseUrl: "http://127.0.0.1:11434/v1",
      fetch: local.fetch,
    });

    expect(chosen.reason).toBe("openai: OPENAI_BASE_URL is set (an OpenAI-compatible server, no key needed)");
    expect((await chosen.llm.complete({ ...hello, model: "qwen2.5" })).content).toBe("local model says hi");
    expect(local.requests[0]!.url).toBe("http://127.0.0.1:11434/v1/chat/completions");
  });

  it("uses Workers AI when the AI binding is present, and explains its absence otherwise", () => {
    const ai = { run: async () => ({ response: "hi" }) };
    const settings = modelSettingsSchema.parse({ provider: "workers-ai", name: "@cf/meta/llama-3.1-8b-instruct" });

    expect(chooseLlm(settings, { ai })).toMatchObject({
      provider: "workers-ai",
      reason: "workers-ai: the AI binding is present",
    });
    expect(chooseLlm(settings, {}).reason).toBe("no AI binding; offline stand-in (local only)");
  });

  it("in production fails every call naming the missing secret instead of standing in", async () => {
    const chosen = chooseLlm(modelSettingsSchema.parse({ provider: "openai", name: "gpt-4o-mini" }), {
      deployment: "production",
    });
    const message =
      "provider 'openai' needs the secret OPENAI_API_KEY: npx wrangler secret put OPENAI_API_KEY --env production";

    expect(chosen).toMatchObject({
      provider: "openai",
      model: "gpt-4o-mini",
      reason: message,
      resolved: { status: "unavailable" },
    });
    await expect(chosen.llm.complete(hello)).rejects.toMatchObject({ name: "LlmError", message, retryable: false });
    const stream = chosen.llm.stream(hello)[Symbol.asyncIterator]();
    await expect(stream.next()).rejects.toMatchObject({ message });
  });

  it("marks each answer with the provider that gave it, a fallback as itself", async () => {
    const openai = makeOpenAiDouble([{ error: { status: 400, message: "bad" } }]);
    const anthropic = makeAnthropicDouble([{ text: "from claude" }]);
    const chosen = chooseLlm(
      modelSettingsSchema.parse({
        provider: "openai",
        name: "gpt-4o-mini",
        fallback: { provider: "anthropic", name: "claude-haiku-4-5" },
      }),
      {
        openaiApiKey: "sk-a",
        anthropicApiKey: "sk-ant-b",
        fetch: (input, init) =>
          String(input instanceof Request ? input.url : input).includes("anthropic")
            ? anthropic.fetch(input, init)
            : openai.fetch(input, init),
        retries: 0,
      },
    );

    expect(
      (await chosen.llm.complete({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })).provider,
    ).toBe("anthropic");
    expect((await chooseLlm(modelSettingsSchema.parse({}), {}).llm.complete(hello)).provider).toBe("offline");
  });

  it("falls to offline for a provider it does not know (neither built in nor one the project names)", () => {
    expect(chooseLlm(modelSettingsSchema.parse({ provider: "mistral", name: "large" }), {}).reason).toBe(
      "no model of the cascade can be called: mistral/large (skipped: provider 'mistral' is not one of the project's providers); offline stand-in (local only)",
    );
  });
});

describe("estimateTokens", () => {
  it("counts about four characters per token, rounding up", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("hello world!")).toBe(3);
    expect(estimateTokens("x".repeat(401))).toBe(101);
  });
});

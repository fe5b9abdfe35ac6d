import { describe, expect, it } from "vitest";
import { chooseLlm } from "../../adapters/llm-choice";
import { makeOpenAiLlm } from "../../adapters/llm-openai";
import {
  admit,
  closedBreaker,
  makeCascadeLlm,
  onFailure,
  onSuccess,
  type BreakerRecord,
  type BreakerStore,
} from "../../core/models";
import type { ModelHop } from "../../core/ports";
import { modelChoiceSchema, modelSettingsSchema } from "../../core/run/limits";
import { makeOpenAiDouble } from "../doubles/openai-double";

const ask = { model: "ignored", messages: [{ role: "user" as const, content: "hi" }] };
const policy = { threshold: 2, cooldownMs: 1000 };
const noWait = { retries: 0 };

function memoryBreakers(): BreakerStore & { records: Map<string, BreakerRecord> } {
  const records = new Map<string, BreakerRecord>();
  return { records, get: (p) => records.get(p), set: (p, r) => void records.set(p, r) };
}

describe("the circuit breaker (core/models breaker)", () => {
  it("opens after the threshold of consecutive failures, not before", () => {
    const once = onFailure(closedBreaker, 0, "503", policy);
    expect(once.state).toBe("closed");
    expect(admit(once, 1, policy)).toEqual({ allow: true, probe: false });
    const twice = onFailure(once, 10, "503 again", policy);
    expect(twice).toMatchObject({ state: "open", failures: 2, openedAt: 10, lastError: "503 again" });
    const refused = admit(twice, 500, policy);
    expect(refused.allow).toBe(false);
    expect(!refused.allow && refused.reason).toContain("open after 2 consecutive failures");
  });

  it("a success between failures resets the count (consecutive only)", () => {
    const once = onFailure(closedBreaker, 0, "x", policy);
    const reset = onSuccess(once);
    expect(reset).toEqual(closedBreaker);
    expect(onFailure(reset, 1, "x", policy).state).toBe("closed");
    // A success on a clean breaker changes nothing (nothing to write).
    expect(onSuccess(closedBreaker)).toBe(closedBreaker);
  });

  it("lets one probe through after the cooldown; its success closes, its failure opens again", () => {
    const open: BreakerRecord = { state: "open", failures: 2, openedAt: 0 };
    const probe = admit(open, 1000, policy);
    expect(probe).toMatchObject({ allow: true, probe: true, next: { state: "half-open", probeAt: 1000 } });
    const halfOpen = (probe as { next: BreakerRecord }).next;
    // While the probe is out, nothing else goes.
    expect(admit(halfOpen, 1001, policy).allow).toBe(false);
    expect(onSuccess(halfOpen)).toEqual(closedBreaker);
    const reopened = onFailure(halfOpen, 1200, "still down", policy);
    expect(reopened).toMatchObject({ state: "open", openedAt: 1200 });
    expect(admit(reopened, 2100, policy).allow).toBe(false);
    expect(admit(reopened, 2200, policy).allow).toBe(true);
  });
});

describe("makeCascadeLlm", () => {
  it("moves to the next model when one fails, reporting the hop with its reason and kind", async () => {
    const groq = makeOpenAiDouble([{ error: { status: 503, message: "overloaded" } }]);
    const openai = makeOpenAiDouble([{ text: "from openai" }]);
    const hops: ModelHop[] = [];
    const llm = makeCascadeLlm({
      steps: [
        {
          provider: "groq",
          model: "llama",
          port: makeOpenAiLlm({ apiKey: "k1", fetch: groq.fetch, provider: "groq" }),
        },
        { provider: "openai", model: "gpt-4o-mini", port: makeOpenAiLlm({ apiKey: "k2", fetch: openai.fetch }) },
      ],
      now: () => 0,
    });
    const reply = await llm.complete({ ...ask, onHop: (hop) => hops.push(hop) });
    expect(reply.content).toBe("from openai");
    expect(groq.requests[0]!.body.model).toBe("llama");
    expect(openai.requests[0]!.body.model).toBe("gpt-4o-mini");
    expect(hops).toEqual([
      {
        from: { provider: "groq", model: "llama" },
        to: { provider: "openai", model: "gpt-4o-mini" },
        reason: "error",
        kind: "server_error",
        message: expect.stringContaining("overloaded"),
      },
    ]);
  });

  it("an open breaker passes its model over without calling it, then probes after the cooldown and closes on success", async () => {
    let now = 0;
    const breakers = memoryBreakers();
    const groq = makeOpenAiDouble([
      { error: { status: 500, message: "down" } },
      { error: { status: 500, message: "down" } },
      { text: "groq is back" },
    ]);
    const openai = makeOpenAiDouble(Array.from({ length: 5 }, (_, i) => ({ text: `openai ${i}` })));
    const llm = makeCascadeLlm({
      steps: [
        {
          provider: "groq",
          model: "llama",
          port: makeOpenAiLlm({ apiKey: "k1", fetch: groq.fetch, provider: "groq" }),
        },
        { provider: "openai", model: "gpt-4o-mini", port: makeOpenAiLlm({ apiKey: "k2", fetch: openai.fetch }) },
      ],
      breakers,
      policy,
      now: () => now,
    });
    await llm.complete(ask);
    await llm.complete(ask);
    expect(groq.requests).toHaveLength(2);
    expect(breakers.records.get("groq")).toMatchObject({ state: "open", failures: 2 });

    const hops: ModelHop[] = [];
    now = 500;
    expect((await llm.complete({ ...ask, onHop: (hop) => hops.push(hop) })).content).toBe("openai 2");
    expect(groq.requests).toHaveLength(2);
    expect(hops[0]).toMatchObject({ reason: "breaker_open", from: { provider: "groq" }, to: { provider: "openai" } });

    now = 1000;
    expect((await llm.complete(ask)).content).toBe("groq is back");
    expect(breakers.records.get("groq")).toEqual(closedBreaker);
    // openai never failed: its breaker was never written.
    expect(breakers.records.has("openai")).toBe(false);
  });

  it("fails naming every model and why when the whole cascade fails", async () => {
    const a = makeOpenAiDouble([{ error: { status: 429, message: "slow down" } }]);
    const b = makeOpenAiDouble([{ error: { status: 401, message: "bad key" } }]);
    const llm = makeCascadeLlm({
      steps: [
        { provider: "a", model: "m1", port: makeOpenAiLlm({ apiKey: "k", fetch: a.fetch, provider: "a" }) },
        { provider: "b", model: "m2", port: makeOpenAiLlm({ apiKey: "k", fetch: b.fetch, provider: "b" }) },
      ],
      now: () => 0,
    });
    await expect(llm.complete(ask)).rejects.toThrow(
      /every model of the cascade failed: a\/m1: .*slow down.*; b\/m2: .*bad key/,
    );
  });

  it("the caller's abort ends the cascade: no hop, no breaker counted", async () => {
    const breakers = memoryBreakers();
    const hops: ModelHop[] = [];
    const controller = new AbortController();
    controller.abort();
    const a = makeOpenAiDouble([{ text: "never" }]);
    const llm = makeCascadeLlm({
      steps: [
        { provider: "a", model: "m", port: makeOpenAiLlm({ apiKey: "k", fetch: a.fetch, provider: "a" }) },
        { provider: "b", model: "m", unavailable: "x" },
      ],
      breakers,
      now: () => 0,
    });
    await expect(llm.complete({ ...ask, signal: controller.signal, onHop: (h) => hops.push(h) })).rejects.toThrow();
    expect(hops).toEqual([]);
    expect(breakers.records.size).toBe(0);
  });
});

describe("chooseLlm with a project's named providers", () => {
  it("calls each provider at its own URL with its own key, and the model after the slash", async () => {
    const groq = makeOpenAiDouble([{ error: { status: 503, message: "busy" } }]);
    const deep = makeOpenAiDouble([{ text: "deep answer" }]);
    const settings = modelChoiceSchema.parse(["groq/llama-3.1-70b", "deepseek/deepseek-chat"]);
    expect(settings).toMatchObject({
      provider: "groq",
      name: "llama-3.1-70b",
      cascade: [{ provider: "deepseek", name: "deepseek-chat" }],
    });
    const chosen = chooseLlm(settings, {
      ...noWait,
      providers: {
        groq: {
          name: "groq",
          kind: "openai-compatible",
          baseUrl: "https://api.groq.example/openai/v1",
          keySecret: "GROQ_KEY",
          apiKey: "gsk-groq-1",
          fetch: groq.fetch,
        },
        deepseek: {
          name: "deepseek",
          kind: "openai-compatible",
          baseUrl: "https://api.deepseek.example/v1",
          keySecret: "DEEPSEEK_KEY",
          apiKey: "sk-deep-2",
          fetch: deep.fetch,
        },
      },
    });
    const reply = await chosen.llm.complete({ ...ask, topP: 0.5 });
    expect(reply).toMatchObject({ content: "deep answer", provider: "deepseek" });
    expect(groq.requests[0]).toMatchObject({
      url: "https://api.groq.example/openai/v1/chat/completions",
      headers: { authorization: "Bearer gsk-groq-1" },
      body: { model: "llama-3.1-70b", top_p: 0.5 },
    });
    expect(deep.requests[0]).toMatchObject({
      url: "https://api.deepseek.example/v1/chat/completions",
      headers: { authorization: "Bearer sk-deep-2" },
      body: { model: "deepseek-chat" },
    });
    expect(chosen.resolved).toMatchObject({
      status: "ok",
      provider: "groq",
      reason: "cascade groq/llama-3.1-70b → deepseek/deepseek-chat",
    });
  });

  it("a provider the project does not name is a skipped step with its reason; locally nothing callable falls to offline", async () => {
    const chosen = chooseLlm(modelSettingsSchema.parse({ provider: "groq", name: "llama" }), {});
    expect(chosen.provider).toBe("offline");
    expect(chosen.reason).toContain("groq/llama (skipped: provider 'groq' is not one of the project's providers)");
    const production = chooseLlm(modelSettingsSchema.parse({ provider: "groq", name: "llama" }), {
      deployment: "production",
    });
    await expect(production.llm.complete(ask)).rejects.toThrow(/provider 'groq' is not one of the project's providers/);
  });
});

describe("the model choice schema", () => {
  it("takes provider/model, a list as a cascade, top_p and allowed models", () => {
    expect(modelChoiceSchema.parse("openrouter/meta-llama/llama-3.1-70b")).toMatchObject({
      provider: "openrouter",
      name: "meta-llama/llama-3.1-70b",
    });
    expect(
      modelChoiceSchema.parse({
        provider: "openai",
        name: "gpt-4o",
        topP: 0.9,
        allowed: ["groq/llama"],
        cascade: ["anthropic/claude-haiku-4-5"],
      }),
    ).toMatchObject({
      topP: 0.9,
      allowed: ["groq/llama"],
      cascade: [{ provider: "anthropic", name: "claude-haiku-4-5" }],
    });
  });

  it("refuses a top_p outside (0, 1] and an allowed model without its provider, naming the field", () => {
    const topP = modelChoiceSchema.safeParse({ provider: "openai", name: "gpt-4o", topP: 1.5 });
    expect(topP.success).toBe(false);
    expect(topP.error?.issues[0]?.path).toEqual(["topP"]);
    const allowed = modelChoiceSchema.safeParse({ provider: "openai", name: "gpt-4o", allowed: ["gpt-4o-mini"] });
    expect(allowed.error?.issues[0]).toMatchObject({ path: ["allowed", 0], message: 'a model as "provider/model"' });
  });
});

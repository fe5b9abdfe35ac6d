import { describe, expect, it } from "vitest";
import { makeOpenAiEmbedder } from "../../adapters/embed-openai";
import { runEmbedderContract } from "./embedder.contract";
import { makeEmbeddingsWireDouble } from "./embeddings-wire-double";

const base = { baseURL: "https://api.example.test/v1", model: "text-embedding-3-small", dimensions: 96 };

runEmbedderContract({
  name: "the OpenAI embeddings adapter (over a wire double)",
  make: () =>
    makeOpenAiEmbedder({ ...base, apiKey: "sk-test", fetch: makeEmbeddingsWireDouble({ dimensions: 96 }).fetch }),
  makeFailing: () =>
    makeOpenAiEmbedder({
      ...base,
      fetch: makeEmbeddingsWireDouble({
        dimensions: 96,
        fail: { status: 503, body: { error: { message: "the backend is down" } } },
      }).fetch,
    }),
});

describe("the OpenAI embeddings adapter", () => {
  it("posts the model and inputs to {baseURL}/embeddings with the key as a Bearer token", async () => {
    const wire = makeEmbeddingsWireDouble({ dimensions: 96 });
    const embed = makeOpenAiEmbedder({
      ...base,
      baseURL: "https://api.example.test/v1/",
      apiKey: "sk-test",
      fetch: wire.fetch,
    });
    expect(embed.model).toBe("openai:text-embedding-3-small");
    await embed.embed(["a", "b"]);
    expect(wire.calls).toEqual([
      {
        url: "https://api.example.test/v1/embeddings",
        headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
        body: { model: "text-embedding-3-small", input: ["a", "b"] },
      },
    ]);
  });

  it("sends no authorization to a keyless server such as the local sidecar, under the name it is given", async () => {
    const wire = makeEmbeddingsWireDouble({ dimensions: 96 });
    const embed = makeOpenAiEmbedder({
      ...base,
      baseURL: "http://127.0.0.1:8790/v1",
      model: "use-lite",
      provider: "offline",
      fetch: wire.fetch,
    });
    await embed.embed(["a"]);
    expect(wire.calls[0]!.headers.authorization).toBeUndefined();
    expect(embed.model).toBe("offline:use-lite");
  });

  it("sends at most 64 inputs per request", async () => {
    const wire = makeEmbeddingsWireDouble({ dimensions: 96 });
    const vectors = await makeOpenAiEmbedder({ ...base, fetch: wire.fetch }).embed(
      Array.from({ length: 130 }, (_, i) => `t${i}`),
    );
    expect(vectors).toHaveLength(130);
    expect(wire.calls.map((c) => c.body.input.length)).toEqual([64, 64, 2]);
  });

  it("asks for shortened vectors only when told to", async () => {
    const wire = makeEmbeddingsWireDouble({ dimensions: 96 });
    await makeOpenAiEmbedder({ ...base, requestDimensions: true, fetch: wire.fetch }).embed(["a"]);
    expect(wire.calls[0]!.body.dimensions).toBe(96);
  });

  it("reports the provider's message and status but never the API key", async () => {
    const key = "sk-proj-SECRET1234567890";
    const wire = makeEmbeddingsWireDouble({
      dimensions: 96,
      fail: {
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${key}.`, type: "invalid_request_error" } },
      },
    });
    const error = await makeOpenAiEmbedder({ ...base, apiKey: key, fetch: wire.fetch })
      .embed(["a"])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "PantheonError",
      code: "model_failed",
      message: "openai embeddings failed: 401 Incorrect API key provided: [redacted].",
      details: { provider: "openai", model: "text-embedding-3-small", status: 401 },
    });
    expect(JSON.stringify(error)).not.toContain(key);
  });

  it("reports a rate limit as rate_limited", async () => {
    const wire = makeEmbeddingsWireDouble({
      dimensions: 96,
      fail: { status: 429, body: { error: { message: "Rate limit reached" } } },
    });
    await expect(makeOpenAiEmbedder({ ...base, fetch: wire.fetch }).embed(["a"])).rejects.toMatchObject({
      code: "rate_limited",
    });
  });

  it("reports a server that cannot be reached, keeping the cause", async () => {
    const cause = new TypeError("fetch failed: connection refused");
    const embed = makeOpenAiEmbedder({ ...base, fetch: async () => Promise.reject(cause) });
    await expect(embed.embed(["a"])).rejects.toMatchObject({
      code: "model_failed",
      message: "openai embeddings failed: fetch failed: connection refused",
      cause,
    });
  });

  it("refuses vectors of another size than configured", async () => {
    const wire = makeEmbeddingsWireDouble({ dimensions: 32 });
    await expect(makeOpenAiEmbedder({ ...base, fetch: wire.fetch }).embed(["a"])).rejects.toThrow(
      "openai embeddings failed: expected 96-dimension vectors, got 32",
    );
  });

  it("checks its configuration when it is built", () => {
    expect(() => makeOpenAiEmbedder({ ...base, baseURL: "api.openai.com" })).toThrow(
      /baseURL must be an http\(s\) URL/,
    );
    expect(() => makeOpenAiEmbedder({ ...base, dimensions: 0 })).toThrow(/dimensions must be a positive integer/);
    expect(() => makeOpenAiEmbedder({ ...base, batchSize: 65 })).toThrow(/batchSize/);
  });
});

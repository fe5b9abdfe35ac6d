import { describe, expect, it } from "vitest";
import { makeAnthropicLlm } from "../../adapters/llm-anthropic";
import { makeOfflineLlm } from "../../adapters/llm-offline";
import { makeOpenAiLlm } from "../../adapters/llm-openai";
import { makeWorkersAiLlm } from "../../adapters/llm-workers-ai";
import { imageRefOf } from "../../core/images";
import type { ImageOwner, ImageRef, ImageStorePort, LlmPort, LlmRequest, Message } from "../../core/ports";
import { withImageBytes } from "../../durable-objects/agent/runs/images";
import { makeAnthropicDouble } from "../doubles/anthropic-double";
import { makeOpenAiDouble } from "../doubles/openai-double";
import { base64Of, jpeg16x8, png2x2 } from "./fixtures";

const pngRef = await imageRefOf(png2x2, "test");
const jpegRef = await imageRefOf(jpeg16x8, "test");
const asked: Message = { role: "user", content: "What is in the picture?", images: [pngRef] };
const imageData = { [pngRef.id]: base64Of(png2x2) };

describe("each model adapter sends a message's images as its provider's image parts", () => {
  it("OpenAI: the real SDK sends a text part and an image_url part with the data URL", async () => {
    const double = makeOpenAiDouble([{ text: "A red square." }]);
    const llm = makeOpenAiLlm({ apiKey: "sk-test", fetch: double.fetch });
    expect((await llm.complete({ model: "gpt-4o-mini", messages: [asked], imageData })).content).toBe("A red square.");
    expect(double.requests[0]!.body.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is in the picture?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${base64Of(png2x2)}` } },
      ],
    });
  });

  it("OpenAI: a text message stays a plain string (no parts for a turn without images)", async () => {
    const double = makeOpenAiDouble([{ text: "ok" }]);
    await makeOpenAiLlm({ apiKey: "sk-test", fetch: double.fetch }).complete({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(double.requests[0]!.body.messages[0]).toEqual({ role: "user", content: "hi" });
  });

  it("Anthropic: the real SDK sends a base64 image block before the text", async () => {
    const double = makeAnthropicDouble([{ text: "A red square." }]);
    const llm = makeAnthropicLlm({ apiKey: "sk-ant-test", fetch: double.fetch });
    await llm.complete({ model: "claude-sonnet-4-5", messages: [asked], imageData });
    expect(double.requests[0]!.body.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: base64Of(png2x2) } },
        { type: "text", text: "What is in the picture?" },
      ],
    });
  });

  it("Workers AI: a vision model gets image_url parts; LLaVA the bytes; a text-only model a note saying it cannot see them", async () => {
    const calls: { model: string; input: any }[] = [];
    const llm = makeWorkersAiLlm({
      ai: { run: async (model, input) => (calls.push({ model, input }), { response: "ok" }) },
    });
    await llm.complete({ model: "@cf/meta/llama-3.2-11b-vision-instruct", messages: [asked], imageData });
    expect(calls[0]!.input.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is in the picture?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${base64Of(png2x2)}` } },
      ],
    });
    await llm.complete({ model: "@cf/llava-hf/llava-1.5-7b-hf", messages: [asked], imageData });
    expect(calls[1]!.input).toEqual({ prompt: "user: What is in the picture?", image: Array.from(png2x2) });
    await llm.complete({ model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast", messages: [asked], imageData });
    expect(calls[2]!.input.messages[0].content).toBe(
      `What is in the picture?\n[an image was sent with this message (image/png 2x2, ${png2x2.length} bytes), but the model '@cf/meta/llama-3.3-70b-instruct-fp8-fast' cannot see images]`,
    );
  });

  it("an image whose bytes could not be loaded is named in the text, not dropped silently", async () => {
    const double = makeOpenAiDouble([{ text: "ok" }]);
    await makeOpenAiLlm({ apiKey: "sk-test", fetch: double.fetch }).complete({
      model: "gpt-4o-mini",
      messages: [asked],
      imageData: {},
    });
    expect(double.requests[0]!.body.messages[0].content).toEqual([
      {
        type: "text",
        text: `What is in the picture?\n[an image sent here could not be loaded: image/png 2x2, ${png2x2.length} bytes]`,
      },
    ]);
  });

  it("the offline model answers plainly that it cannot see, with what it received", async () => {
    const reply = await makeOfflineLlm().complete({
      model: "offline",
      messages: [{ role: "user", content: "", images: [pngRef, jpegRef] }],
    });
    expect(reply.content).toBe(
      `I cannot see images: I am Pantheon's offline stand-in, not a vision model. I received 2 images: image/png 2x2 (${png2x2.length} bytes, id ${pngRef.id.slice(0, 12)}…), image/jpeg 16x8 (${jpeg16x8.length} bytes, id ${jpegRef.id.slice(0, 12)}…).`,
    );
  });
});

describe("a model call loads image bytes only for the messages it sends", () => {
  function countingStore(): ImageStorePort & { reads: string[] } {
    const bytes: Record<string, Uint8Array> = { [pngRef.id]: png2x2, [jpegRef.id]: jpeg16x8 };
    const reads: string[] = [];
    return {
      reads,
      async put() {},
      async head(_owner: ImageOwner, id: string) {
        return id in bytes ? ({ id } as ImageRef) : null;
      },
      async open() {
        return null;
      },
      async read(_owner: ImageOwner, id: string) {
        reads.push(id);
        return bytes[id] ?? null;
      },
      async list() {
        return [];
      },
      async removeAll() {
        return 0;
      },
    };
  }
  const seen: LlmRequest[] = [];
  const inner: LlmPort = {
    provider: "openai",
    async complete(request) {
      seen.push(request);
      return {
        content: "",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 0, outputTokens: 0 },
        model: "m",
      };
    },
    async *stream() {},
  };
  const owner = { project: "p", agent: "a" };

  it("a text turn reads nothing; a turn with an image reads that image alone (history the context left out is not in the request)", async () => {
    const store = countingStore();
    const llm = withImageBytes(inner, store, owner);
    await llm.complete({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(store.reads).toEqual([]);
    await llm.complete({ model: "m", messages: [{ role: "assistant", content: "earlier" }, asked] });
    expect(store.reads).toEqual([pngRef.id]);
    expect(seen.at(-1)!.imageData).toEqual({ [pngRef.id]: base64Of(png2x2) });
  });

  it("the offline model is given no bytes (it cannot see them)", async () => {
    const store = countingStore();
    await withImageBytes({ ...inner, provider: "offline" }, store, owner).complete({ model: "m", messages: [asked] });
    expect(store.reads).toEqual([]);
  });
});

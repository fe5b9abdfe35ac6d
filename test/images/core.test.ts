import { describe, expect, it } from "vitest";
import { countMessageTokens, estimateTokenizer } from "../../core/context/tokens";
import { makeContextEngine } from "../../core/context";
import type { Message } from "../../core/ports";
import { fixedClock, fixtureFacts, makeMemoryStore } from "../context/fixture";
import { checkImage, imageRefOf, imageTokens, maxImageBytes, sniffImage } from "../../core/images";
import { isPantheonError } from "../../core/errors";
import { gif3x4, jpeg16x8, png2x2, pngHeader, webp5x3 } from "./fixtures";

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (isPantheonError(error)) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error("not refused");
};

describe("image sniffing reads the type and size from the bytes", () => {
  it("PNG, JPEG, WebP and GIF with their dimensions", () => {
    expect(sniffImage(png2x2)).toEqual({ type: "image/png", width: 2, height: 2 });
    expect(sniffImage(jpeg16x8)).toEqual({ type: "image/jpeg", width: 16, height: 8 });
    expect(sniffImage(webp5x3)).toEqual({ type: "image/webp", width: 5, height: 3 });
    expect(sniffImage(gif3x4)).toEqual({ type: "image/gif", width: 3, height: 4 });
  });

  it("anything else is not an image, whatever it is called", () => {
    expect(sniffImage(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffImage(new TextEncoder().encode("%PDF-1.7"))).toBeNull();
    expect(sniffImage(new Uint8Array([0x89, 0x50, 0x4e]))).toBeNull();
  });
});

describe("image limits", () => {
  it("a real image passes and its ref is content-addressed", async () => {
    const ref = await imageRefOf(png2x2, "body");
    expect(ref).toMatchObject({ type: "image/png", bytes: png2x2.length, width: 2, height: 2 });
    expect(ref.id).toMatch(/^[0-9a-f]{64}\.png$/);
    expect((await imageRefOf(png2x2, "body")).id).toBe(ref.id);
    expect((await imageRefOf(jpeg16x8, "body")).id).toMatch(/\.jpg$/);
  });

  it("415 for a non-image, naming what is allowed", () => {
    expect(refusal(() => checkImage(new TextEncoder().encode("<svg/>"), "body"))).toEqual({
      status: 415,
      message: expect.stringContaining("send image/png, image/jpeg, image/webp or image/gif"),
    });
  });

  it("413 over 5 MiB naming the limit; exactly 5 MiB is not refused for its size", () => {
    const big = new Uint8Array(maxImageBytes + 1);
    big.set(png2x2);
    expect(refusal(() => checkImage(big, "body"))).toEqual({
      status: 413,
      message: expect.stringContaining("at most 5 MiB"),
    });
    const fits = new Uint8Array(maxImageBytes);
    fits.set(png2x2);
    expect(checkImage(fits, "body").type).toBe("image/png");
  });

  it("400 for an absurd size (over 8192 px a side); 8192 passes", () => {
    expect(refusal(() => checkImage(pngHeader(9000, 10), "file"))).toEqual({
      status: 400,
      message: "file: the image is 9000x10 pixels; each side must be 1 to 8192 pixels",
    });
    expect(checkImage(pngHeader(8192, 8192), "file")).toEqual({ type: "image/png", width: 8192, height: 8192 });
  });
});

describe("images in the context budget", () => {
  it("an image costs a fixed estimate by its size, as OpenAI counts high-detail tiles", () => {
    expect(imageTokens({ width: 2, height: 2 })).toBe(255);
    expect(imageTokens({ width: 1024, height: 1024 })).toBe(765);
    expect(imageTokens({ width: 4000, height: 3000 })).toBe(765);
    expect(imageTokens({ width: 2048, height: 4096 })).toBe(1105);
    expect(imageTokens({})).toBe(765);
  });

  it("a message with an image costs its text and the image", () => {
    const text = { role: "user" as const, content: "what is this?" };
    const withImage = { ...text, images: [{ id: "x.png", type: "image/png", bytes: 96, width: 1024, height: 1024 }] };
    expect(countMessageTokens(withImage, estimateTokenizer) - countMessageTokens(text, estimateTokenizer)).toBe(765);
  });
});

describe("the context engine keeps images within the budget", () => {
  it("a picture in history takes its tokens: with the same budget, fewer earlier turns fit beside it", async () => {
    const turns: Message[] = Array.from({ length: 12 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `turn ${i} about the garden`,
    }));
    const picture: Message = {
      role: "user",
      content: "look at the roses",
      images: [{ id: "a".repeat(64) + ".jpg", type: "image/jpeg", bytes: 90_000, width: 1024, height: 768 }],
    };
    const compile = (history: Message[]) =>
      makeContextEngine({
        store: makeMemoryStore({ items: fixtureFacts, sessions: { s1: history } }),
        clock: fixedClock,
      }).compile({
        systemPrompt: "You are a gardener.",
        sessionId: "s1",
        sources: [],
        recencyWindow: 40,
        halfLifeDays: 30,
        query: "what now?",
        budget: { maxTokens: 900, reserveForReply: 0 },
      });
    const textOnly = await compile([...turns, { role: "user", content: "look at the roses" }]);
    const withPicture = await compile([...turns, picture]);
    expect(withPicture.tokens.used).toBeLessThanOrEqual(900);
    expect(withPicture.messages.some((m) => m.images?.length)).toBe(true);
    expect(withPicture.overflow.length).toBeGreaterThan(textOnly.overflow.length);
  });
});

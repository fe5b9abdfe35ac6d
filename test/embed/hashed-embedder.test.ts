import { describe, expect, it } from "vitest";
import { makeHashedEmbedder } from "../../adapters/embed-hashed";
import { cosine, runEmbedderContract } from "./embedder.contract";

runEmbedderContract({ name: "the hashed embedder", make: () => makeHashedEmbedder() });

describe("the hashed embedder", () => {
  it("gives the same text the same unit-length vector every time, across instances", async () => {
    const [a] = await makeHashedEmbedder({ dimensions: 64 }).embed(["Remember the milk"]);
    const [b] = await makeHashedEmbedder({ dimensions: 64 }).embed(["Remember the milk"]);
    expect(a).toEqual(b);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 10);
  });

  it("treats case and punctuation as noise and word fragments as signal", async () => {
    const [a, b, c, d] = await makeHashedEmbedder().embed([
      "Password reset!",
      "password RESET",
      "passwords resetting",
      "garden tomatoes",
    ]);
    expect(cosine(a!, b!)).toBeCloseTo(1, 10);
    expect(cosine(a!, c!)).toBeGreaterThan(0.3);
    expect(cosine(a!, d!)).toBeLessThan(0.2);
  });

  it("embeds an empty text as a valid unit vector", async () => {
    const [v] = await makeHashedEmbedder({ dimensions: 32 }).embed([""]);
    expect(Math.hypot(...v!)).toBeCloseTo(1, 10);
  });

  it("refuses a dimension count too small to be useful", () => {
    expect(() => makeHashedEmbedder({ dimensions: 2 })).toThrow(
      "hashed embedder dimensions must be an integer of at least 8, got 2",
    );
  });
});

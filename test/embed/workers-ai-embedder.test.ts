import { describe, expect, it } from "vitest";
import { makeHashedEmbedder } from "../../adapters/embed-hashed";
import { makeWorkersAiEmbedder, type AiLike } from "../../adapters/embed-workers-ai";
import { runEmbedderContract } from "./embedder.contract";

/** Answers like `env.AI.run` does for the bge models: `{ shape, data }`. */
function makeAiDouble(dimensions = 384) {
  const hashed = makeHashedEmbedder({ dimensions });
  const calls: { model: string; input: { text: string[] } }[] = [];
  const ai: AiLike = {
    async run(model, input) {
      calls.push({ model, input });
      const data = await hashed.embed(input.text);
      return { shape: [data.length, dimensions], data };
    },
  };
  return { ai, calls };
}

runEmbedderContract({
  name: "the Workers AI embeddings adapter (over an AI double)",
  make: () => makeWorkersAiEmbedder({ ai: makeAiDouble().ai }),
  makeFailing: () =>
    makeWorkersAiEmbedder({
      ai: {
        run: async () => {
          throw new Error("3040: the backend is down");
        },
      },
    }),
});

describe("the Workers AI embeddings adapter", () => {
  it("uses bge-small (384 dimensions) unless told otherwise", async () => {
    const { ai, calls } = makeAiDouble();
    const embed = makeWorkersAiEmbedder({ ai });
    expect(embed).toMatchObject({ model: "workers-ai:@cf/baai/bge-small-en-v1.5", dimensions: 384 });
    await embed.embed(["hello"]);
    expect(calls).toEqual([{ model: "@cf/baai/bge-small-en-v1.5", input: { text: ["hello"] } }]);
  });

  it("sends at most 100 texts per call", async () => {
    const { ai, calls } = makeAiDouble();
    await makeWorkersAiEmbedder({ ai }).embed(Array.from({ length: 250 }, (_, i) => `t${i}`));
    expect(calls.map((c) => c.input.text.length)).toEqual([100, 100, 50]);
  });

  it("refuses an unknown model without its dimensions, and a missing binding", () => {
    const { ai } = makeAiDouble();
    expect(() => makeWorkersAiEmbedder({ ai, model: "@cf/some/new-model" })).toThrow(
      "the dimensions of Workers AI model '@cf/some/new-model' are not known: pass dimensions",
    );
    expect(makeWorkersAiEmbedder({ ai, model: "@cf/some/new-model", dimensions: 384 }).dimensions).toBe(384);
    expect(() => makeWorkersAiEmbedder({ ai: undefined as never })).toThrow(/AI binding/);
  });
});

import { describe, expect, it } from "vitest";
import { makeVectorizeIndex } from "../../adapters/vector-vectorize";
import { makeVectorizeDouble } from "../doubles/vectorize-double";
import { axis, contractDimensions, runVectorIndexContract } from "./vector-index.contract";

runVectorIndexContract({
  name: "the Vectorize adapter (over the in-memory double)",
  make(dimensions) {
    const binding = makeVectorizeDouble({ dimensions });
    return {
      open: (namespace) => makeVectorizeIndex(binding, { namespace }),
      async storedIds(namespace) {
        return [...binding.stored.values()]
          .filter((v) => v.namespace === namespace)
          .map((v) => v.id.slice(v.id.indexOf(":") + 1));
      },
    };
  },
});

describe("the Vectorize adapter", () => {
  it("asks Vectorize for the agent's namespace with full metadata", async () => {
    const binding = makeVectorizeDouble({ dimensions: contractDimensions });
    const index = makeVectorizeIndex(binding, { namespace: "agent-1" });
    await index.query(axis(0), { topK: 4, filter: { kind: "fact" } });
    expect(binding.calls.at(-1)).toEqual({
      method: "query",
      args: [axis(0), { topK: 4, namespace: "agent-1", returnMetadata: "all", filter: { kind: "fact" } }],
    });
  });

  it("caps topK at Vectorize's limit of 20 instead of failing the query", async () => {
    const binding = makeVectorizeDouble({ dimensions: contractDimensions });
    const index = makeVectorizeIndex(binding, { namespace: "agent-1" });
    await index.upsert(Array.from({ length: 30 }, (_, i) => ({ id: `v${i}`, values: axis(i, i + 3) })));
    expect(await index.query(axis(0), { topK: 50 })).toHaveLength(20);
  });

  it("splits large upserts and deletes into batches of 1000", async () => {
    const binding = makeVectorizeDouble({ dimensions: contractDimensions });
    const index = makeVectorizeIndex(binding, { namespace: "agent-1" });
    const records = Array.from({ length: 2500 }, (_, i) => ({ id: `v${i}`, values: axis(i) }));
    await index.upsert(records);
    await index.deleteByIds(records.map((r) => r.id));
    expect(binding.calls.map((c) => `${c.method}:${(c.args[0] as unknown[]).length}`)).toEqual([
      "upsert:1000",
      "upsert:1000",
      "upsert:500",
      "deleteByIds:1000",
      "deleteByIds:1000",
      "deleteByIds:500",
    ]);
    expect(binding.stored.size).toBe(0);
  });

  it("refuses an id too long for Vectorize before calling it", async () => {
    const binding = makeVectorizeDouble({ dimensions: contractDimensions });
    const index = makeVectorizeIndex(binding, { namespace: "agent-1" });
    await expect(index.upsert([{ id: "x".repeat(60), values: axis(0) }])).rejects.toThrow(
      /too long for Vectorize \(at most 53 bytes\)/,
    );
    expect(binding.calls).toEqual([]);
  });

  it("refuses a missing binding or namespace when it is built", () => {
    expect(() => makeVectorizeIndex(undefined as never, { namespace: "a" })).toThrow(/Vectorize binding/);
    const binding = makeVectorizeDouble({ dimensions: contractDimensions });
    expect(() => makeVectorizeIndex(binding, { namespace: "" })).toThrow(/namespace/);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentRuntimeSchema, defaultAgentRuntime } from "../../core/agents";
import { lazySchema } from "../../core/lazy-schema";
import {
  defaultRunLimits,
  modelSettingKeys,
  modelSettingsSchema,
  runLimitKeys,
  runLimitsSchema,
} from "../../core/run/limits";

const build = () =>
  z.strictObject({
    name: z.string().regex(/^[a-z]+$/, "lowercase letters"),
    tags: z
      .array(z.enum(["a", "b"]))
      .max(2)
      .default([]),
    limit: z.number().int().min(1).optional(),
  });

describe("a schema built on first use (lazySchema)", () => {
  it("is not built until something reads it, then built once", () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return build();
    });
    const parent = z.object({ inner: schema });
    expect(builds).toBe(0);
    expect(parent.parse({ inner: { name: "x" } })).toEqual({ inner: { name: "x", tags: [] } });
    schema.parse({ name: "y" });
    expect(builds).toBe(1);
  });

  it("gives the same data, issues and messages as the schema built at once, alone and inside another", () => {
    const eager = build();
    const lazy = lazySchema(build);
    const inputs = [
      { name: "ok", tags: ["a"] },
      { name: "Bad!", tags: ["c", "a", "b"], limit: 0.5 },
      { name: "x", extra: 1 },
      "not an object",
      null,
    ];
    for (const input of inputs) {
      expect(lazy.safeParse(input)).toEqual(eager.safeParse(input));
      expect(z.object({ at: lazy.optional() }).safeParse({ at: input })).toEqual(
        z.object({ at: eager.optional() }).safeParse({ at: input }),
      );
      expect(z.array(lazy).safeParse([input])).toEqual(z.array(eager).safeParse([input]));
    }
  });

  it("keeps what callers use of a zod schema: shape, extend, instanceof, JSON Schema", () => {
    const lazy = lazySchema(build);
    expect(Object.keys(lazy.shape)).toEqual(["name", "tags", "limit"]);
    expect(lazy.extend({ limit: z.string() }).safeParse({ name: "a", limit: "x" }).success).toBe(true);
    expect(lazy).toBeInstanceOf(z.ZodObject);
    expect(z.toJSONSchema(lazy)).toEqual(z.toJSONSchema(build()));
  });
});

describe("defaults written out so that no schema is built at startup", () => {
  it("equal what their schemas give for an empty object", () => {
    expect(defaultRunLimits).toEqual(runLimitsSchema.parse({}));
    expect(defaultAgentRuntime).toEqual(agentRuntimeSchema.parse({}));
  });

  it("the limit and model setting names are the schemas' keys, in order", () => {
    expect(runLimitKeys).toEqual(Object.keys(runLimitsSchema.shape));
    expect(modelSettingKeys).toEqual(Object.keys(modelSettingsSchema.shape));
  });
});

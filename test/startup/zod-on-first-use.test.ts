// The worker bundle's `zod` (wrangler.toml [alias]: workers/bundle/zod-on-first-use.ts) is zod's own
// namespace reached on its first read. The bundle itself (zod evaluated on first use, its English
// refusals) is run by test/node/lazy-load.check.mjs; here, the namespace stand-in it is made of.
import { describe, expect, it } from "vitest";
import * as real from "zod";
import { namespaceOnFirstUse } from "../../workers/bundle/zod-on-first-use";

describe("a namespace on first use (the worker bundle's zod)", () => {
  it("evaluates nothing until it is read, then stands for the namespace in every read", () => {
    let picked = 0;
    const z = namespaceOnFirstUse(() => {
      picked += 1;
      return real.z;
    });
    expect(picked).toBe(0);
    expect(z.object).toBe(real.z.object);
    expect(picked).toBe(1);
    expect(z.object({ a: z.string() }).safeParse({ a: 1 }).success).toBe(false);
    expect(z.object({ a: z.string() }).parse({ a: "x" })).toEqual({ a: "x" });
    expect("ZodError" in z).toBe(true);
    expect("notAZodExport" in z).toBe(false);
    expect(Object.keys(z).sort()).toEqual(Object.keys(real.z).sort());
    expect(Object.getOwnPropertyDescriptor(z, "string")?.enumerable).toBe(true);
  });

  it("keeps instanceof and the error's English message", () => {
    const z = namespaceOnFirstUse(() => real.z);
    const parsed = z.number().safeParse("seven");
    expect(parsed.success).toBe(false);
    expect(parsed.error).toBeInstanceOf(z.ZodError);
    expect(parsed.error).toBeInstanceOf(real.z.ZodError);
    expect(parsed.error?.issues[0]?.message).toBe("Invalid input: expected number, received string");
  });
});

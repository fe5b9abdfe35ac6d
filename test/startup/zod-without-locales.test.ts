// The worker bundle's zod (wrangler.toml [alias]: workers/bundle/zod-without-locales.ts and the mini one)
// must be zod itself minus the locales: same names, the same functions and classes, English
// messages. Tests import the real package (the alias is the bundler's), so this is where they meet.
import { describe, expect, it } from "vitest";
import * as real from "zod";
import * as realMini from "zod/v4-mini";
import * as bundled from "../../workers/bundle/zod-without-locales";
import * as bundledMini from "../../workers/bundle/zod-mini-without-locales";

const names = (ns: object, without: string[] = []) =>
  Object.keys(ns)
    .filter((k) => !without.includes(k))
    .sort();

describe("zod without its locales (the worker bundle's zod)", () => {
  it("names every export of zod but the locales, at the top, in z and in z.core", () => {
    expect(names(real.z)).toContain("locales");
    expect(names(bundled.z)).not.toContain("locales");
    expect(names(bundled.z)).toEqual(names(real.z, ["locales"]));
    expect(names(bundled)).toEqual(names(real, ["locales"]));
    expect(names(bundled.z.core)).toEqual(names(real.z.core, ["locales"]));
    expect(names(bundled.z.iso)).toEqual(names(real.z.iso));
    expect(names(bundled.z.coerce)).toEqual(names(real.z.coerce));
    expect(bundled.default).toBe(bundled.z);
  });

  it("names every export of zod/v4-mini but the locales", () => {
    expect(names(realMini.z)).toContain("locales");
    expect(names(bundledMini.z)).toEqual(names(realMini.z, ["locales"]));
    expect(names(bundledMini)).toEqual(names(realMini, ["locales"]));
    expect(names(bundledMini.z.core)).toEqual(names(realMini.z.core, ["locales"]));
  });

  it("is the same zod: one copy of each function and class, so schemas mix and instanceof holds", () => {
    for (const key of names(real.z, ["locales", "core", "iso", "coerce", "util", "regexes"]))
      expect(bundled.z[key as keyof typeof bundled.z], key).toBe(real.z[key as keyof typeof real.z]);
    expect(bundled.z.object({ a: bundled.z.string() })).toBeInstanceOf(real.z.ZodObject);
    expect(real.z.object({ inner: bundled.z.number() }).safeParse({ inner: 1 }).success).toBe(true);
  });

  it("still says what went wrong in English (zod registers it with the first schema)", () => {
    const schema = bundled.z.strictObject({ name: bundled.z.string().min(2), n: bundled.z.number().int() });
    const issues = schema.safeParse({ name: "a", n: "x", extra: 1 }).error?.issues.map((i) => i.message);
    expect(issues).toEqual(
      real.z
        .strictObject({ name: real.z.string().min(2), n: real.z.number().int() })
        .safeParse({ name: "a", n: "x", extra: 1 })
        .error?.issues.map((i) => i.message),
    );
    expect(issues).toContain("Invalid input: expected number, received string");
  });
});

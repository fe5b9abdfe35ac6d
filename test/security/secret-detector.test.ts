import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeSecretDetector } from "../../core/redaction";
import { findSecretLeak } from "../../core/gates";
import { redactDeep, redactSecrets } from "../../core/tools";

// The oracle below decodes (it never encodes): it reads a text the way someone hunting for the
// secret would, independently of how the detector precomputes its patterns.
const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);
const bytesOf = (s: string) => new TextEncoder().encode(s);
const squeeze = (s: string) => s.replace(/[\s!-/:-@[-`{-~]/g, "");
const reverse = (s: string) => [...s].reverse().join("");

function decodedBase64Runs(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[A-Za-z0-9+/_-]{2,}/g) ?? []) {
    const standard = run.replace(/-/g, "+").replace(/_/g, "/");
    for (let skip = 0; skip < 4; skip++) {
      const body = standard.slice(skip);
      const whole = body.length % 4 === 1 ? body.slice(0, -1) : body.padEnd(Math.ceil(body.length / 4) * 4, "=");
      try {
        out.push(atob(whole));
      } catch {
        // not base64 at this alignment
      }
    }
  }
  return out;
}

function percentDecoded(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function hexDecoded(text: string): string[] {
  return (squeeze(text).match(/[0-9a-fA-F]{2,}/g) ?? []).flatMap((run) =>
    [0, 1].map((skip) => run.slice(skip).replace(/../g, (pair) => String.fromCharCode(parseInt(pair, 16)))),
  );
}

/** Whether a reader of `text` can get `secret` back from it, in any of the forms issue 26 names. */
function reveals(text: string, secret: string): boolean {
  const bytes = latin1(bytesOf(secret));
  const views = [text, reverse(text), percentDecoded(text), reverse(percentDecoded(text))];
  if (views.some((v) => v.includes(secret))) return true;
  if (squeeze(secret).length >= 4 && [squeeze(text), reverse(squeeze(text))].some((v) => v.includes(squeeze(secret))))
    return true;
  return [...decodedBase64Runs(text), ...hexDecoded(text)].some((v) => v.includes(bytes));
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Secrets as operators have them: letters, digits and the punctuation API keys use. */
const secretArb = fc
  .string({ unit: fc.constantFrom(...alnum, ...alnum, "-", "_", ".", "/", "+", "="), minLength: 8, maxLength: 48 })
  .filter((s) => squeeze(s).length >= 6);
/** Surrounding text: words, spaces, JSON punctuation, other base64 and some non-ASCII. */
const aroundArb = fc.string({
  unit: fc.constantFrom(..."the quick brown fox", " ", "\n", "{", "}", '"', ":", ",", "é", "🙂", "=", "9"),
  maxLength: 60,
});
const bytesArb = fc.uint8Array({ maxLength: 8 });

const toHex = (s: string) => [...bytesOf(s)].map((b) => b.toString(16).padStart(2, "0")).join("");
const base64 = (bytes: Uint8Array) => btoa(latin1(bytes));

type Encoding = (
  secret: string,
  extra: { before: Uint8Array; after: Uint8Array; pick: number[]; seps: string[] },
) => string;
const encodings: Record<string, Encoding> = {
  exact: (s) => s,
  base64: (s) => base64(bytesOf(s)),
  "base64 inside a longer payload, at any byte offset": (s, { before, after }) =>
    base64(new Uint8Array([...before, ...bytesOf(s), ...after])),
  base64url: (s, { before, after }) =>
    base64(new Uint8Array([...before, ...bytesOf(s), ...after]))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, ""),
  "hex (lower)": (s) => toHex(s),
  "hex (upper)": (s) => toHex(s).toUpperCase(),
  "URL-encoded, any subset of characters": (s, { pick }) =>
    [...s]
      .map((c, i) => (pick[i % pick.length]! % 2 ? `%${c.charCodeAt(0).toString(16).padStart(2, "0")}` : c))
      .join(""),
  "URL-encoded, every character (upper hex)": (s) =>
    [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(""),
  reversed: (s) => reverse(s),
  "split by spaces": (s) => [...s].join(" "),
  "split by punctuation": (s, { seps }) => [...s].map((c, i) => c + (seps[i % seps.length] ?? "")).join(""),
  "split across JSON string pieces": (s, { pick }) => {
    const pieces: string[] = [];
    for (let at = 0, i = 0; at < s.length; i++) {
      const size = 1 + (pick[i % pick.length]! % 4);
      pieces.push(s.slice(at, at + size));
      at += size;
    }
    return JSON.stringify(pieces);
  },
};
const extraArb = fc.record({
  before: bytesArb,
  after: bytesArb,
  pick: fc.array(fc.nat(7), { minLength: 1, maxLength: 8 }),
  seps: fc.array(fc.constantFrom("-", " ", ".", ",", "_", "\t", "", "::"), { minLength: 1, maxLength: 5 }),
});

describe("one secret detector for every redaction and the output gate", () => {
  for (const [form, encode] of Object.entries(encodings)) {
    it(`removes a secret written ${form}, whatever surrounds it`, () => {
      fc.assert(
        fc.property(secretArb, aroundArb, aroundArb, extraArb, (secret, before, after, extra) => {
          const encoded = encode(secret, extra);
          const text = `${before}${encoded}${after}`;
          expect(reveals(text, secret)).toBe(true); // the oracle sees it before
          const detector = makeSecretDetector([{ name: "TOOL_KEY", value: secret }]);
          const out = detector.redact(text);
          expect(out).toContain("[redacted]");
          expect(reveals(out, secret)).toBe(false);
          expect(detector.first(text)?.name).toBe("TOOL_KEY");
        }),
        { numRuns: 150 },
      );
    });
  }

  it("leaves ordinary text as it is (the positive control)", () => {
    const ordinary = [
      "Left comments on the PR; the build is green (commit 9f8e7d).",
      '{"city":"Lisbon","temperature":21.5,"conditions":["sunny","light wind"]}',
      `payload ${btoa("an unrelated attachment, not a key")} ends here`,
      "Meeting moved to 14:30 — bring the Q3 numbers, 12% up on last year.",
      "https://example.com/search?q=edge%20agents&page=2",
    ];
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...alnum), minLength: 10, maxLength: 40 }), (secret) => {
        fc.pre(!ordinary.some((text) => reveals(text, secret)));
        const detector = makeSecretDetector([{ name: "TOOL_KEY", value: secret }]);
        for (const text of ordinary) expect(detector.redact(text)).toBe(text);
        expect(findSecretLeak(ordinary.join(" "), [secret])).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it("does not look for secrets shorter than 4 characters, and returns its input when it has no secrets", () => {
    expect(makeSecretDetector([{ name: "PIN", value: "abc" }]).redact("abc a b c cba")).toBe("abc a b c cba");
    expect(makeSecretDetector([{ name: "PIN", value: "abcd" }]).redact("key abcd")).toBe("key [redacted]");
    const value = { a: ["x"] };
    expect(redactDeep(value, [])).toBe(value);
    expect(makeSecretDetector([]).size).toBe(0);
  });

  it("is built once per secret set", () => {
    const secrets = [{ name: "A", value: "alpha-secret-1" }];
    expect(makeSecretDetector(secrets)).toBe(makeSecretDetector([{ name: "A", value: "alpha-secret-1" }]));
    expect(makeSecretDetector(secrets)).not.toBe(makeSecretDetector([{ name: "A", value: "alpha-secret-2" }]));
  });

  it("redacts keys and values of a trace record, and keeps the rest of it", () => {
    const secret = "s3cr3t-v4lue-xyz";
    const traced = {
      tool: "lookup",
      output: `echo: ${btoa(secret)} | ${[...secret].join(" ")} | ${reverse(secret)} | done`,
      [toHex(secret)]: 1,
    };
    const out = redactDeep(traced, [secret]);
    expect(out.tool).toBe("lookup");
    expect(out.output).toBe("echo: [redacted] | [redacted] | [redacted] | done");
    expect(JSON.stringify(out)).not.toContain(toHex(secret));
    expect(redactSecrets(`x=${encodeURIComponent("é-" + secret)}`, ["é-" + secret])).toBe("x=[redacted]");
  });

  it("keeps a long text fast: 200 KB with three secrets in well under a second", () => {
    const detector = makeSecretDetector(
      ["sk-live-0123456789abcdef", "AIRTABLE-secret-value", "ghp_exampleexampleexample"].map((value, i) => ({
        name: `S${i}`,
        value,
      })),
    );
    const text = 'The quick brown fox jumps over the lazy dog, 42 times; {"a": [1,2,3]} '.repeat(3_000);
    const started = performance.now();
    expect(detector.redact(text)).toBe(text);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

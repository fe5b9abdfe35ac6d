import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wordPieces } from "../../core/run";

describe("a reply released word by word", () => {
  it("cuts after the whitespace that follows each word", () => {
    expect(wordPieces("Hi  there!\n")).toEqual(["Hi  ", "there!\n"]);
    expect(wordPieces("  leading space kept")).toEqual(["  leading ", "space ", "kept"]);
    expect(wordPieces("")).toEqual([]);
    expect(wordPieces("   ")).toEqual(["   "]);
  });

  it("loses nothing: the pieces join back to the reply, none is empty", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "\t", "é", "🙂"), maxLength: 200 }),
        (text) => {
          const pieces = wordPieces(text);
          expect(pieces.join("")).toBe(text);
          expect(pieces.every((p) => p.length > 0)).toBe(true);
        },
      ),
    );
  });

  it("handles a reply of a million spaces in one pass", () => {
    const text = " ".repeat(1_000_000) + "end";
    expect(wordPieces(text)).toEqual([text]);
  });
});

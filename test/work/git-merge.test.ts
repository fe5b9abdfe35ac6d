import { describe, expect, it } from "vitest";
import {
  hasConflictMarkers,
  mergeTrees,
  packForClient,
  parseUploadRequest,
  pathsChangedOnBothSides,
  pktLine,
  uploadPackAdvertisement,
} from "../../core/work";

const texts = new Map([
  ["b1", "a\nb\nc\nd\ne\n"],
  ["o1", "A\nb\nc\nd\ne\n"],
  ["t1", "a\nb\nc\nd\nE\n"],
  ["t2", "X\nb\nc\nd\ne\n"],
]);
const text = (oid: string) => texts.get(oid)!;

describe("three-way merge of two trees (core/work git-merge)", () => {
  it("takes one side's change, both sides' identical change, and line-merges edits to different lines", () => {
    const base = new Map([
      ["f", "b1"],
      ["keep", "k"],
      ["gone", "g"],
    ]);
    const ours = new Map([
      ["f", "o1"],
      ["keep", "k"],
      ["gone", "g"],
      ["new-ours", "n1"],
    ]);
    const theirs = new Map([
      ["f", "t1"],
      ["keep", "k"],
      ["new-theirs", "n2"],
    ]);
    const merged = mergeTrees({ base, ours, theirs }, text);
    expect(merged.conflicts).toEqual([]);
    expect(merged.files.get("f")).toEqual({ text: "A\nb\nc\nd\nE\n" });
    expect(merged.files.get("keep")).toEqual({ oid: "k" });
    expect(merged.files.has("gone")).toBe(false);
    expect(merged.files.get("new-ours")).toEqual({ oid: "n1" });
    expect(merged.files.get("new-theirs")).toEqual({ oid: "n2" });
    expect(pathsChangedOnBothSides(base, ours, theirs)).toEqual(["f"]);
  });

  it("marks the same line changed differently as a conflict with both sides, and a delete against a change too", () => {
    const merged = mergeTrees(
      {
        base: new Map([
          ["f", "b1"],
          ["d", "b1"],
        ]),
        ours: new Map([["f", "o1"]]),
        theirs: new Map([
          ["f", "t2"],
          ["d", "t1"],
        ]),
      },
      text,
    );
    expect(merged.conflicts.map((c) => c.path)).toEqual(["d", "f"]);
    const f = merged.conflicts.find((c) => c.path === "f")!;
    expect(f).toMatchObject({ base: "a\nb\nc\nd\ne\n", ours: "A\nb\nc\nd\ne\n", theirs: "X\nb\nc\nd\ne\n" });
    expect(f.marked).toBe("<<<<<<< feature\nA\n=======\nX\n>>>>>>> task\nb\nc\nd\ne\n");
    expect(hasConflictMarkers(f.marked)).toBe(true);
    expect(hasConflictMarkers("A\nb\n")).toBe(false);
    expect(merged.conflicts.find((c) => c.path === "d")).toMatchObject({ ours: null, theirs: "a\nb\nc\nd\nE\n" });
  });
});

describe("git's smart-HTTP wire format (core/work git-wire)", () => {
  it("advertises refs with HEAD first and its capabilities, and reads a client's wants, haves and done", () => {
    const oid = "a".repeat(40);
    const ad = new TextDecoder().decode(uploadPackAdvertisement([{ name: "refs/heads/main", oid }], "refs/heads/main"));
    expect(ad.startsWith("001e# service=git-upload-pack\n0000")).toBe(true);
    // side-band-64k: isomorphic-git reads a pack only from band 1 of a side-band answer.
    expect(ad).toContain(
      `${oid} HEAD\u0000side-band-64k side-band no-progress ofs-delta agent=pantheon symref=HEAD:refs/heads/main\n`,
    );
    expect(ad).toContain(`${oid} refs/heads/main\n`);
    expect(ad.endsWith("0000")).toBe(true);
    const body = new Uint8Array([
      ...pktLine(`want ${oid} side-band-64k ofs-delta\n`),
      ...new TextEncoder().encode("0000"),
      ...pktLine(`have ${"b".repeat(40)}\n`),
      ...pktLine("done\n"),
    ]);
    expect(parseUploadRequest(body)).toEqual({
      wants: [oid],
      haves: ["b".repeat(40)],
      done: true,
      capabilities: ["side-band-64k", "ofs-delta"],
    });
    expect(() => parseUploadRequest(new TextEncoder().encode("zzzzjunk"))).toThrow();
  });

  it("sends a pack on band 1 in packets of at most 65,520 bytes for side-band-64k, 1,000 for side-band, as it is for neither", () => {
    const pack = new Uint8Array(140_000).map((_, i) => i % 251);
    const read = (bytes: Uint8Array) => {
      const lines: Uint8Array[] = [];
      let at = 0;
      for (;;) {
        const len = Number.parseInt(new TextDecoder().decode(bytes.subarray(at, at + 4)), 16);
        if (len === 0) return { lines, end: at + 4 };
        lines.push(bytes.subarray(at + 4, at + len));
        at += len;
      }
    };
    const wide = packForClient(pack, ["side-band-64k"]);
    const { lines, end } = read(wide);
    expect(end).toBe(wide.length);
    expect(lines.every((l) => l[0] === 1 && l.length + 4 <= 65_520)).toBe(true);
    expect(new Uint8Array(lines.flatMap((l) => [...l.subarray(1)]))).toEqual(pack);
    expect(read(packForClient(pack, ["side-band"])).lines.every((l) => l.length + 4 <= 1000)).toBe(true);
    expect(packForClient(pack, ["ofs-delta"])).toBe(pack);
  });
});

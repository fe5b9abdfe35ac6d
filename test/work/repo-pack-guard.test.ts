import { zlibSync } from "fflate";
import { describe, expect, it } from "vitest";
import type { PantheonError } from "../../core/errors";
import { guardUploadPack, makePackGuard, readCapped } from "../../durable-objects/feature/repo/pack-guard";

const limit = 1024 * 1024;

/** A pack object's header: its type, then its inflated size (4 bits, then 7 a byte). */
function header(type: number, size: number): number[] {
  const out = [(type << 4) | (size & 15)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out[out.length - 1]! |= 0x80;
    out.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return out;
}

const varint = (n: number) => {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return out;
};

type Entry = { type: number; data?: Uint8Array; declared?: number; raw?: Uint8Array; ofs?: number };

/** A packfile as git writes one (the trailing checksum left zero: the guard leaves it to isomorphic-git). */
function pack(entries: Entry[]): Uint8Array {
  const parts: number[] = [..."PACK"].map((c) => c.charCodeAt(0));
  parts.push(0, 0, 0, 2, 0, 0, (entries.length >> 8) & 255, entries.length & 255);
  for (const e of entries) {
    parts.push(...header(e.type, e.declared ?? e.data!.length));
    if (e.type === 6) parts.push(e.ofs ?? 1);
    parts.push(...(e.raw ?? zlibSync(e.data!)));
  }
  return new Uint8Array([...parts, ...new Uint8Array(20)]);
}

const zeros = (n: number) => new Uint8Array(n);

/** Feeds a pack in pieces of `size` bytes (as a download arrives); answers the error it threw, if any. */
function feed(bytes: Uint8Array, size = bytes.length): PantheonError | undefined {
  const guard = makePackGuard({ bytes: limit });
  try {
    for (let at = 0; at < bytes.length; at += size) guard.push(bytes.subarray(at, at + size));
  } catch (error) {
    return error as PantheonError;
  }
  return undefined;
}

describe("an import's pack is measured before it is unpacked (pack-guard)", () => {
  it("a pack just under the limit passes whole and in 7-byte pieces; one byte more is refused with 413 naming the limit", () => {
    const commit = new TextEncoder().encode("tree 0000\n\nStart\n");
    const under = pack([
      { type: 1, data: commit },
      { type: 3, data: zeros(limit - commit.length) },
    ]);
    expect(feed(under)).toBeUndefined();
    expect(feed(under, 7)).toBeUndefined();
    const over = pack([
      { type: 1, data: commit },
      { type: 3, data: zeros(limit - commit.length + 1) },
    ]);
    const refused = feed(over, 7);
    expect(refused).toMatchObject({ code: "payload_too_large", status: 413 });
    expect(refused?.message).toContain("unpacks to more than 1 MB: a feature imports at most 1 MB");
  });

  it("an object whose header declares 300 MB is refused at its header, before a byte of it is inflated", () => {
    // Its data is not zlib at all: a guard that inflated before measuring would answer 'malformed' (502), not 413.
    const bomb = pack([{ type: 3, declared: 300 * 1024 * 1024, raw: new Uint8Array(64).fill(0xff) }]);
    const refused = feed(bomb);
    expect(refused).toMatchObject({ code: "payload_too_large", status: 413 });
    expect(refused?.message).toBe(
      "the remote's pack holds a blob of 300 MB: a feature imports at most 1 MB of repository data (each object and all together)",
    );
    // The control: the same garbage behind an honest small header is read, and found malformed.
    expect(feed(pack([{ type: 3, declared: 10, raw: new Uint8Array(64).fill(0xff) }]))).toMatchObject({
      code: "bad_gateway",
    });
  });

  it("an object that inflates past what its header declares is stopped at the first piece past it", () => {
    const lying = pack([{ type: 3, declared: 100, raw: zlibSync(zeros(8 * limit)) }]);
    expect(feed(lying, 4096)?.message).toContain("inflates past the 100 bytes its header declares");
    expect(feed(pack([{ type: 3, data: zeros(100) }]), 4096)).toBeUndefined();
  });

  it("a small delta that would make a large object is refused by the size it declares it makes", () => {
    const base = zeros(1000);
    // Copy the base's 1,000 bytes (0x90: copy with a one-byte size) as often as it takes to make 2 MB.
    const copies = Math.ceil((2 * limit) / 1000);
    const delta = new Uint8Array([
      ...varint(1000),
      ...varint(copies * 1000),
      ...Array.from({ length: copies }, () => [0x90 | 0x20, 0xe8, 0x03]).flat(),
    ]);
    const refused = feed(
      pack([
        { type: 3, data: base },
        { type: 6, data: delta, ofs: 10 },
      ]),
      512,
    );
    expect(refused).toMatchObject({ code: "payload_too_large" });
    expect(refused?.message).toContain("a delta's object of 2 MB");
    const small = new Uint8Array([...varint(1000), ...varint(1000), 0x90 | 0x20, 0xe8, 0x03]);
    expect(
      feed(
        pack([
          { type: 3, data: base },
          { type: 6, data: small, ofs: 10 },
        ]),
        512,
      ),
    ).toBeUndefined();
  });

  it("reads the pack from band 1 of a side-band answer and keeps the answer as it came for isomorphic-git", async () => {
    const line = (band: number, bytes: Uint8Array) => {
      const len = (bytes.length + 5).toString(16).padStart(4, "0");
      return new Uint8Array([...new TextEncoder().encode(len), band, ...bytes]);
    };
    const answer = (p: Uint8Array) =>
      new Uint8Array([
        ...new TextEncoder().encode("0008NAK\n"),
        ...line(2, new TextEncoder().encode("Counting objects\n")),
        ...line(1, p.subarray(0, 30)),
        ...line(1, p.subarray(30)),
        ...new TextEncoder().encode("0000"),
      ]);
    const body = answer(pack([{ type: 3, data: zeros(1000) }]));
    const kept = await guardUploadPack(new Response(body), { bytes: limit });
    expect(new Uint8Array(await new Blob(kept).arrayBuffer())).toEqual(body);
    await expect(
      guardUploadPack(new Response(answer(pack([{ type: 3, data: zeros(limit + 1) }]))), { bytes: limit }),
    ).rejects.toMatchObject({ status: 413 });
  });
});

describe("a remote's other answers during an import", () => {
  const streamOf = (bytes: number) =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let sent = 0; sent < bytes; sent += 64 * 1024) controller.enqueue(new Uint8Array(64 * 1024));
          controller.close();
        },
      }),
    );

  it("a refs listing past the cap is refused with 413 naming the cap, while one within it is read whole", async () => {
    const kept = await readCapped(streamOf(256 * 1024), 1024 * 1024);
    expect(kept.reduce((n, c) => n + c.length, 0)).toBe(256 * 1024);
    const refused = (await readCapped(streamOf(2 * 1024 * 1024), 1024 * 1024).catch((e) => e)) as PantheonError;
    expect(refused.code).toBe("payload_too_large");
    expect(refused.message).toContain("larger than 1 MB");
  });
});

import { Inflate as PakoInflate } from "pako";
import { PantheonError } from "../../../core/errors";

/** What an import may unpack: each object and all of them together, inflated (a delta counts at the size it makes). */
export interface PackLimits {
  bytes: number;
}

/** pako's Inflate with the stream state its types leave out: `ended` after the zlib stream's end, and the input it did not use. */
type Inflate = InstanceType<typeof PakoInflate>;
type Inflating = Inflate & { ended: boolean; strm: { avail_in: number; msg?: string } };

const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
const types: Record<number, string> = { 1: "commit", 2: "tree", 3: "blob", 4: "tag", 6: "ofs-delta", 7: "ref-delta" };

const tooLarge = (message: string, details: Record<string, unknown>) =>
  new PantheonError("payload_too_large", message, { details });
const malformed = (what: string) => new PantheonError("bad_gateway", `the remote's pack is malformed: ${what}`);

/**
 * Reads a packfile as it arrives and refuses it, before it is held inflated anywhere, when it would
 * unpack past the limits: each object's header declares its inflated size (a delta's data opens with
 * the size it makes), so a 300 MB blob is refused at its header, unread; and each object is inflated
 * in 16 KB pieces that are counted and dropped, so a header that understates its object is caught at
 * the first piece past what it declared. Nothing is kept but a few header bytes.
 * @example
 * const guard = makePackGuard({ bytes: 64 * 1024 * 1024 });
 * for (const chunk of chunks) guard.push(chunk); // throws a 413 PantheonError past the limit
 */
export function makePackGuard(limits: PackLimits) {
  let pending: Uint8Array = new Uint8Array(0);
  /** Objects the pack's header announced and not yet read; -1 before the header. */
  let left = -1;
  let total = 0;
  let object: {
    inflate: Inflating;
    type: number;
    declared: number;
    made: number;
    head: number[];
    target: boolean;
  } | null = null;

  const count = (bytes: number, what: string) => {
    if (bytes > limits.bytes)
      throw tooLarge(
        `the remote's pack holds a ${what} of ${mb(bytes)}: a feature imports at most ${mb(limits.bytes)} of repository data (each object and all together)`,
        { object: what, bytes, limit: limits.bytes },
      );
    total += bytes;
    if (total > limits.bytes)
      throw tooLarge(
        `the remote's pack unpacks to more than ${mb(limits.bytes)}: a feature imports at most ${mb(limits.bytes)} of repository data`,
        { bytes: total, limit: limits.bytes },
      );
  };

  /** A delta's data opens with two sizes (its base's, then the object it makes): the second is what it unpacks to. */
  const deltaTarget = (head: number[]): number | undefined => {
    let at = 0;
    for (let n = 0; n < 2; n++) {
      let size = 0;
      let shift = 0;
      for (;;) {
        const byte = head[at++];
        if (byte === undefined) return undefined;
        size += (byte & 0x7f) * 2 ** shift;
        shift += 7;
        if (!(byte & 0x80)) break;
      }
      if (n === 1) return size;
    }
    return undefined;
  };

  function startObject(): boolean {
    // The header: type in bits 6-4 of the first byte, the size in 4 bits then 7 a byte while the top bit is set.
    let at = 0;
    const next = () => pending[at++];
    let byte = next();
    if (byte === undefined) return false;
    const type = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      byte = next();
      if (byte === undefined) return false;
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    if (!types[type]) throw malformed(`an object of unknown type ${type}`);
    if (type === 6) {
      do {
        byte = next();
        if (byte === undefined) return false;
      } while (byte & 0x80);
    } else if (type === 7) {
      if (pending.length < at + 20) return false;
      at += 20;
    }
    pending = pending.subarray(at);
    // Refused on the header, before a byte of it is inflated. A delta's own data is bounded here; what it makes, below.
    if (type === 6 || type === 7) {
      if (size > limits.bytes) count(size, "delta");
    } else count(size, types[type]!);
    const inflate = new PakoInflate({ chunkSize: 16 * 1024 }) as Inflating;
    const o = { inflate, type, declared: size, made: 0, head: [] as number[], target: false };
    inflate.onData = (piece) => {
      const bytes = piece as Uint8Array;
      o.made += bytes.length;
      if (o.made > o.declared)
        throw malformed(`a ${types[type]} inflates past the ${o.declared} bytes its header declares`);
      if (o.type >= 6 && !o.target) {
        o.head.push(...bytes.subarray(0, 20));
        const target = deltaTarget(o.head);
        if (target === undefined && o.head.length >= 20) throw malformed("a delta does not open with its sizes");
        if (target !== undefined) {
          o.target = true;
          count(target, "delta's object");
        }
      }
    };
    // pako's own onEnd joins every piece into `result`: here nothing is kept.
    inflate.onEnd = () => undefined;
    object = o;
    return true;
  }

  /** Takes the next bytes of the pack (band 1 of the remote's answer). Throws a 413 PantheonError past the limits. */
  function push(chunk: Uint8Array): void {
    // pako reads an empty push as a stream cut short.
    if (chunk.length === 0) return;
    if (pending.length === 0) pending = chunk;
    else {
      const joined = new Uint8Array(pending.length + chunk.length);
      joined.set(pending);
      joined.set(chunk, pending.length);
      pending = joined;
    }
    for (;;) {
      if (left < 0) {
        if (pending.length < 12) return;
        if (String.fromCharCode(...pending.subarray(0, 4)) !== "PACK") throw malformed("it does not start with PACK");
        left = new DataView(pending.buffer, pending.byteOffset + 8, 4).getUint32(0);
        pending = pending.subarray(12);
        continue;
      }
      if (object) {
        // pako reads an empty push as a stream cut short: wait for the object's bytes.
        if (pending.length === 0) return;
        const input = pending;
        pending = new Uint8Array(0);
        if (!object.inflate.push(input, false))
          throw malformed(`an object does not inflate (${object.inflate.strm.msg || "not zlib data"})`);
        if (!object.inflate.ended) return;
        if (object.made !== object.declared)
          throw malformed(
            `a ${types[object.type]} inflates to ${object.made} bytes, not the ${object.declared} its header declares`,
          );
        pending = input.subarray(input.length - object.inflate.strm.avail_in);
        object = null;
        left--;
        continue;
      }
      // The 20-byte checksum after the last object is isomorphic-git's to verify.
      if (left === 0 || !startObject()) return;
    }
  }

  return { push, unpacked: () => total };
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/**
 * The body of a remote's upload-pack answer, read as it arrives with the pack (band 1 of its
 * side-band pkt-lines, or the bytes after the NAK when it sends none) going through a pack guard:
 * refused, and the download cancelled, the moment what it would unpack passes the limits. The body
 * itself is kept whole (compressed; at most `limits.bytes`) for isomorphic-git to index afterwards.
 * @example
 * const chunks = await guardUploadPack(await fetch(url, init), importLimits);
 */
export async function guardUploadPack(res: Response, limits: PackLimits): Promise<Uint8Array[]> {
  const guard = makePackGuard(limits);
  const kept: Uint8Array[] = [];
  let received = 0;
  let rest: Uint8Array = new Uint8Array(0);
  let raw = false;
  const reader = res.body?.getReader();
  if (!reader) return [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
      if (received > limits.bytes)
        throw tooLarge(
          `the remote's pack is larger than ${mb(limits.bytes)}: a feature imports at most ${mb(limits.bytes)} of repository data`,
          { bytes: received, limit: limits.bytes },
        );
      kept.push(value);
      if (raw) {
        guard.push(value);
        continue;
      }
      rest = concat(rest, value);
      while (rest.length >= 4) {
        const hex = String.fromCharCode(...rest.subarray(0, 4));
        if (!/^[0-9a-f]{4}$/i.test(hex)) {
          // No side-band: the pack follows the NAK as it is.
          raw = true;
          guard.push(rest);
          rest = new Uint8Array(0);
          break;
        }
        const len = Number.parseInt(hex, 16);
        if (len < 4) {
          rest = rest.subarray(4);
          continue;
        }
        if (rest.length < len) break;
        const payload = rest.subarray(4, len);
        if (payload[0] === 1) guard.push(payload.subarray(1));
        rest = rest.subarray(len);
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  return kept;
}

/** The most a remote's other answers (its refs listing, an error page) may hold: far above any real listing. */
export const remoteAnswerLimit = 8 * 1024 * 1024;

/**
 * Reads an answer that is not a pack (a remote's refs listing), refusing it with 413 once it passes
 * `limit`: a hostile remote could otherwise stream a listing without end into the object's memory.
 * @example
 * const chunks = await readCapped(await fetch(`${url}/info/refs?service=git-upload-pack`), remoteAnswerLimit);
 */
export async function readCapped(res: Response, limit: number): Promise<Uint8Array[]> {
  const reader = res.body?.getReader();
  if (!reader) return [];
  const kept: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return kept;
    received += value.length;
    if (received > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`the remote's answer is larger than ${mb(limit)}: a refs listing holds far less`, {
        bytes: received,
        limit,
      });
    }
    kept.push(value);
  }
}

/**
 * The parts of git's smart-HTTP protocol (v0/v1, upload-pack) and of its bundle format that
 * Pantheon serves: pkt-lines, the ref advertisement, a client's wants and haves. Pure bytes in and out.
 */

import { concatBytes } from "../bytes";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One pkt-line: four hex digits of length (the four included), then the payload. */
export function pktLine(payload: string | Uint8Array): Uint8Array {
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const out = new Uint8Array(body.length + 4);
  out.set(encoder.encode((body.length + 4).toString(16).padStart(4, "0")), 0);
  out.set(body, 4);
  return out;
}

export const flushPkt = () => encoder.encode("0000");

export { concatBytes };

/**
 * The answer to `GET …/info/refs?service=git-upload-pack`: the service line, then each ref (HEAD
 * first, with the capabilities after a NUL on the first line), then a flush.
 * @example
 * uploadPackAdvertisement([{ name: "refs/heads/main", oid }], "refs/heads/main")
 */
export function uploadPackAdvertisement(
  refs: readonly { name: string; oid: string }[],
  head: string | null,
  agent = "pantheon",
): Uint8Array {
  // side-band-64k: isomorphic-git always reads the pack from band 1 of a side-band stream (it cannot read a bare pack after the NAK); git takes either.
  const caps = [
    "side-band-64k",
    "side-band",
    "no-progress",
    "ofs-delta",
    `agent=${agent}`,
    ...(head ? [`symref=HEAD:${head}`] : []),
  ].join(" ");
  const headOid = head ? refs.find((r) => r.name === head)?.oid : undefined;
  const lines = [...(headOid ? [{ name: "HEAD", oid: headOid }] : []), ...refs];
  const parts = [pktLine("# service=git-upload-pack\n"), flushPkt()];
  if (lines.length === 0) parts.push(pktLine(`${"0".repeat(40)} capabilities^{}\0${caps}\n`));
  lines.forEach((ref, i) =>
    parts.push(pktLine(i === 0 ? `${ref.oid} ${ref.name}\0${caps}\n` : `${ref.oid} ${ref.name}\n`)),
  );
  parts.push(flushPkt());
  return concatBytes(parts);
}

/** A client's upload-pack request: the commits it wants, the ones it has, whether it said `done`, and the capabilities its first want asked for. */
export function parseUploadRequest(body: Uint8Array): {
  wants: string[];
  haves: string[];
  done: boolean;
  capabilities: string[];
} {
  const wants: string[] = [];
  let capabilities: string[] = [];
  const haves: string[] = [];
  let done = false;
  let at = 0;
  while (at + 4 <= body.length) {
    const len = parseInt(decoder.decode(body.subarray(at, at + 4)), 16);
    if (!Number.isFinite(len)) throw new Error("not a pkt-line stream");
    if (len === 0) {
      at += 4;
      continue;
    }
    const line = decoder.decode(body.subarray(at + 4, at + len)).trim();
    at += len;
    const [verb, oid, ...rest] = line.split(" ");
    if (verb === "want" && oid && /^[0-9a-f]{40}$/.test(oid)) {
      if (wants.length === 0) capabilities = rest.filter(Boolean);
      wants.push(oid);
    } else if (verb === "have" && oid && /^[0-9a-f]{40}$/.test(oid)) haves.push(oid);
    else if (verb === "done") done = true;
  }
  return { wants, haves, done, capabilities };
}

/**
 * The pack of an upload-pack answer as the client asked for it: on band 1 of side-band-64k (65,515
 * bytes a packet) or side-band (995), then a flush; as it is when the client asked for neither.
 */
export function packForClient(pack: Uint8Array, capabilities: readonly string[]): Uint8Array {
  const size = capabilities.includes("side-band-64k") ? 65_515 : capabilities.includes("side-band") ? 995 : 0;
  if (!size) return pack;
  const parts: Uint8Array[] = [];
  for (let at = 0; at < pack.length; at += size) {
    const slice = pack.subarray(at, at + size);
    const payload = new Uint8Array(slice.length + 1);
    payload[0] = 1;
    payload.set(slice, 1);
    parts.push(pktLine(payload));
  }
  parts.push(flushPkt());
  return concatBytes(parts);
}

/** A git bundle (v2): its refs, a blank line, then the packfile; `git clone x.bundle` reads it. */
export function gitBundle(refs: readonly { name: string; oid: string }[], packfile: Uint8Array): Uint8Array {
  const header = `# v2 git bundle\n${refs.map((r) => `${r.oid} ${r.name}\n`).join("")}\n`;
  return concatBytes([encoder.encode(header), packfile]);
}

/** A ustar archive of files (path → bytes), each under `prefix/`, as `git archive --format=tar` makes. */
export function tarArchive(
  files: readonly { path: string; data: Uint8Array; mode?: string }[],
  prefix: string,
  mtime: number,
): Uint8Array {
  const parts: Uint8Array[] = [];
  const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;
  for (const file of files) {
    const header = new Uint8Array(512);
    const put = (text: string, offset: number) => header.set(encoder.encode(text), offset);
    let name = `${prefix}/${file.path}`;
    let namePrefix = "";
    if (encoder.encode(name).length > 100) {
      const cut = name.lastIndexOf("/", 154);
      namePrefix = name.slice(0, cut);
      name = name.slice(cut + 1);
    }
    put(name, 0);
    put(octal(file.mode === "100755" ? 0o755 : 0o644, 8), 100);
    put(octal(0, 8), 108);
    put(octal(0, 8), 116);
    put(octal(file.data.length, 12), 124);
    put(octal(Math.floor(mtime / 1000), 12), 136);
    put("        ", 148);
    put("0", 156);
    put("ustar\u000000", 257);
    put(namePrefix, 345);
    let sum = 0;
    for (const byte of header) sum += byte;
    put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    parts.push(header, file.data, new Uint8Array((512 - (file.data.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  return concatBytes(parts);
}

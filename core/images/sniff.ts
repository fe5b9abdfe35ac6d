/**
 * What an image's bytes say it is: the type from its magic bytes (the declared Content-Type is never
 * trusted) and its size in pixels from its header. Pure code: no decoder, no Cloudflare imports.
 */

/** The image types Pantheon takes, by the file extension its store uses. */
export const imageTypes = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
} as const;
export type ImageType = keyof typeof imageTypes;

export interface SniffedImage {
  type: ImageType;
  /** Pixels; absent when the header does not say (a JPEG whose frame header is past a damaged segment). */
  width?: number;
  height?: number;
}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  prefix.every((b, i) => bytes[at + i] === b);
const ascii = (bytes: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...bytes.subarray(at, at + length));
const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);

/**
 * The type and dimensions of a PNG, JPEG, WebP or GIF, or null for anything else.
 * @example
 * sniffImage(pngBytes); // { type: "image/png", width: 2, height: 2 }
 * sniffImage(new TextEncoder().encode("<svg …")); // null
 */
export function sniffImage(bytes: Uint8Array): SniffedImage | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    // The IHDR chunk comes first: width and height as big-endian 32-bit integers.
    if (bytes.length < 24 || ascii(bytes, 12, 4) !== "IHDR") return { type: "image/png" };
    return { type: "image/png", width: u32be(bytes, 16), height: u32be(bytes, 20) };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { type: "image/jpeg", ...jpegSize(bytes) };
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP")
    return { type: "image/webp", ...webpSize(bytes) };
  if (bytes.length >= 10 && (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a")) {
    return { type: "image/gif", width: u16le(bytes, 6), height: u16le(bytes, 8) };
  }
  return null;
}

/** Walks the JPEG's segments to its first start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC). */
function jpegSize(bytes: Uint8Array): { width?: number; height?: number } {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return {};
    const marker = bytes[at + 1]!;
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = u16be(bytes, at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7) };
    }
    if (length < 2) return {};
    at += 2 + length;
  }
  return {};
}

/** VP8 (lossy), VP8L (lossless) and VP8X (extended) each keep the canvas size in their own way. */
function webpSize(bytes: Uint8Array): { width?: number; height?: number } {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8X" && bytes.length >= 30) return { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  if (chunk === "VP8L" && bytes.length >= 25 && bytes[20] === 0x2f) {
    const bits = bytes[21]! | (bytes[22]! << 8) | (bytes[23]! << 16) | (bytes[24]! << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 " && bytes.length >= 30 && startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) {
    return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  return {};
}

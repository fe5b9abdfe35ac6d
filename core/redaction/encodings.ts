/**
 * The encoded forms of a secret the detector searches for, computed once per secret, and the
 * normalised views of a text they are searched in. Pure string work, no platform APIs but `btoa`.
 */

const encoder = new TextEncoder();

export function utf8(value: string): Uint8Array {
  return encoder.encode(value);
}

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}

export function reversed(value: string): string {
  return [...value].reverse().join("");
}

export function hexOf(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/**
 * The base64 characters that depend on the secret's bytes alone, for each of the 3 byte offsets the
 * secret can sit at inside a longer payload: a secret embedded mid-payload is still found, and the
 * characters shared with its neighbours (which the neighbours change) are left out of the pattern.
 * @example
 * base64Cores(utf8("secret")); // ["c2VjcmV0", "NlY3JldA"(…), …]: one per offset 0, 1, 2
 */
export function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = btoa(latin1(padded));
    // Character i carries bits [6i, 6i+6); the secret's bits are [8·offset, 8·(offset+n)).
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    cores.push(encoded.slice(first, end));
  }
  return cores;
}

export function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, "-").replace(/\//g, "_");
}

/** A view of a text with some characters dropped or decoded, and where each of its characters came from. */
export interface TextView {
  text: string;
  /** Index in the original text of the view's character i. */
  starts: Int32Array;
  /** Index just past the original characters that made the view's character i. */
  ends: Int32Array;
}

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** `%XX` sequences decoded (each to the one character of that code): a secret percent-encoded in any of its characters reads plainly here. */
export function percentDecodedView(text: string): TextView {
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let out = "";
  let n = 0;
  for (let i = 0; i < text.length; n++) {
    starts[n] = i;
    if (
      text.charCodeAt(i) === 37 &&
      i + 2 < text.length &&
      isHexDigit(text.charCodeAt(i + 1)) &&
      isHexDigit(text.charCodeAt(i + 2))
    ) {
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      out += text[i];
      i += 1;
    }
    ends[n] = i;
  }
  return { text: out, starts: starts.subarray(0, n), ends: ends.subarray(0, n) };
}

/** Whitespace and ASCII punctuation: what a secret split into pieces is split by. */
export function isSeparator(code: number): boolean {
  if (code < 128) return !((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122));
  return (
    code === 0xa0 ||
    code === 0xfeff ||
    code === 0x3000 ||
    (code >= 0x2000 && code <= 0x200b) ||
    code === 0x2028 ||
    code === 0x2029
  );
}

/** The separators `isSeparator` names, as one pattern: the squeezed text is one native replace. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are separators here on purpose
const separators = /[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f\u00a0\ufeff\u3000\u2000-\u200b\u2028\u2029]+/g;

/**
 * The text without its separators: "s 3-c\",\"r3t" reads "s3cr3t". Every string of every trace step
 * passes here, and almost none holds a secret: the squeezed text is one native replace, and where each
 * of its characters came from is worked out only when a pattern is found in it (`starts`, `ends`).
 */
export function squeezedView(text: string): TextView & { lower: string } {
  const out = text.replace(separators, "");
  // ASCII only: a Unicode lower-casing can change the length, and hex is ASCII.
  const lower = out.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
  let starts: Int32Array | undefined;
  let ends: Int32Array | undefined;
  const where = (): Int32Array => {
    if (starts) return starts;
    starts = new Int32Array(out.length);
    let n = 0;
    for (let i = 0; i < text.length; i++) if (!isSeparator(text.charCodeAt(i))) starts[n++] = i;
    return starts;
  };
  return {
    text: out,
    lower,
    get starts() {
      return where();
    },
    get ends() {
      ends ??= where().map((start) => start + 1);
      return ends;
    },
  };
}

export function squeezed(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) if (!isSeparator(value.charCodeAt(i))) out += value[i];
  return out;
}

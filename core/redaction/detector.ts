import {
  base64Cores,
  hexOf,
  percentDecodedView,
  reversed,
  squeezed,
  squeezedView,
  toBase64Url,
  utf8,
  type TextView,
} from "./encodings";

/** A secret by name (what a finding may say) and value (what it must never say). */
export interface NamedSecret {
  name: string;
  value: string;
}

/** How a secret was written where it was found. */
export type SecretForm = "plain" | "base64" | "base64url" | "hex" | "url-encoded" | "reversed" | "split" | "partial";

/** One place a secret was found: `[start, end)` of the text searched, and the form it had there. */
export interface SecretMatch {
  name: string;
  form: SecretForm;
  start: number;
  end: number;
}

export interface SecretDetector {
  /** How many secrets it looks for (those long enough); 0 = every call returns its input. */
  readonly size: number;
  /** Every place any secret is, in any form. */
  find(text: string): SecretMatch[];
  /** The most telling finding (plain before encoded before partial), or null. */
  first(text: string): SecretMatch | null;
  /** The text with every place a secret is replaced by `[redacted]`. */
  redact(text: string): string;
  /** `redact` applied to every string (keys included) of a JSON-like value. */
  redactDeep<T>(value: T): T;
}

export const redactedMark = "[redacted]";

/** Secrets shorter than this are not looked for: they would match ordinary words. */
export const minRedactedLength = 4;

/** Order of `first`: the plainest form is the one a refusal names. */
const formRank: Record<SecretForm, number> = {
  plain: 0,
  base64: 1,
  base64url: 2,
  "url-encoded": 3,
  hex: 4,
  reversed: 5,
  split: 6,
  partial: 7,
};

interface Pattern {
  text: string;
  secret: number;
  form: SecretForm;
  /** A base64 core: the characters it shares with its neighbours, and `=` padding, go with it. */
  widen?: true;
}

interface Compiled {
  raw: Pattern[];
  decoded: Pattern[];
  squeezed: Pattern[];
  hex: Pattern[];
  shortest: number;
}

/** At most this many half-secret windows per secret: a longer secret's are sampled evenly. */
const maxPartialWindows = 33;
const partialMinLength = 8;

function compile(secrets: readonly NamedSecret[], minLength: number): Compiled {
  const raw: Pattern[] = [];
  const decoded: Pattern[] = [];
  const squeezedPatterns: Pattern[] = [];
  const hex: Pattern[] = [];
  secrets.forEach(({ value }, secret) => {
    if (value.length < minLength) return;
    const back = reversed(value);
    const bytes = utf8(value);
    raw.push({ text: value, secret, form: "plain" });
    if (back !== value) raw.push({ text: back, secret, form: "reversed" });
    for (const core of base64Cores(bytes)) {
      raw.push({ text: core, secret, form: "base64", widen: true });
      const url = toBase64Url(core);
      if (url !== core) raw.push({ text: url, secret, form: "base64url", widen: true });
    }
    const encoded = encodeURIComponent(value);
    if (encoded !== value) raw.push({ text: encoded, secret, form: "url-encoded" });
    decoded.push({ text: value, secret, form: "url-encoded" });
    if (back !== value) decoded.push({ text: back, secret, form: "url-encoded" });
    hex.push({ text: hexOf(bytes), secret, form: "hex" });
    for (const text of new Set([squeezed(value), squeezed(back)]))
      if (text.length >= minLength) squeezedPatterns.push({ text, secret, form: "split" });
    // Half of a longer secret (at least 8 characters) gives most of it away.
    const part = Math.max(partialMinLength, Math.ceil(value.length / 2));
    if (part < value.length) {
      const step = Math.max(1, Math.floor((value.length - part) / (maxPartialWindows - 1)));
      for (let at = 0; at + part <= value.length; at += step)
        raw.push({ text: value.slice(at, at + part), secret, form: "partial" });
    }
  });
  const all = [...raw, ...decoded, ...squeezedPatterns, ...hex];
  // Longest first, so one secret that contains another is found whole.
  for (const list of [raw, decoded, squeezedPatterns, hex]) list.sort((a, b) => b.text.length - a.text.length);
  return {
    raw,
    decoded,
    squeezed: squeezedPatterns,
    hex,
    shortest: all.reduce((min, p) => Math.min(min, p.text.length), Infinity),
  };
}

const base64Char = /[A-Za-z0-9+/_-]/;

function widened(text: string, start: number, end: number): [number, number] {
  if (start > 0 && base64Char.test(text[start - 1]!)) start -= 1;
  if (end < text.length && base64Char.test(text[end]!)) end += 1;
  while (end < text.length && text[end] === "=") end += 1;
  return [start, end];
}

function scan(
  patterns: Pattern[],
  searched: string,
  view: TextView | null,
  original: string,
  secrets: readonly NamedSecret[],
  out: SecretMatch[],
): void {
  for (const pattern of patterns) {
    for (let at = searched.indexOf(pattern.text); at >= 0; at = searched.indexOf(pattern.text, at + 1)) {
      let start = view ? view.starts[at]! : at;
      let end = view ? view.ends[at + pattern.text.length - 1]! : at + pattern.text.length;
      if (pattern.widen) [start, end] = widened(original, start, end);
      out.push({ name: secrets[pattern.secret]!.name, form: pattern.form, start, end });
    }
  }
}

/** Spans merged where they overlap or touch, in order. */
function merged(matches: SecretMatch[]): [number, number][] {
  const spans = matches.map((m) => [m.start, m.end] as [number, number]).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const span of spans) {
    const last = out[out.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([...span]);
  }
  return out;
}

function build(secrets: readonly NamedSecret[], minLength: number): SecretDetector {
  const compiled = compile(secrets, minLength);
  const size = new Set(compiled.raw.map((p) => p.secret)).size;
  const find = (text: string): SecretMatch[] => {
    if (size === 0 || text.length < compiled.shortest) return [];
    const out: SecretMatch[] = [];
    scan(compiled.raw, text, null, text, secrets, out);
    if (text.includes("%")) {
      const view = percentDecodedView(text);
      if (view.text.length !== text.length) scan(compiled.decoded, view.text, view, text, secrets, out);
    }
    const view = squeezedView(text);
    scan(compiled.squeezed, view.text, view, text, secrets, out);
    scan(compiled.hex, view.lower, view, text, secrets, out);
    return out;
  };
  const redact = (text: string): string => {
    const found = find(text);
    if (found.length === 0) return text;
    let out = "";
    let at = 0;
    for (const [start, end] of merged(found)) {
      out += text.slice(at, start) + redactedMark;
      at = end;
    }
    return out + text.slice(at);
  };
  const redactDeep = <T>(value: T): T => {
    if (size === 0) return value;
    const walk = (item: unknown): unknown => {
      if (typeof item === "string") return redact(item);
      if (Array.isArray(item)) return item.map(walk);
      if (item !== null && typeof item === "object")
        return Object.fromEntries(Object.entries(item).map(([key, inner]) => [redact(key), walk(inner)]));
      return item;
    };
    return walk(value) as T;
  };
  return {
    size,
    find,
    first: (text) =>
      find(text).reduce<SecretMatch | null>(
        (best, m) => (!best || formRank[m.form] < formRank[best.form] ? m : best),
        null,
      ),
    redact,
    redactDeep,
  };
}

const nothing: SecretDetector = {
  size: 0,
  find: () => [],
  first: () => null,
  redact: (text) => text,
  redactDeep: (value) => value,
};

/**
 * Detectors by secret set: the encodings of a set are computed once, and callers that build their
 * set afresh per step (a run's trace writes) reuse them. Bounded, so a long-lived object holding
 * many sets over time keeps only the recent ones. A cache, not state: a miss only costs the compile.
 */
const recent = new Map<string, SecretDetector>();
const recentLimit = 32;

/**
 * One detector for a set of secrets, used by every redaction (traces, replies, tool results,
 * exports) and by the secret-leak output gate. It finds each secret plainly, base64 (standard or
 * url-safe, at any byte offset inside a longer payload), hex (either case), percent-encoded in any
 * of its characters, reversed, split by whitespace or punctuation (also across JSON string pieces),
 * and half of a longer secret. Secrets shorter than `minLength` (default 4) are not looked for.
 * @example
 * const detector = makeSecretDetector([{ name: "AIRTABLE_KEY", value: "s3cr3t-v4lue" }]);
 * detector.redact("x=czNjcjN0LXY0bHVl y=s 3 c r 3 t - v 4 l u e"); // "x=[redacted] y=[redacted]"
 * detector.first("eulv4-t3rc3s")?.form; // "reversed"
 */
export function makeSecretDetector(
  secrets: readonly NamedSecret[],
  options: { minLength?: number } = {},
): SecretDetector {
  const minLength = Math.max(1, options.minLength ?? minRedactedLength);
  if (!secrets.some((s) => s.value.length >= minLength)) return nothing;
  const key = `${minLength}\u0000${secrets.map((s) => `${s.name}\u0001${s.value}`).join("\u0000")}`;
  let detector = recent.get(key);
  if (detector) return detector;
  detector = build(secrets, minLength);
  if (recent.size >= recentLimit) recent.delete(recent.keys().next().value!);
  recent.set(key, detector);
  return detector;
}

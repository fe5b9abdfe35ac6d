import fc from "fast-check";
import { fillPath, type RouteEntry, type RouteSample } from "./routes";

/**
 * fast-check arbitraries of requests around a route's valid sample: its JSON body with fields
 * mutated (wrong types, missing, huge, unicode, null, extra keys, 200 levels deep), arbitrary
 * JSON, odd path params and query strings, wrong content types. Cases are plain data, so a
 * failure prints (and shrinks to) the request that caused it.
 */
export interface FuzzCase {
  /** Which strategies made the case, e.g. `params+body:mutated`. */
  strategy: string;
  method: string;
  /** Path and query, as sent (already encoded where the case wants it encoded). */
  path: string;
  headers: Record<string, string>;
  body: string | null;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Long strings print as `"x"×70000` so a failing case stays readable. */
function short(value: string): string {
  if (value.length <= 200) return JSON.stringify(value);
  const head = value.slice(0, 60);
  return /^(.)\1*$/u.test(value)
    ? `"${[...value][0]}"×${[...value].length}`
    : `${JSON.stringify(head)}…(${value.length} chars)`;
}

function withToString(c: FuzzCase): FuzzCase {
  return Object.assign(c, {
    [fc.toStringMethod]: () =>
      `${c.strategy}: ${c.method} ${short(c.path)} headers=${JSON.stringify(c.headers)} body=${c.body === null ? "none" : short(c.body)}`,
  });
}

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

/** Strings that have broken parsers before: empty, control and bidi characters, numbers, paths, injections. */
const nastyConstants = [
  "",
  " ",
  "\u0000",
  "\t\n",
  "null",
  "undefined",
  "true",
  "NaN",
  "-1",
  "0",
  "1e400",
  "0x10",
  "-0",
  "9007199254740993",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "../../etc/passwd",
  "..",
  ".",
  "%00",
  "%",
  "%zz",
  "%E0%A4%A",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "${{7*7}}",
  "\u202e\u2066",
  "🙂",
  "é",
  "\ufeff",
  "\ud800",
  "a".repeat(64),
  "A-B",
  "a.b",
  // Meaningful deeper in: offline-model directives (a message becomes a tool call), patterns, cron.
  '/tool clock.now {"zone":"Mars/Olympus"}',
  "/tool clock.now []",
  "/tool ghost.tool {}",
  '/tool memory.search {"query":1}',
  "/ask ghost hi",
  "/tools",
  "/tool",
  // Model providers Pantheon does not know (an agent's `model.provider`, `PANTHEON_DEFAULT_PROVIDER` style).
  "foo:bar",
  "mistral",
  "OpenAI",
  "(",
  "[",
  "a{99999}",
  "(a+)+$",
  "(?<x>a)\\k<y>",
  "*/0 * * * *",
  "0 0 31 2 *",
  "60 * * * *",
  "1h",
  "0s",
  "http://localhost:1/",
  "https://[::1]/",
];

/** Any string a client might send: short random ones, unicode (lone surrogates too), nasty constants, huge ones. */
export const weirdString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.oneof(fc.constantFrom("a", "é"), loneSurrogate), maxLength: 8 }) },
  { weight: 3, arbitrary: fc.constantFrom(...nastyConstants) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("x", "é", "🙂", "\u0000"), fc.constantFrom(201, 2_001, 8_001, 32_001, 70_000))
      .map(([c, n]) => c.repeat(n)),
  },
);

/** A value nested `depth` levels deep in arrays or objects. */
export function nest(depth: number, leaf: Json, kind: "array" | "object"): Json {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value };
  return value;
}

const deepValue: fc.Arbitrary<Json> = fc
  .tuple(
    fc.integer({ min: 8, max: 200 }),
    fc.constantFrom<"array" | "object">("array", "object"),
    fc.constantFrom<Json>(1, "x", null, {}),
  )
  .map(([depth, kind, leaf]) => nest(depth, leaf, kind));

const numbers = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 0.5, 2 ** 53, -(2 ** 53), 1e308, -1e308, 1e-320),
  fc.double(),
);

/** Any JSON value a field might be given instead of the right one. */
export const weirdValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  numbers,
  weirdString,
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  fc.constantFrom<Json>([], {}, [[]], [null], { "": "" }),
  deepValue,
);

const mutationKinds = ["set", "set", "delete", "addKey", "wrap", "stringify", "deepen"] as const;
interface Mutation {
  at: number;
  kind: (typeof mutationKinds)[number];
  key: string;
  value: Json;
  depth: number;
}
const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom(...mutationKinds),
  key: fc.oneof(
    fc.constantFrom("__proto__", "constructor", "prototype", "toString", "extra", "name", "id", "", "x".repeat(300)),
    weirdString,
  ),
  value: weirdValue,
  depth: fc.integer({ min: 50, max: 200 }),
});

/** Paths of every node of a JSON value, root first. */
function pathsOf(value: Json, at: (string | number)[] = []): (string | number)[][] {
  const own = [at];
  if (Array.isArray(value)) return own.concat(...value.map((v, i) => pathsOf(v, [...at, i])));
  if (value && typeof value === "object")
    return own.concat(...Object.entries(value).map(([k, v]) => pathsOf(v, [...at, k])));
  return own;
}

/** Sets an own enumerable property, so `__proto__` is a key like any other and not the prototype. */
function put(target: Record<string, Json> | Json[], key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Applies mutations to a copy of `base`; `undefined` when the root itself was deleted. */
export function mutateJson(base: Json, mutations: readonly Mutation[]): Json | undefined {
  let root: Json | undefined = structuredClone(base);
  for (const m of mutations) {
    if (root === undefined) return undefined;
    // Generated values are shared (constantFrom hands out one instance): insert copies only.
    const value = structuredClone(m.value);
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length]!;
    const current: Json = path.reduce<Json>((node, key) => (node as Record<string, Json>)[key as string]!, root);
    const replaced: Json | undefined =
      m.kind === "set"
        ? value
        : m.kind === "delete"
          ? undefined
          : m.kind === "wrap"
            ? [current]
            : m.kind === "stringify"
              ? JSON.stringify(current)
              : m.kind === "deepen"
                ? nest(m.depth, current, m.depth % 2 ? "array" : "object")
                : current;
    if (m.kind === "addKey") {
      if (Array.isArray(current)) current.push(value);
      else if (current && typeof current === "object") put(current, m.key, value);
      else if (path.length === 0) root = { [m.key]: value };
      continue;
    }
    if (path.length === 0) {
      root = replaced;
      continue;
    }
    const parent: Json = path
      .slice(0, -1)
      .reduce<Json>((node, key) => (node as Record<string, Json>)[key as string]!, root);
    const key = path[path.length - 1]!;
    if (replaced === undefined) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Record<string, Json>)[key as string];
    } else put(parent as Record<string, Json>, key, replaced);
  }
  return root;
}

/** Path segments for a param: encoded (reaches the handler) or raw (`..`, `%00`, `a/b` as typed). */
const paramValue = fc.oneof(
  { weight: 3, arbitrary: weirdString.map((value) => ({ value, raw: false })) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        "..",
        ".",
        "%00",
        "%2e%2e",
        "%2F",
        "%",
        "%zz",
        "a%00b",
        "a/b",
        "..%2F..",
        "%c3%28",
        "~",
        "*",
        ";x=1",
      )
      .map((value) => ({ value, raw: true })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        "constructor",
        "prototype",
        "ghost",
        "a",
        "z".repeat(63),
        "z".repeat(65),
        "clock.now",
        "morning",
        "00000000-0000-0000-0000-000000000000",
      )
      .map((value) => ({ value, raw: false })),
  },
  { weight: 1, arbitrary: fc.constantFrom(500, 5_000, 20_000).map((n) => ({ value: "a".repeat(n), raw: false })) },
  // Other objects behind the socket route: the registry's binding, another project, no project.
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        "registry/default",
        "registry/__cron-index",
        "agent-do/elsewhere.ghost",
        "agent-do/ghost",
        "agent-do",
        "agent-do/default.",
      )
      .map((value) => ({ value, raw: true })),
  },
);

/** Extra query entries and raw query strings with broken escapes. */
const queryPart = fc.oneof(
  fc
    .record({
      key: fc.oneof(
        fc.constantFrom("limit", "session", "cursor", "q", "kind", "maxTokens", "x", "project", "token"),
        weirdString,
      ),
      value: weirdString,
    })
    .map(({ key, value }) => new URLSearchParams([[key, value]]).toString()),
  fc.constantFrom(
    "limit=0",
    "limit=-1",
    "limit=1e400",
    "limit=NaN",
    "limit=201",
    "limit=1.5",
    "limit=0x10",
    "limit=",
    "limit",
    "q=%",
    "q=%zz",
    "x=%E0%A4%A",
    "session=..",
    "cursor=%00",
    "kind=summary",
    "maxTokens=999999999",
    "a[b]=c",
    "&&",
    "=",
    "%",
  ),
);

const contentTypes = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/x-ndjson",
  "text/x-pantheon",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "application/jsonx",
  "application/json, text/html",
  "application/*",
  "",
];
const acceptHeaders = [
  "text/event-stream",
  "application/json",
  "*/*",
  "text/html",
  "application/json, text/event-stream",
  "",
];
const projects = ["default", "elsewhere", "Not A Slug", "a".repeat(100), "", "__cron-index"];
const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];

/** Bodies that are not the sample's: arbitrary JSON, deep nesting, broken JSON, random text. */
const otherBody: fc.Arbitrary<{ kind: string; text: string }> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => ({ kind: "json", text: JSON.stringify(v) })),
  deepValue.map((v) => ({ kind: "deep", text: JSON.stringify(v) })),
  fc.integer({ min: 150, max: 2000 }).map((n) => ({ kind: "deeper", text: "[".repeat(n) + "]".repeat(n) })),
  // 10,000 levels: deep enough to overflow what recursed past parsing (schemas, structured clone, RPC).
  fc
    .constantFrom("[".repeat(10_000) + "]".repeat(10_000), '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000))
    .map((text) => ({ kind: "deepest", text })),
  // An own `__proto__` key, at the top or inside, which object spreads and schemas used to drop without a word.
  fc
    .constantFrom('{"__proto__":{"x":1}}', '{"a":{"__proto__":[]}}', '[{"__proto__":null}]')
    .map((text) => ({ kind: "proto", text })),
  fc
    .constantFrom("{", "[1,", '{"a":}', "nul", '"\\ud800"', "\u0000", "{}garbage", "1e400", "\ufeff{}")
    .map((text) => ({ kind: "broken", text })),
  weirdString.map((text) => ({ kind: "text", text })),
);

/** Text bodies (scripts, JSON lines) cut, spliced or replaced. */
function textVariant(base: string): fc.Arbitrary<{ kind: string; text: string }> {
  return fc.oneof(
    fc.nat({ max: base.length }).map((n) => ({ kind: "cut", text: base.slice(0, n) })),
    fc
      .tuple(fc.nat({ max: base.length }), weirdString)
      .map(([n, s]) => ({ kind: "spliced", text: base.slice(0, n) + s + base.slice(n) })),
    fc
      .array(
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
          weirdString,
        ),
        { maxLength: 5 },
      )
      .map((lines) => ({ kind: "lines", text: lines.join("\n") })),
    // Past 20 lines of the base (a memory import): more rows than one SQL statement may bind.
    fc.integer({ min: 21, max: 40 }).map((n) => ({
      kind: "many-lines",
      text: Array.from({ length: n }, (_, i) => base.trim().replace(/"text":"/, `"text":"${i} `)).join("\n"),
    })),
    otherBody,
  );
}

/**
 * The requests to try on `route`, around its valid samples (the inventory's, and variants that
 * reach other branches: directives, streaming, other JSON-RPC methods). Shrinks toward the first.
 */
export function casesFor(route: RouteEntry, samples: readonly RouteSample[]): fc.Arbitrary<FuzzCase> {
  if (samples.length === 0) throw new Error(`no sample for ${route.method} ${route.path}`);
  return fc.nat({ max: samples.length - 1 }).chain((i) => casesAround(route, samples[i]!, i ? `variant${i}:` : ""));
}

function casesAround(route: RouteEntry, sample: RouteSample, variant: string): fc.Arbitrary<FuzzCase> {
  const base = sample.body;
  const naturalType = base ? ("json" in base ? "application/json" : base.contentType) : "application/json";

  const params = Object.keys(sample.params).length
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constant({ tag: "", params: sample.params, raw: false }) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.constantFrom(...Object.keys(sample.params)), paramValue)
            .map(([key, p]) => ({ tag: `param:${key}`, params: { ...sample.params, [key]: p.value }, raw: p.raw })),
        },
      )
    : fc.constant({ tag: "", params: sample.params, raw: false });

  const baseQuery = new URLSearchParams(sample.query ?? {}).toString();
  const query = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ tag: "", text: baseQuery }) },
    {
      weight: 1,
      arbitrary: fc
        .array(queryPart, { minLength: 1, maxLength: 4 })
        .map((parts) => ({ tag: "query", text: [baseQuery, ...parts].filter(Boolean).join("&") })),
    },
  );

  const sampleBody = !base ? null : "json" in base ? JSON.stringify(base.json) : base.text;
  const bodies: fc.Arbitrary<{ kind: string; text: string | null }>[] = [];
  if (base && "json" in base) {
    bodies.push(
      fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => ({
        kind: "mutated",
        text: ((v) => (v === undefined ? null : JSON.stringify(v)))(mutateJson(base.json as Json, ms)),
      })),
    );
  } else if (base) bodies.push(textVariant(base.text));
  const body = fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: "", text: sampleBody }) },
    { weight: base ? 5 : 1, arbitrary: fc.oneof(...bodies, otherBody) },
  );

  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant({ tag: "", value: naturalType as string | null }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | null>(...contentTypes, null).map((value) => ({ tag: "type", value })),
    },
  );

  const extraHeaders = fc.oneof(
    { weight: 5, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.record(
        { accept: fc.constantFrom(...acceptHeaders), "x-pantheon-project": fc.constantFrom(...projects) },
        { requiredKeys: [] },
      ),
    },
  );

  const method =
    route.method === "ALL" ? fc.constantFrom(sample.method ?? "GET", ...methods) : fc.constant(route.method);
  // workerd's fetch sends a request with `Upgrade: websocket` as a GET whatever its method: only the socket route gets one.
  const keepUpgrade = route.family === "socket" ? fc.boolean() : fc.constant(true);

  return fc
    .record({ params, query, body, contentType, extraHeaders, method, keepUpgrade })
    .map(({ params: p, query: q, body: b, contentType: t, extraHeaders: h, method: m, keepUpgrade: k }) => {
      const headers: Record<string, string> = { ...sample.headers };
      if (!k) delete headers.upgrade;
      if (b.text !== null && t.value !== null) headers["content-type"] = t.value;
      for (const [key, value] of Object.entries(h)) if (value !== undefined) headers[key] = value;
      const sendsBody = b.text !== null && m !== "GET" && m !== "HEAD";
      const strategy =
        variant +
          [
            p.tag,
            q.tag,
            sendsBody && b.kind ? `body:${b.kind}` : "",
            sendsBody ? t.tag : "",
            Object.keys(h).length ? "headers" : "",
          ]
            .filter(Boolean)
            .join("+") || "sample";
      return withToString({
        strategy,
        method: m,
        path: fillPath(route.path, p.params, p.raw) + (q.text ? `?${q.text}` : ""),
        headers,
        body: sendsBody ? b.text : null,
      });
    });
}

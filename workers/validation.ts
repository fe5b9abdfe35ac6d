import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { validator, type InferInput } from "hono/validator";
import type { z } from "zod";
import { PantheonError, validationFailed } from "../core/errors";

type Target = "json" | "query" | "param";

/**
 * What a client sends for a target, as typed clients (`hc`) see it: the schema's input, so fields
 * with a default are optional; query and path values are strings.
 */
type Sent<T extends Target, S extends z.ZodType> = T extends "json" ? z.input<S> : InferInput<z.input<S>, T>;

/** Turns zod issues into the API's field issues: the path and what is allowed. */
export function fieldIssues(error: z.ZodError) {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    message: issue.message,
  }));
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(fieldIssues(result.error), `the ${where} is not valid`);
  return result.data;
}

/** Deepest nesting of arrays and objects a JSON body may have (`/api`, `/v1`, `/mcp`). */
export const maxJsonDepth = 64;

export const jsonTooDeepMessage = `JSON nested deeper than ${maxJsonDepth} levels`;

/**
 * The path to the first array or object nested deeper than `limit` in parsed JSON (the outermost
 * container is level 1), or null when none is. Iterative on purpose: a body nested 10,000 deep must
 * not overflow the stack this check protects — zod, structured clone and RPC all recurse.
 * @example
 * jsonTooDeep(JSON.parse("[[[1]]]"), 2) // [0, 0]
 * jsonTooDeep({ a: [1, 2] })            // null
 */
export function jsonTooDeep(value: unknown, limit = maxJsonDepth): (string | number)[] | null {
  interface Frame {
    value: object;
    depth: number;
    key: string | number;
    up: Frame | null;
  }
  if (typeof value !== "object" || value === null) return null;
  const stack: Frame[] = [{ value, depth: 1, key: "", up: null }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (frame.depth > limit) {
      const path: (string | number)[] = [];
      for (let f: Frame | null = frame; f?.up; f = f.up) path.unshift(f.key);
      return path;
    }
    const entries: [string | number, unknown][] = Array.isArray(frame.value)
      ? frame.value.map((item, i) => [i, item])
      : Object.entries(frame.value);
    // Pushed in reverse so the first deep container in document order is the one reported.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (typeof child === "object" && child !== null)
        stack.push({ value: child, depth: frame.depth + 1, key, up: frame });
    }
  }
  return null;
}

/** Throws the API's 400 when parsed JSON nests deeper than {@link maxJsonDepth}. */
export function checkJsonDepth(value: unknown): void {
  const path = jsonTooDeep(value);
  if (path)
    throw new PantheonError("bad_request", jsonTooDeepMessage, {
      details: { issues: [{ path, message: `more than ${maxJsonDepth} levels of arrays and objects` }] },
    });
}

/**
 * Throws the API's 400 for the first line of a JSON-lines body (a snapshot restore, a memory import)
 * nested deeper than {@link maxJsonDepth}, naming the line: each line is a JSON document of its own
 * and gets the limit a JSON body gets, before anything recursive (zod, RPC's structured clone) reads
 * it. A line that is not JSON is left to the line reader, which reports it beside the good ones.
 * @example
 * checkJsonLines('{"kind":"fact","text":"tea"}\n' + "[".repeat(100) + "]".repeat(100)) // throws "line 2: JSON nested deeper than 64 levels"
 */
export function checkJsonLines(text: string): void {
  text.split(/\r?\n/).forEach((raw, index) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return;
    }
    const path = jsonTooDeep(value);
    if (path)
      throw new PantheonError("bad_request", `line ${index + 1}: ${jsonTooDeepMessage}`, {
        details: {
          issues: [{ path: `line ${index + 1}`, message: `more than ${maxJsonDepth} levels of arrays and objects` }],
        },
      });
  });
}

/**
 * The one key a JSON body may not hold. `JSON.parse` keeps `"__proto__"` as an own key, but every
 * object spread, zod object and record after it treats it as the prototype: the field vanished
 * without a word. It is refused with its path instead.
 */
export const reservedJsonKey = "__proto__";

export const reservedKeyMessage = `'${reservedJsonKey}' is not allowed as a key: it is reserved (it would set the object's prototype); rename the field`;

/**
 * The path to the first own `__proto__` key in parsed JSON (the key included), or null. Iterative,
 * like {@link jsonTooDeep}, and meant to run after it.
 * @example
 * reservedKeyPath(JSON.parse('{"a":[{"__proto__":{}}]}')) // ["a", 0, "__proto__"]
 */
export function reservedKeyPath(value: unknown): (string | number)[] | null {
  if (typeof value !== "object" || value === null) return null;
  // Only containers are visited (a path is built for each), in document order.
  const stack: { value: object; path: (string | number)[] }[] = [{ value, path: [] }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const node = frame.value;
    if (!Array.isArray(node) && Object.hasOwn(node, reservedJsonKey)) return [...frame.path, reservedJsonKey];
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? node.map((item, i) => [i, item])
      : Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (typeof child === "object" && child !== null) stack.push({ value: child, path: [...frame.path, key] });
    }
  }
  return null;
}

/** What is wrong with the shape of parsed JSON before any schema reads it: too deep, or a reserved key. */
export function jsonShapeProblem(
  value: unknown,
): { kind: "too_deep" | "reserved_key"; path: (string | number)[]; message: string } | null {
  const deep = jsonTooDeep(value);
  if (deep) return { kind: "too_deep", path: deep, message: jsonTooDeepMessage };
  const reserved = reservedKeyPath(value);
  if (reserved)
    return { kind: "reserved_key", path: reserved, message: `${reservedKeyMessage} (at ${reserved.join(".")})` };
  return null;
}

/**
 * Throws the API's 400 for parsed JSON nested deeper than {@link maxJsonDepth} (`bad_request`) or
 * holding a `__proto__` key (`validation_failed`, with the key's path).
 */
export function checkJsonBody(value: unknown, where = "body"): void {
  checkJsonDepth(value);
  const path = reservedKeyPath(value);
  if (path)
    throw validationFailed(
      [{ path, message: reservedKeyMessage }],
      `the ${where} is not valid: '${reservedJsonKey}' at ${path.join(".")} is a reserved key`,
    );
}

const sizeText = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;

/**
 * Hono's `bodyLimit` whose 413 names the door and its own limit (one message for every door said
 * "64 KiB", also where the limit is 1 MiB). Read before any handler, whether or not the client sent
 * a Content-Length.
 * @example
 * app.use("/agui/*", limitBody(1024 * 1024, "/agui")); // 413 "the request body is larger than 1 MiB: /agui takes at most 1 MiB"
 */
export function limitBody(maxBytes: number, door: string): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new PantheonError(
        "payload_too_large",
        `the request body is larger than ${sizeText(maxBytes)}: ${door} takes at most ${sizeText(maxBytes)}`,
        { details: { door, limitBytes: maxBytes } },
      );
    },
  });
}

/** Whether a Content-Type header names JSON (`application/json` or a `+json` type), whatever its parameters. */
export function isJsonMediaType(header: string | null | undefined): boolean {
  const essence = (header ?? "").split(";")[0]!.trim().toLowerCase();
  return essence === "application/json" || (essence.startsWith("application/") && essence.endsWith("+json"));
}

/** The validator's types: what the route reads (`c.req.valid`) and what a client sends. */
type Validated<T extends Target, S extends z.ZodType> = {
  in: { [K in T]: Sent<K, S> };
  out: { [K in T]: z.output<S> };
};

/**
 * Hono validator backed by zod. A body that is not JSON answers 400 (not Hono's default), and
 * every problem names its field. A body nested deeper than {@link maxJsonDepth}, or holding a
 * `__proto__` key, answers 400 before anything recursive sees it.
 */
export function valid<T extends Target, S extends z.ZodType>(
  target: T,
  schema: S,
  // biome-ignore lint/suspicious/noExplicitAny: the middleware fits any route's environment
): MiddlewareHandler<any, string, Validated<T, S>> {
  // `validator` infers the client's input from the parsed output; this states the schema's input instead.
  return validator(target, async (value, c) => {
    if (target === "json") {
      if (!isJsonMediaType(c.req.header("content-type"))) {
        throw new PantheonError(
          "unsupported_media_type",
          "send the body as JSON with 'Content-Type: application/json'",
        );
      }
      try {
        value = await c.req.json();
      } catch {
        throw new PantheonError("bad_request", "the body is not valid JSON");
      }
      checkJsonBody(value);
    }
    return parseOrThrow(schema, value, target === "json" ? "body" : target === "query" ? "query string" : "path");
    // biome-ignore lint/suspicious/noExplicitAny: as above
  }) as MiddlewareHandler<any, string, Validated<T, S>>;
}

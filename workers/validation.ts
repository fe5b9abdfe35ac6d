import type { MiddlewareHandler } from "hono";
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
  return error.issues.map((issue) => ({ path: issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: issue.message }));
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(fieldIssues(result.error), `the ${where} is not valid`);
  return result.data;
}

/** The validator's types: what the route reads (`c.req.valid`) and what a client sends. */
type Validated<T extends Target, S extends z.ZodType> = { in: { [K in T]: Sent<K, S> }; out: { [K in T]: z.output<S> } };

/**
 * Hono validator backed by zod. A body that is not JSON answers 400 (not Hono's default), and
 * every problem names its field.
 */
export function valid<T extends Target, S extends z.ZodType>(target: T, schema: S): MiddlewareHandler<any, string, Validated<T, S>> {
  // `validator` infers the client's input from the parsed output; this states the schema's input instead.
  return validator(target, async (value, c) => {
    if (target === "json") {
      const type = c.req.header("content-type") ?? "";
      if (!type.includes("application/json")) {
        throw new PantheonError("unsupported_media_type", "send the body as JSON with 'Content-Type: application/json'");
      }
      try {
        value = await c.req.json();
      } catch {
        throw new PantheonError("bad_request", "the body is not valid JSON");
      }
    }
    return parseOrThrow(schema, value, target === "json" ? "body" : target === "query" ? "query string" : "path");
  }) as MiddlewareHandler<any, string, Validated<T, S>>;
}

import { validator } from "hono/validator";
import type { z } from "zod";
import { PantheonError, validationFailed } from "../core/errors";

type Target = "json" | "query" | "param";

/** Turns zod issues into the API's field issues: the path and what is allowed. */
export function fieldIssues(error: z.ZodError) {
  return error.issues.map((issue) => ({ path: issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: issue.message }));
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(fieldIssues(result.error), `the ${where} is not valid`);
  return result.data;
}

/**
 * Hono validator backed by zod. A body that is not JSON answers 400 (not Hono's default), and
 * every problem names its field.
 */
export function valid<T extends Target, S extends z.ZodType>(target: T, schema: S) {
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
  });
}

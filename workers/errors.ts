import type { ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { isScriptError } from "../core/dsl";
import { isPantheonError, type ErrorCode } from "../core/errors";
import type { AppEnv } from "./env";

const codeForStatus: Record<number, ErrorCode> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

function body(code: string, message: string, requestId: string, details?: Record<string, unknown>) {
  return { error: { code, message, requestId, ...(details ? { details } : {}) } };
}

/**
 * The only place errors become responses: one JSON shape with the request id. Client mistakes are
 * 4xx with what was wrong; anything unexpected is a 500 that says nothing internal.
 */
export const onError: ErrorHandler<AppEnv> = (error, c) => {
  const requestId = c.get("requestId") ?? crypto.randomUUID();
  c.header("x-request-id", requestId);
  if (isScriptError(error)) {
    // Script problems carry their positions: line:column in the DSL, the JSON path in `form` for JSON.
    return c.json(body(error.code, error.message, requestId, { issues: error.issues }), 400);
  }
  if (isPantheonError(error)) {
    return c.json(body(error.code, error.message, requestId, error.details), error.status as 400);
  }
  if (error instanceof HTTPException) {
    const status = error.status;
    const code = codeForStatus[status] ?? (status >= 500 ? "internal" : "bad_request");
    const message =
      status === 401
        ? "a valid bearer token is required: send 'Authorization: Bearer <token>'"
        : status === 413
          ? "the request body is too large for this route"
          : error.message || "the request could not be handled";
    const response = c.json(body(code, message, requestId), status);
    if (status === 401) response.headers.set("WWW-Authenticate", 'Bearer realm="pantheon"');
    return response;
  }
  console.error(
    JSON.stringify({ level: "error", requestId, name: (error as Error)?.name, message: (error as Error)?.message }),
  );
  return c.json(body("internal", "something went wrong on our side; the request id helps us find it", requestId), 500);
};

export const notFound: NotFoundHandler<AppEnv> = (c) => {
  const requestId = c.get("requestId") ?? crypto.randomUUID();
  c.header("x-request-id", requestId);
  return c.json(body("not_found", `no route for ${c.req.method} ${new URL(c.req.url).pathname}`, requestId), 404);
};

import type { FuzzCase } from "./fuzz-cases";
import type { RouteFamily } from "./routes";

/**
 * What the fuzz holds every answer to: 2xx or 4xx (101 for the socket), never 5xx but the 502s
 * the API declares for upstream failures; a 4xx in its route family's error shape; and no
 * internal failure hidden in a 2xx (a JSON-RPC -32603, an `internal` event in a stream).
 */
export type Verdict = { ok: true; upstream?: true } | { ok: false; kind: "crash" | "malformed"; problem: string };

const ok: Verdict = { ok: true };
const crash = (problem: string): Verdict => ({ ok: false, kind: "crash", problem });
const malformed = (problem: string): Verdict => ({ ok: false, kind: "malformed", problem });

const isText = (value: unknown): value is string => typeof value === "string";
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Where each family lives: a path whose dot segments resolve out of it reached something else. */
const familyPrefix: Record<RouteFamily, string> = {
  api: "/api/",
  openai: "/v1/",
  mcp: "/mcp",
  a2a: "/a2a/",
  agui: "/agui/",
  socket: "/agents/",
};

/** The API's error: `{ error: { code, message, requestId } }`, the request id also in `x-request-id`. */
function apiShape(body: unknown, res: Response): string | null {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error) || !isText(error.code) || !isText(error.message) || !isText(error.requestId))
    return "not { error: { code, message, requestId } }";
  if (res.headers.get("x-request-id") !== error.requestId) return "x-request-id differs from error.requestId";
  return null;
}

/** OpenAI's error: `{ error: { message, type, code? } }`. */
function openaiShape(body: unknown): string | null {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error) || !isText(error.message) || !isText(error.type))
    return "not OpenAI's { error: { message, type } }";
  if (error.code !== undefined && error.code !== null && !isText(error.code))
    return "error.code is neither a string nor null";
  return null;
}

/** JSON-RPC's error: `{ jsonrpc: "2.0", error: { code: number, message }, id }`. */
function jsonRpcShape(body: unknown): string | null {
  if (!isObject(body) || body.jsonrpc !== "2.0" || !("id" in body)) return "not a JSON-RPC response";
  const error = body.error;
  if (!isObject(error) || typeof error.code !== "number" || !isText(error.message))
    return "not a JSON-RPC { error: { code, message } }";
  return null;
}

/**
 * What is wrong with a 4xx body of `family`, or null. `/mcp` shares the API's middleware (project,
 * body limit, auth), whose refusals come before the MCP server and have the API's shape.
 */
function shapeProblem(family: RouteFamily, body: unknown, res: Response): string | null {
  if (family === "openai") return openaiShape(body);
  if (family === "mcp" || family === "a2a")
    return jsonRpcShape(body) && apiShape(body, res) ? "neither a JSON-RPC error nor the API's error" : null;
  return apiShape(body, res);
}

/**
 * A JSON-RPC -32603 (the server failed) among the answers of a 2xx. The MCP SDK also answers
 * schema-invalid params of its own methods -32603, with zod's issue list as the message
 * (modelcontextprotocol/typescript-sdk#2284): the caller's mistake, so not counted.
 */
function internalRpcError(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  for (const answer of Array.isArray(body) ? body : [body]) {
    const error = isObject(answer) && isObject(answer.error) ? answer.error : null;
    if (error?.code === -32603 && !(isText(error.message) && error.message.startsWith("[\n")))
      return JSON.stringify(error);
  }
  return null;
}

/**
 * An internal failure inside a 2xx event stream: the agent's `event: error` with code `internal`
 * (the turn threw), or a `/v1` chunk whose error is not a run's own outcome (`run_<status>`).
 */
function internalStreamError(text: string): string | null {
  for (const frame of text.split("\n\n")) {
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    if (!data || data === "[DONE]") continue;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return `a frame that is not JSON: ${frame}`;
    }
    if (!isObject(value)) continue;
    if (/^event: error$/m.test(frame) && value.code === "internal") return frame;
    if (isObject(value.error) && !(isText(value.error.code) && value.error.code.startsWith("run_"))) return frame;
  }
  return null;
}

/**
 * A 502 the API declares: a server the caller named could not be reached (`tool_failed`, e.g. an
 * MCP server's URL), a model provider failed (`model_failed`), or a `/v1` run ended badly
 * (`run_<status>`). The failure is upstream's, not the worker's.
 */
function declaredUpstreamFailure(family: RouteFamily, res: Response, text: string): boolean {
  if (res.status !== 502) return false;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  const error = isObject(body) && isObject(body.error) ? body.error : null;
  if (!error || !isText(error.code)) return false;
  if (family === "openai")
    return (
      !openaiShape(body) &&
      (error.code.startsWith("run_") || error.code === "tool_failed" || error.code === "model_failed")
    );
  return !apiShape(body, res) && (error.code === "tool_failed" || error.code === "model_failed");
}

/** Judges one answer to `c` (its body already read as `text`). */
export function verdictOf(family: RouteFamily, c: FuzzCase, res: Response, text: string): Verdict {
  if (res.status === 101 && family === "socket") return ok;
  if (declaredUpstreamFailure(family, res, text)) return { ok: true, upstream: true };
  if (res.status >= 500 || res.status < 200 || (res.status >= 300 && res.status < 400))
    return crash(`status ${res.status}: ${text.slice(0, 300)}`);
  if (res.status < 300) {
    const hidden =
      family === "mcp" || family === "a2a"
        ? internalRpcError(text)
        : (res.headers.get("content-type") ?? "").includes("event-stream")
          ? internalStreamError(text)
          : null;
    return hidden ? crash(`${res.status} carries an internal error: ${hidden.slice(0, 300)}`) : ok;
  }
  // A HEAD answer has no body; a path the URL parser resolved out of its family (`/api/..` is `/`)
  // reached another family or the PWA's assets: only "never 5xx" holds for those.
  if (c.method === "HEAD" || !new URL(c.path, "https://pantheon.test").pathname.startsWith(familyPrefix[family]))
    return ok;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return malformed(`${res.status} is not JSON: ${text.slice(0, 300)}`);
  }
  const problem = shapeProblem(family, body, res);
  return problem ? malformed(`${res.status} ${problem}: ${text.slice(0, 300)}`) : ok;
}

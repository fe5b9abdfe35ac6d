// The CLI's side of the HTTP API: where the server is, which token, the worker's routes as a
// client (Hono's `hc`, typed by the worker's `ApiRoutes` through JSDoc), and one function that
// turns every failure into an error the entry point knows how to print.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { hc } from "hono/client";

/** @typedef {import("../workers/api").ApiRoutes} ApiRoutes */
/** @typedef {ReturnType<typeof hc<ApiRoutes>>} Routes the worker's routes as `hc` calls them */
/**
 * What a call answers with: its route's JSON, or null for a route that answers no body (204).
 * @template R
 * @typedef {R extends import("hono/client").ClientResponse<infer T, any, "json"> ? T : null} JsonOf
 */

export const defaultUrl = "http://127.0.0.1:8787";

/** The API answered with an error: its `{ error: { code, message, requestId, details } }` body. */
export class ApiError extends Error {
  name = "ApiError";
  /** @param {number} status @param {{ code?: string, message?: string, requestId?: string, details?: any }} body */
  constructor(status, body) {
    super(body.message ?? `the server answered ${status}`);
    this.status = status;
    this.code = body.code ?? "unknown";
    this.requestId = body.requestId;
    this.details = body.details;
  }
}

/** No answer at all: nothing listens at the URL, DNS failed, the connection dropped. */
export class UnreachableError extends Error {
  name = "UnreachableError";
  /** @param {string} url @param {unknown} cause */
  constructor(url, cause) {
    super(`Pantheon is not reachable at ${url}`, { cause });
    this.url = url;
  }
}

/** A mistake in how the command was typed (exit code 2, with the command's usage). */
export class UsageError extends Error {
  name = "UsageError";
  /** @param {string} message @param {string} [command] */
  constructor(message, command) {
    super(message);
    this.command = command;
  }
}

/** PANTHEON_ADMIN_TOKEN from a .dev.vars file (what `npm start` writes), or undefined. */
export function devVarsToken(file = resolve(".dev.vars")) {
  if (!existsSync(file)) return undefined;
  const match = /^PANTHEON_ADMIN_TOKEN\s*=\s*"?([^"\n]+)"?\s*$/m.exec(readFileSync(file, "utf8"));
  return match?.[1]?.trim() || undefined;
}

/**
 * Flags win over the environment; the token falls back to the local dev server's admin token.
 * @param {{ url?: string, token?: string, project?: string }} flags
 * @param {Record<string, string | undefined>} env
 */
export function resolveConfig(flags, env = process.env) {
  const url = (flags.url ?? env.PANTHEON_URL ?? defaultUrl).replace(/\/+$/, "");
  const token = flags.token ?? env.PANTHEON_TOKEN ?? devVarsToken();
  const project = flags.project ?? env.PANTHEON_PROJECT;
  return { url, token, project };
}

/**
 * A client of one Pantheon server: `api` is the worker's routes, `send` awaits one call.
 * @example
 * const { api, send } = makeClient(resolveConfig({}));
 * const { agents } = await send(api.api.agents.$get());
 * const run = await send(api.api.agents[":name"].runs[":id"].$get(param({ name: "scout", id: runId })));
 * @param {{ url: string, token?: string, project?: string, fetch?: typeof fetch }} config
 */
export function makeClient({ url, token, project, fetch: doFetch = globalThis.fetch }) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (project) headers["x-pantheon-project"] = project;
  // JavaScript cannot pass `hc` its type argument (`hc<ApiRoutes>(…)` in TypeScript), so the cast says it.
  const api = /** @type {Routes} */ (/** @type {unknown} */ (hc(url, { fetch: doFetch, headers })));

  /**
   * Awaits one call: the parsed JSON (null for 204 or an empty body), or with `raw` the Response
   * itself (for streams). Nothing answering is an UnreachableError; anything but 2xx an ApiError.
   * @template {import("hono/client").ClientResponse<unknown>} R
   * @param {Promise<R>} call
   * @returns {Promise<JsonOf<R>>}
   */
  async function send(call) {
    const res = await reach(call);
    const text = res.status === 204 ? "" : await res.text();
    return text ? JSON.parse(text) : /** @type {JsonOf<R>} */ (null);
  }

  /**
   * Awaits one call and hands back its Response (a stream's, say); failures as in `send`.
   * @template {import("hono/client").ClientResponse<unknown>} R
   * @param {Promise<R>} call
   * @returns {Promise<R>}
   */
  async function reach(call) {
    let res;
    try {
      res = await call;
    } catch (error) {
      throw new UnreachableError(url, error);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      let parsed;
      try {
        parsed = JSON.parse(text)?.error;
      } catch {}
      throw new ApiError(res.status, parsed ?? { message: `the server answered ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ""}` });
    }
    return res;
  }

  return { url, token, project, api, send, reach };
}

/**
 * What a command's `run` gets: the client, its positional arguments, its options, and `--json`.
 * @typedef {{ client: ReturnType<typeof makeClient>, args: string[], values: Record<string, any>, json: boolean }} CommandContext
 */

/**
 * Path parameters for a call, escaped (`hc` puts them into the URL as they are).
 * @template {Record<string, string>} P
 * @param {P} values
 * @returns {{ param: P }}
 */
export function param(values) {
  return { param: /** @type {P} */ (Object.fromEntries(Object.entries(values).map(([key, value]) => [key, encodeURIComponent(value)]))) };
}

/**
 * The events of a server-sent event stream, in order: `{ event, data }` with `data` parsed as JSON.
 * @param {{ body: ReadableStream<Uint8Array> | null }} res
 */
export async function* readEvents(res) {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data !== undefined) yield { event, data: JSON.parse(data) };
    }
  }
}


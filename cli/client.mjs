// The CLI's side of the HTTP API: where the server is, which token, and one request function
// that turns every failure into an error the entry point knows how to print.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

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
 * A client of one Pantheon server.
 * @example
 * const api = makeClient(resolveConfig({}));
 * const { agents } = await api.request("GET", "/api/agents");
 * @param {{ url: string, token?: string, project?: string, fetch?: typeof fetch }} config
 */
export function makeClient({ url, token, project, fetch: doFetch = globalThis.fetch }) {
  /**
   * @param {string} method
   * @param {string} path
   * @param {{ json?: unknown, body?: string, type?: string, accept?: string, raw?: boolean }} [options]
   * `raw` returns the Response itself (for streams); otherwise the parsed JSON (null for 204).
   */
  async function request(method, path, options = {}) {
    const headers = { accept: options.accept ?? "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    if (project) headers["x-pantheon-project"] = project;
    let body = options.body;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    } else if (options.type) headers["content-type"] = options.type;
    let res;
    try {
      res = await doFetch(`${url}${path}`, { method, headers, body });
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
    if (options.raw) return res;
    if (res.status === 204) return null;
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  }

  return { url, token, project, request };
}

/**
 * The events of a server-sent event stream, in order: `{ event, data }` with `data` parsed as JSON.
 * @param {Response} res
 */
export async function* readEvents(res) {
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

/** `/api/agents/<name>` with the name escaped. */
export const agentPath = (name, rest = "") => `/api/agents/${encodeURIComponent(name)}${rest}`;

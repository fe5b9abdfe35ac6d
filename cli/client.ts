// The CLI's side of the HTTP API: the worker's routes as a typed client (Hono's `hc<ApiRoutes>`,
// as in the PWA), the errors every command can end with, and the server-sent event reader.
import { hc, type ClientResponse } from "hono/client";
import type { ApiRoutes } from "../workers/api";
import type { TokenSource } from "./config.ts";

/** The worker's routes as `hc` calls them; types only, nothing of the worker is loaded. */
export type Routes = ReturnType<typeof hc<ApiRoutes>>;
/** What a call answers with: its route's JSON, or null for a route that answers no body (204). */
export type JsonOf<R> = R extends ClientResponse<infer T, infer _Status, "json"> ? T : null;

/** The API answered with an error: its `{ error: { code, message, requestId, details } }` body. Exit code 1. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: { issues?: Issue[]; [key: string]: unknown } | undefined;
  /** Where the refused token came from, when not the resolved config's (`pantheon login` reads stdin or a prompt). */
  tokenFrom: TokenSource | undefined;
  constructor(
    status: number,
    body: { code?: string; message?: string; requestId?: string; details?: ApiError["details"]; issues?: Issue[] },
  ) {
    super(body.message ?? `the server answered ${status}`);
    this.status = status;
    this.code = body.code ?? "unknown";
    this.requestId = body.requestId;
    // The project-file contract puts `issues` beside the message rather than under details.
    this.details = body.details ?? (body.issues ? { issues: body.issues } : undefined);
  }
}

/** One field's problem as the API names it (validation, scripts, project files). */
export interface Issue {
  path?: (string | number)[] | string;
  message: string;
  line?: number;
  column?: number;
  form?: string;
}

/** No answer at all: nothing listens at the URL, DNS failed, the connection dropped. Exit code 3. */
export class UnreachableError extends Error {
  override name = "UnreachableError";
  readonly url: string;
  constructor(url: string, cause: unknown) {
    super(`Pantheon is not reachable at ${url}`, { cause });
    this.url = url;
  }
}

/** A mistake in how the command was typed. Exit code 2, with the command's usage. */
export class UsageError extends Error {
  override name = "UsageError";
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** True for the 404 of a route this server does not have (an older server), not of a missing thing. */
export const isMissingRoute = (error: unknown): boolean =>
  error instanceof ApiError &&
  error.status === 404 &&
  error.code === "not_found" &&
  error.message.startsWith("no route for");

export interface ClientConfig {
  url: string;
  token?: string | undefined;
  project?: string | undefined;
  fetch?: typeof fetch;
}

/**
 * A client of one Pantheon server: `api` is the worker's routes, `send` awaits one call and
 * answers its JSON, `reach` its Response (streams), `request` a route by path.
 * @example
 * const { api, send } = makeClient({ url: "http://127.0.0.1:8787", token });
 * const { agents } = await send(api.api.agents.$get());
 * const run = await send(api.api.agents[":name"].runs[":id"].$get(param({ name: "scout", id: runId })));
 */
export function makeClient({ url, token, project, fetch: doFetch = globalThis.fetch }: ClientConfig) {
  const headers: Record<string, string> = { accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (project) headers["x-pantheon-project"] = project;
  const api: Routes = hc<ApiRoutes>(url, { fetch: doFetch, headers });

  async function reach<R extends Response | ClientResponse<unknown>>(call: Promise<R>): Promise<R> {
    let res: R;
    try {
      res = await call;
    } catch (error) {
      throw new UnreachableError(url, error);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      let parsed: ConstructorParameters<typeof ApiError>[1] | undefined;
      try {
        parsed = JSON.parse(text)?.error;
      } catch {}
      throw new ApiError(
        res.status,
        parsed ?? {
          message: `the server answered ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ""}`,
        },
      );
    }
    return res;
  }

  /** The parsed JSON of one call (null for 204 or an empty body); failures as ApiError / UnreachableError. */
  async function send<R extends ClientResponse<unknown>>(call: Promise<R>): Promise<JsonOf<R>> {
    const res = await reach(call);
    const text = res.status === 204 ? "" : await res.text();
    return (text ? JSON.parse(text) : null) as JsonOf<R>;
  }

  /**
   * A route by method and path, for routes that are not in this build's `ApiRoutes` (the
   * project and interop routes of the shared contract) or that send a body `hc` does not type
   * (JSON lines). `T` is the contract's answer; answers its JSON, or the text when not JSON.
   */
  async function request<T>(
    method: string,
    path: string,
    init: {
      json?: unknown;
      body?: string | Uint8Array;
      contentType?: string;
      query?: Record<string, string | undefined>;
      accept?: string;
    } = {},
  ): Promise<T> {
    const target = new URL(`${url}${path}`);
    for (const [key, value] of Object.entries(init.query ?? {}))
      if (value !== undefined) target.searchParams.set(key, value);
    const own: Record<string, string> = { ...headers, ...(init.accept ? { accept: init.accept } : {}) };
    let body: string | Uint8Array | undefined = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      own["content-type"] = "application/json";
    } else if (init.contentType) own["content-type"] = init.contentType;
    const res = await reach(
      doFetch(target, { method, headers: own, ...(body !== undefined ? { body: body as BodyInit } : {}) }),
    );
    const text = res.status === 204 ? "" : await res.text();
    if (!text) return null as T;
    // JSON lines (application/x-ndjson) stay text.
    return (
      /^application\/([\w.-]+\+)?json\b/.test(res.headers.get("content-type") ?? "") ? JSON.parse(text) : text
    ) as T;
  }

  return { url, token, project, api, send, reach, request };
}

export type Client = ReturnType<typeof makeClient>;

/** Path parameters for a call, escaped (`hc` puts them into the URL as they are). */
export function param<P extends Record<string, string>>(values: P): { param: P } {
  return {
    param: Object.fromEntries(Object.entries(values).map(([key, value]) => [key, encodeURIComponent(value)])) as P,
  };
}

/** The data of a run event or trace step: its shape depends on its name, and callers read it by name. */
// biome-ignore lint/suspicious/noExplicitAny: see above; the server's own types do not reach this Node program
export type EventData = any;

/** The events of a server-sent event stream, in order: `{ event, data }` with `data` parsed as JSON. */
export async function* readEvents(res: {
  body: ReadableStream<Uint8Array> | null;
}): AsyncGenerator<{ event: string; data: EventData }> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "message";
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data !== undefined) yield { event, data: JSON.parse(data) };
    }
  }
}

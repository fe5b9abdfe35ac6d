import { checkOutboundUrl, forbiddenRangeOf } from "../host-policy";
import type { BuiltinTool } from "../registry";
import { builtinSpec } from "./catalog";
import { readBodyWithin } from "./body";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface HttpFetchToolOptions {
  /** Injected so tests and the DO choose the transport; nothing else ever reaches the network. */
  fetch: FetchLike;
  /** Exact host names or `*.example.com`. Empty = nothing is reachable. */
  allowHosts: readonly string[];
  /** Loopback passes the outbound guard (tests only; `PANTHEON_ALLOW_LOOPBACK_OUTBOUND`). */
  allowLoopback?: boolean;
  /** Body bytes kept per response. Default 64 KiB. */
  maxBytes?: number;
  /** Whole-call limit including redirects. Default 10 s. */
  timeoutMs?: number;
  maxRedirects?: number;
  /**
   * Resolves a host to its addresses, when the platform can: every address must be public, so a
   * name on the allowlist that points at 10.0.0.1 (DNS rebinding) is refused too.
   */
  resolve?: (host: string) => Promise<string[]>;
}

export class HttpFetchRefused extends Error {
  override readonly name = "HttpFetchRefused";
}

/**
 * `http.fetch`: GET or POST to an allowlisted public host, with size and time limits; redirects are
 * followed by hand so that every hop passes the same checks.
 * @example
 * const tool = makeHttpFetchTool({ fetch, allowHosts: ["api.github.com"], maxBytes: 65536 });
 * await tool.implementation({ url: "https://api.github.com/zen" }, ctx);
 */
export function makeHttpFetchTool(options: HttpFetchToolOptions): BuiltinTool {
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 5;
  if (!(maxBytes > 0)) throw new RangeError("http.fetch: maxBytes must be positive");

  async function approved(raw: string): Promise<URL> {
    const check = checkOutboundUrl(raw, options.allowHosts, { allowLoopback: options.allowLoopback === true });
    if (!check.ok) throw new HttpFetchRefused(`refused: ${check.reason}`);
    if (options.resolve) {
      const addresses = await options.resolve(check.url.hostname);
      for (const address of addresses) {
        const range = forbiddenRangeOf(address);
        if (range && !(range === "loopback" && options.allowLoopback === true))
          throw new HttpFetchRefused(`refused: ${check.url.hostname} resolves to ${address}, in the ${range} range`);
      }
    }
    return check.url;
  }

  return {
    // The catalog's spec, with this agent's hosts and limits in the description the model reads.
    spec: {
      ...builtinSpec("http.fetch"),
      description: `Fetch a URL with GET or POST. Only these hosts are reachable: ${options.allowHosts.join(", ") || "(none)"}. The body is cut at ${maxBytes} bytes.`,
      timeoutMs,
    },
    implementation: async (args, ctx) => {
      let method = String(args.method ?? "GET").toUpperCase();
      if (method !== "GET" && method !== "POST")
        throw new HttpFetchRefused(`refused: method ${method} is not allowed (GET and POST only)`);
      let body = method === "POST" && typeof args.body === "string" ? args.body : undefined;
      const headers = (args.headers ?? {}) as Record<string, string>;
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
      let url = await approved(String(args.url));
      for (let hop = 0; ; hop++) {
        const response = await options.fetch(url.toString(), { method, headers, body, redirect: "manual", signal });
        const location = response.headers.get("location");
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel().catch(() => undefined);
          if (hop >= maxRedirects) throw new HttpFetchRefused(`refused: more than ${maxRedirects} redirects`);
          url = await approved(new URL(location, url).toString());
          // Browsers' rule: 303 always, 301/302 after POST, continue as a GET without a body.
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          continue;
        }
        const read = await readBodyWithin(response, maxBytes);
        const contentType = response.headers.get("content-type");
        return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}\n${contentType ? `content-type: ${contentType}\n` : ""}\n${read.text}`;
      }
    },
  };
}

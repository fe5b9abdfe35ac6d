import type { RouteEntry, RouteMethod, RouteSample } from "./types";

/**
 * Entries of `app.routes` that are not routes: middleware registered with `app.use`, and the
 * PWA's static assets. (`ALL /api/*`, `ALL /v1/*` and `ALL /a2a/*` hold middleware too, but also the not-found
 * fallbacks, so they are in the inventory.)
 */
export const nonRoutes: readonly { method: RouteMethod; path: string; why: string }[] = [
  { method: "ALL", path: "/*", why: "request id middleware" },
  { method: "ALL", path: "/mcp", why: "project, body limit and auth middleware of /mcp" },
  { method: "ALL", path: "/git/:project/:repo/*", why: "token and project middleware of a feature's git repository" },
  { method: "GET", path: "/*", why: "the PWA's static assets (catch-all)" },
];

/** `method path`, the key routes.test.ts compares `app.routes` by. */
export const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

/**
 * Fills a path pattern: `:param` segments and a trailing `*` from `params`, each URI-encoded unless
 * `raw` (the fuzz sends `..` and `%00` as they are).
 */
export function fillPath(pattern: string, params: Record<string, string>, raw = false): string {
  // A lone surrogate cannot be percent-encoded (URIError); a client sends U+FFFD in its place.
  const encode = (value: string) =>
    raw
      ? value
      : encodeURIComponent(
          value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"),
        );
  return pattern
    .replace(/:([A-Za-z_]+)/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`no value for :${name} of ${pattern}`);
      return encode(value);
    })
    .replace(/\*$/, () => (params["*"] ?? "").split("/").map(encode).join("/"));
}

/** The path (with query) and RequestInit of a sample, ready for `api(path, init)`. */
export function requestOf(route: RouteEntry, sample: RouteSample): { path: string; init: RequestInit } {
  const query = sample.query ? `?${new URLSearchParams(sample.query)}` : "";
  const headers = new Headers(sample.headers);
  let body: string | undefined;
  if (sample.body && "json" in sample.body) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(sample.body.json);
  } else if (sample.body) {
    headers.set("content-type", sample.body.contentType);
    body = sample.body.text;
  }
  const method = sample.method ?? (route.method === "ALL" ? "GET" : route.method);
  return {
    path: fillPath(route.path, sample.params) + query,
    init: { method, headers, ...(body === undefined ? {} : { body }) },
  };
}

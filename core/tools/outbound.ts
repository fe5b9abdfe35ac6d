import { checkOutboundUrl, type OutboundOptions } from "./host-policy";
import { declaredToolSecrets } from "./secrets";

/** The deployment's rules for what tools may use and reach, read from its vars. */
export interface OutboundSettings {
  /**
   * Secret names tools may use in headers: the project's own secrets and the deployment secrets
   * granted to it (workers/secrets/); from the vars alone, `PANTHEON_TOOL_SECRETS`.
   */
  toolSecrets: string[];
  /** The project the names belong to: refusals speak of its secrets. */
  project?: string;
  /** `PANTHEON_ALLOW_LOOPBACK_OUTBOUND=true`: loopback passes the guard (tests); nothing else does. */
  allowLoopback: boolean;
  /**
   * `PANTHEON_OUTBOUND_PRIVATE_HOSTS` (comma-separated exact names or private addresses): the
   * private hosts the deployment admin opened for git remotes and MCP servers (host-policy.ts).
   */
  privateHosts?: string[];
}

/**
 * The deployment's named private hosts: exact names or addresses, lower-cased; a wildcard is
 * dropped, as a private network is opened one host at a time.
 * @example
 * privateHostsFrom("git.corp.internal, 10.0.0.12"); // ["git.corp.internal", "10.0.0.12"]
 */
export function privateHostsFrom(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\s,]+/)
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h && !h.includes("*") && !h.includes("/"));
}

/**
 * Reads the outbound settings from the worker's vars (both absent = the safe defaults: no tool
 * secrets, no loopback).
 * @example
 * outboundSettingsFrom(env); // { toolSecrets: ["AIRTABLE_KEY"], allowLoopback: false, privateHosts: [] }
 */
export function outboundSettingsFrom(vars: {
  PANTHEON_TOOL_SECRETS?: string;
  PANTHEON_ALLOW_LOOPBACK_OUTBOUND?: string;
  PANTHEON_OUTBOUND_PRIVATE_HOSTS?: string;
}): OutboundSettings {
  return {
    toolSecrets: declaredToolSecrets(vars.PANTHEON_TOOL_SECRETS),
    allowLoopback: vars.PANTHEON_ALLOW_LOOPBACK_OUTBOUND === "true",
    privateHosts: privateHostsFrom(vars.PANTHEON_OUTBOUND_PRIVATE_HOSTS),
  };
}

/** What one agent's outbound requests may reach: its allowlist under the deployment's options. */
export interface OutboundPolicy extends OutboundOptions {
  allowHosts: readonly string[];
}

export class OutboundRefused extends Error {
  override readonly name = "OutboundRefused";
}

export type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * `fetch` behind the outbound guard, for clients Pantheon does not write itself (the MCP SDK's
 * transports): every request, and every redirect hop, is checked against the policy read at that
 * moment, so an allowlist changed after a connection was made applies to its next request. The
 * platform never follows a redirect on its own: a caller asking for `manual` gets the 3xx back
 * (and its next request is checked again), one asking for `follow` gets hops followed here.
 * @example
 * const guarded = makeGuardedFetch(fetch, () => ({ allowHosts: profile.runtime.allowHosts }));
 * await guarded("http://169.254.169.254/latest/meta-data"); // throws OutboundRefused
 */
export function makeGuardedFetch(
  fetch: FetchFn,
  policy: () => OutboundPolicy,
  options: { maxRedirects?: number } = {},
): FetchFn {
  const maxRedirects = options.maxRedirects ?? 5;
  const approve = (raw: string): URL => {
    const { allowHosts, ...rest } = policy();
    const check = checkOutboundUrl(raw, allowHosts, rest);
    if (!check.ok) throw new OutboundRefused(`refused: ${check.reason}`);
    return check.url;
  };

  return async (input, init) => {
    const first = new Request(input, init);
    const mode = first.redirect;
    approve(first.url);
    if (mode === "manual") return fetch(new Request(first, { redirect: "manual" }));
    // Following by hand may send the body again (307/308), so it is read once here.
    const body = first.method === "GET" || first.method === "HEAD" ? undefined : await first.arrayBuffer();
    let current = { url: first.url, method: first.method, headers: new Headers(first.headers), body };
    for (let hop = 0; ; hop++) {
      const response = await fetch(
        new Request(current.url, {
          method: current.method,
          headers: current.headers,
          body: current.body,
          redirect: "manual",
          signal: first.signal,
        }),
      );
      const location = response.headers.get("location");
      if (!redirectStatuses.has(response.status) || !location) return response;
      await response.body?.cancel().catch(() => undefined);
      if (mode === "error") throw new TypeError(`redirect from ${current.url} refused (redirect: "error")`);
      if (hop >= maxRedirects) throw new OutboundRefused(`refused: more than ${maxRedirects} redirects`);
      const next = approve(new URL(location, current.url).href);
      const headers = new Headers(current.headers);
      // Credentials meant for one origin never travel to another.
      if (next.origin !== new URL(current.url).origin)
        for (const name of ["authorization", "cookie", "proxy-authorization"]) headers.delete(name);
      // Browsers' rule: 303 always, 301/302 after POST, continue as a GET without a body.
      const toGet =
        response.status === 303 || ((response.status === 301 || response.status === 302) && current.method === "POST");
      current = {
        url: next.href,
        method: toGet ? "GET" : current.method,
        headers,
        body: toGet ? undefined : current.body,
      };
    }
  };
}

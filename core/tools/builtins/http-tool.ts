import { checkOutboundUrl } from "../host-policy";
import type { ToolImplementation } from "../registry";
import { toolSecretRefusal, type SecretRef } from "../secrets";
import { readBodyWithin } from "./body";
import type { FetchLike } from "./http-fetch";

export interface HttpToolOptions {
  /** The operator's endpoint; the arguments are POSTed to it as JSON. */
  endpoint: string;
  /** Literal values or `{ secret: NAME }`, resolved from the call's secrets at call time. */
  headers?: Readonly<Record<string, string | SecretRef>>;
  fetch: FetchLike;
  /** The agent's allowlist: the endpoint's host must be on it (`runtime.allowHosts`). */
  allowHosts: readonly string[];
  /** The secrets the agent's project may use (its own, those granted to it); a header naming another is refused. */
  toolSecrets: readonly string[];
  /** The project of those secrets, named in a refusal. */
  project?: string;
  /** Loopback passes the outbound guard (tests only; `PANTHEON_ALLOW_LOOPBACK_OUTBOUND`). */
  allowLoopback?: boolean;
  /** Body bytes kept. Default 64 KiB. */
  maxBytes?: number;
}

export class HttpToolError extends Error {
  override readonly name = "HttpToolError";
}

/**
 * An operator-declared HTTP tool. Secret header values never live in the tool's configuration,
 * only in the call's `secrets`, and only secrets declared for tools are sent. Before each call the
 * endpoint passes the outbound guard (public host on the agent's allowlist) — configuration checks
 * the same, this is the second line for an environment or allowlist changed since. Redirects are
 * not followed: a 3xx is an error and its Location is never fetched, so nothing leaves the endpoint.
 * @example
 * const airtable = makeHttpTool({ endpoint: "https://hooks.example.com/airtable", headers: { "X-Api-Key": { secret: "AIRTABLE_KEY" } }, fetch, allowHosts: ["hooks.example.com"], toolSecrets: ["AIRTABLE_KEY"] });
 * await registry.invoke("airtable.add", { row: {...} }, { secrets: { AIRTABLE_KEY: "…" } });
 */
export function makeHttpTool(options: HttpToolOptions): ToolImplementation {
  const endpoint = new URL(options.endpoint);
  if (endpoint.protocol !== "https:" && endpoint.protocol !== "http:")
    throw new HttpToolError(`endpoint must be http(s), got ${endpoint.protocol}`);
  const maxBytes = options.maxBytes ?? 64 * 1024;
  return async (args, ctx) => {
    const check = checkOutboundUrl(endpoint.href, options.allowHosts, {
      allowLoopback: options.allowLoopback === true,
    });
    if (!check.ok) throw new HttpToolError(`refused: ${check.reason}`);
    const headers: Record<string, string> = { "content-type": "application/json" };
    // The same proposed call carries the same key on every attempt, so the endpoint can apply it once.
    if (ctx.idempotencyKey) headers["idempotency-key"] = ctx.idempotencyKey;
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (typeof value === "string") {
        headers[name] = value;
        continue;
      }
      const refusal = toolSecretRefusal(value.secret, options.toolSecrets, options.project, { list: !options.project });
      if (refusal) throw new HttpToolError(`refused: ${refusal} (header ${name})`);
      const secret = ctx.secrets[value.secret];
      if (secret === undefined)
        throw new HttpToolError(`secret '${value.secret}' (header ${name}) is not set for this agent`);
      headers[name] = secret;
    }
    const response = await options.fetch(check.url.href, {
      method: "POST",
      headers,
      body: JSON.stringify(args),
      redirect: "manual",
      signal: ctx.signal,
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new HttpToolError(
        `endpoint answered ${response.status} (redirect to ${response.headers.get("location") ?? "?"}); redirects are not followed`,
      );
    }
    const read = await readBodyWithin(response, maxBytes);
    if (!response.ok) throw new HttpToolError(`endpoint answered ${response.status}: ${read.text}`);
    return read.text;
  };
}

import type { ToolImplementation } from "../registry";
import type { SecretRef } from "../secrets";
import { readBodyWithin } from "./body";
import type { FetchLike } from "./http-fetch";

export interface HttpToolOptions {
  /** The operator's endpoint; the arguments are POSTed to it as JSON. */
  endpoint: string;
  /** Literal values or `{ secret: NAME }`, resolved from the call's secrets at call time. */
  headers?: Readonly<Record<string, string | SecretRef>>;
  fetch: FetchLike;
  /** Body bytes kept. Default 64 KiB. */
  maxBytes?: number;
}

export class HttpToolError extends Error {
  override readonly name = "HttpToolError";
}

/**
 * An operator-declared HTTP tool. Secret header values never live in the tool's configuration,
 * only in the call's `secrets`, and redirects are not followed so they never leave the endpoint.
 * @example
 * const airtable = makeHttpTool({ endpoint: "https://hooks.example.com/airtable", headers: { "X-Api-Key": { secret: "AIRTABLE_KEY" } }, fetch });
 * await registry.invoke("airtable.add", { row: {...} }, { secrets: { AIRTABLE_KEY: "…" } });
 */
export function makeHttpTool(options: HttpToolOptions): ToolImplementation {
  const endpoint = new URL(options.endpoint);
  if (endpoint.protocol !== "https:" && endpoint.protocol !== "http:") throw new HttpToolError(`endpoint must be http(s), got ${endpoint.protocol}`);
  const maxBytes = options.maxBytes ?? 64 * 1024;
  return async (args, ctx) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (typeof value === "string") {
        headers[name] = value;
        continue;
      }
      const secret = ctx.secrets[value.secret];
      if (secret === undefined) throw new HttpToolError(`secret '${value.secret}' (header ${name}) is not set for this agent`);
      headers[name] = secret;
    }
    const response = await options.fetch(endpoint.toString(), { method: "POST", headers, body: JSON.stringify(args), redirect: "manual", signal: ctx.signal });
    const read = await readBodyWithin(response, maxBytes);
    if (response.status >= 300 && response.status < 400) throw new HttpToolError(`endpoint answered ${response.status} (redirect to ${response.headers.get("location") ?? "?"}); redirects are not followed`);
    if (!response.ok) throw new HttpToolError(`endpoint answered ${response.status}: ${read.text}`);
    return read.text;
  };
}

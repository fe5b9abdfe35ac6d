// A loopback listener that records every request it gets, for the secret-exfiltration tests: an
// attacker's endpoint that must receive nothing unless the operator allowed it. Started by
// vitest.config.ts (EXFIL_LISTENER_URL).
//   ANY  /t/<key>/…[?redirect=<url>]   recorded under <key>; answers 200 "ok", or 302 to <url>
//   ANY  anything else but /__…        recorded under "" (the empty key)
//   GET  /__requests?key=<key>         what was recorded under <key>: [{ method, path, headers, body }]
//   GET  /__count                      how many requests were recorded in all, under any key
// Each test uses its own key, so concurrent test files never read each other's requests.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function startExfilListener(): Promise<{ url: string; server: Server }> {
  const byKey = new Map<string, RecordedRequest[]>();
  let total = 0;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://listener");
    if (req.method === "GET" && url.pathname === "/__requests") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(byKey.get(url.searchParams.get("key") ?? "") ?? []));
    }
    if (req.method === "GET" && url.pathname === "/__count") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ count: total }));
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const key = /^\/t\/([^/]+)/.exec(url.pathname)?.[1] ?? "";
    byKey.set(key, [
      ...(byKey.get(key) ?? []),
      {
        method: req.method ?? "",
        path: `${url.pathname}${url.search}`,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      },
    ]);
    total += 1;
    const redirect = url.searchParams.get("redirect");
    if (redirect) {
      res.writeHead(302, { location: redirect });
      return res.end();
    }
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  }

  const { url, server } = await listenOnLoopback(handle);
  return { url: url, server };
}

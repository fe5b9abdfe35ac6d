// A loopback double of a browser's push service (RFC 8030), started by vitest.config.ts
// (PUSH_SERVICE_URL). It keeps each push as it arrived, the encrypted body in base64, so a test
// decrypts it with the subscription's private key and checks the VAPID JWT itself:
//   POST /push/<key>      recorded under <key>; answers 201 Created as push services do
//   POST /gone/<key>      recorded under <key>; answers 410 Gone (the subscription expired)
//   GET  /__pushes?key=k  what was recorded under k: [{ path, headers, body (base64) }]
// Each test uses its own key, so test files never read each other's pushes.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

export interface RecordedPush {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function startPushServiceDouble(): Promise<{ url: string; server: Server }> {
  const byKey = new Map<string, RecordedPush[]>();
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://push");
    if (req.method === "GET" && url.pathname === "/__pushes") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(byKey.get(url.searchParams.get("key") ?? "") ?? []));
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const match = /^\/(push|gone)\/([^/]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !match) {
      res.writeHead(404);
      return res.end();
    }
    const key = match[2]!;
    byKey.set(key, [
      ...(byKey.get(key) ?? []),
      { path: url.pathname, headers: req.headers, body: Buffer.concat(chunks).toString("base64") },
    ]);
    res.writeHead(match[1] === "gone" ? 410 : 201);
    res.end();
  }
  return listenOnLoopback(handle);
}

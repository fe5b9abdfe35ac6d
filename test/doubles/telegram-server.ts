// A loopback double of the Telegram Bot API for the gateway tests, started by vitest.config.ts
// (TELEGRAM_API_BASE). It records every call and answers like Telegram:
//   POST /bot<token>/<method>   recorded; answers { ok: true, result } (sendMessage: a message with an id),
//                               or { ok: false, description } with 401 for a token that is not the test bot's
//   GET  /__calls?chat=<id>     calls whose body has that chat_id (sendMessage)
//   GET  /__calls?method=<m>    calls of one method; each { token, method, body }
// Tests use their own chat ids and callback ids, so test files never read each other's calls.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { listenOnLoopback } from "./loopback-server";

export const testBotToken = "123456789:test-bot-token-AAbbCCdd";

interface Recorded {
  token: string;
  method: string;
  body: Record<string, unknown>;
}

export async function startTelegramDouble(): Promise<{ url: string; server: Server }> {
  const calls: Recorded[] = [];
  let messageId = 1000;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://double");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/__calls") {
      const chat = url.searchParams.get("chat");
      const method = url.searchParams.get("method");
      const secret = url.searchParams.get("secret");
      return send(
        200,
        calls.filter(
          (c) =>
            (!chat || String(c.body.chat_id) === chat) &&
            (!method || c.method === method) &&
            (!secret || String(c.body.url ?? "").includes(secret)),
        ),
      );
    }
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !match) return send(404, { ok: false, error_code: 404, description: "Not Found" });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const [, token = "", method = ""] = match;
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
    calls.push({ token, method, body });
    if (token !== testBotToken) return send(401, { ok: false, error_code: 401, description: "Unauthorized" });
    if (method === "sendMessage")
      return send(200, { ok: true, result: { message_id: ++messageId, chat: { id: body.chat_id }, text: body.text } });
    return send(200, { ok: true, result: true });
  }

  const { url, server } = await listenOnLoopback(handle);
  return { url: url, server };
}

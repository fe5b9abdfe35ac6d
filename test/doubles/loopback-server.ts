import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Serves `handle` on 127.0.0.1 at a free port: how every test double listens. A handler that throws
 * answers 500 with the error; the listener does not keep the test run alive.
 * @example
 * const { url, server } = await listenOnLoopback(async (req, res) => res.end("ok"));
 */
export async function listenOnLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>,
  options: { json?: boolean } = {},
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": options.json ? "application/json" : "text/plain" });
      res.end(options.json ? JSON.stringify({ error: String(error) }) : String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // The test run must be able to end while the listener still listens.
  server.unref();
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}

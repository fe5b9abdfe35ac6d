// History survives a restart of `wrangler dev`: create an agent, chat, stop the server, start it
// again on the same persisted state, and read the history back. Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-restart-"));
const { check, finish } = makeChecks();
const call = makeCall(token);

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "keeper", systemPrompt: "You keep things." }),
  });
  const sent = await call(server.url, "/api/agents/keeper/messages", {
    method: "POST",
    body: JSON.stringify({ content: "The spare key is under the blue pot." }),
  });
  check("a chat turn completes before the restart", sent.body?.status === "completed", JSON.stringify(sent));
  await server.stop();

  server = await startDevServer({ port: await freePort(), token, persistTo });
  const history = await call(server.url, "/api/agents/keeper/messages");
  const contents = (history.body?.messages ?? []).map((m) => m.content);
  check(
    "the history is still there after wrangler dev restarts",
    contents.includes("The spare key is under the blue pot."),
    JSON.stringify(history),
  );
  const again = await call(server.url, "/api/agents/keeper/messages", {
    method: "POST",
    body: JSON.stringify({ content: "Where is the spare key?" }),
  });
  check(
    "the agent answers from the history it kept",
    /blue pot/.test(again.body?.reply?.content ?? ""),
    JSON.stringify(again.body),
  );
} catch (error) {
  check("the restart check ran", false, error instanceof Error ? error.message : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();

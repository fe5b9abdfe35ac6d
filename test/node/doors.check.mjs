// Every door of an agent, through the served stack (`wrangler dev`, the asset layer in front of the
// worker as on Cloudflare), each with the client people use: /v1 (openai), /mcp and /mcp/agents/:name
// (the MCP SDK), /agui (@ag-ui/client), /a2a (@a2a-js/sdk), the agent's WebSocket (PartySocket, as the
// PWA), the Telegram webhook (a loopback Bot API double), the email entry and the scheduled handler
// (wrangler's /cdn-cgi/handler/…), and the docs' client snippets (docs/protocols.md) run as written. ACP has its own
// check (acp.check.mjs: the real `pantheon acp` binary). One server for all of them. Each check
// asserts the agent's answer and the run behind it, read back over /api. Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TaskState } from "@a2a-js/sdk";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";
import {
  emailDoor,
  scheduledDoor,
  socketDoor,
  startTelegramDouble,
  telegramBotToken,
  telegramDoor,
} from "./doors/entries.mjs";
import { a2aDoor, aguiDoor, mcpDoors, openaiDoor, snippetScope, tenantDoors } from "./doors/protocols.mjs";
import { documentationText } from "./readme-commands.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-doors-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const shown = (value) => {
  try {
    return JSON.stringify(value)?.slice(0, 1200);
  } catch {
    return String(value);
  }
};
const systemPrompt = "You are Scout. The launch code word is pineapple.";

/** A JS block of the README or a docs page (```js … ```) that contains `marker`. */
function readmeBlock(readme, marker) {
  return [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((block) => block.includes(marker));
}

/**
 * Runs a docs snippet as written (only the documented port becomes this server's), with the
 * imports it assumes and `token` in scope; answers the values of the constants it declares.
 */
async function runSnippet(code, url) {
  const names = [...code.matchAll(/^const (?:\{ ?(\w+) ?\}|(\w+)) =/gm)].map((m) => m[1] ?? m[2]);
  const AsyncFunction = (async () => {}).constructor;
  const body = `${code.replaceAll("http://127.0.0.1:8787", url)}\nreturn { ${names.join(", ")} };`;
  return new AsyncFunction(...Object.keys(snippetScope), "token", body)(...Object.values(snippetScope), token);
}

/** Runs one door's checks; a door that throws fails its own check and the others still run. */
async function door(name, work) {
  try {
    await work();
  } catch (error) {
    check(`${name}: the door answered`, false, error instanceof Error ? error.stack : String(error));
  }
}

const telegram = await startTelegramDouble();
let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token,
    persistTo,
    vars: { TELEGRAM_API_BASE: telegram.url, TELEGRAM_BOT_TOKEN: telegramBotToken },
  });
  const url = server.url;
  const api = (path, init) => call(url, path, init);
  /** A run of an agent over /api, with the reply it wrote to its session (null when it has none). */
  const runOf = async (agent, runId) => {
    if (!runId) return null;
    const view = (await api(`/api/agents/${agent}/runs/${runId}`)).body;
    if (!view?.run) return null;
    const messages =
      (await api(`/api/agents/${agent}/messages?session=${view.run.sessionId}&limit=50`)).body?.messages ?? [];
    return { ...view, reply: messages.find((m) => m.role === "assistant" && m.runId === runId)?.content ?? null };
  };
  const ctx = { url, token, root, api, check, shown, runOf, telegram };

  for (const [name, runtime] of [
    ["scout", { tools: ["clock.now"] }],
    ["guarded", { tools: ["clock.now"], approvalRequired: ["clock.now"] }],
    ["courier", {}],
    ["postie", {}],
    ["herald", { tools: ["clock.now"] }],
  ]) {
    const made = await api("/api/agents", { method: "POST", body: JSON.stringify({ name, systemPrompt, runtime }) });
    if (made.status !== 201) throw new Error(`creating ${name}: ${made.status} ${shown(made.body)}`);
  }
  const script = `(actor "herald" (description "Ticks every minute.") (tools "clock.now")
  (talent "work" (behavior "tick" :persistent (cron "* * * * *") (goal (input) "tick") (plan (input ctx) (tool "clock.now")))))`;
  const scripted = await fetch(`${url}/api/agents/herald/script`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "text/x-pantheon" },
    body: script,
  });
  if (!scripted.ok) throw new Error(`herald's script: ${scripted.status} ${await scripted.text()}`);

  await door("/v1", () => openaiDoor(ctx));
  await door("/mcp", () => mcpDoors(ctx));
  await door("/agui", () => aguiDoor(ctx));
  await door("/a2a", () => a2aDoor(ctx));
  await door("socket", () => socketDoor(ctx));
  await door("telegram", () => telegramDoor(ctx));
  await door("email", () => emailDoor(ctx));
  await door("scheduled", () => scheduledDoor(ctx));
  await door("another tenant", () => tenantDoors(ctx));

  // The snippets live in docs/protocols.md today; found wherever the documentation keeps them.
  const readme = documentationText(root);
  await door("the docs' Protocols snippet", async () => {
    const clients = readmeBlock(readme, "// AG-UI");
    const got = await runSnippet(clients ?? "", url);
    check(
      "docs: the Protocols snippet (OpenAI, MCP, AG-UI) runs as written and each client gets the agent's answer",
      Boolean(clients) &&
        got.answer?.choices?.[0]?.message?.content?.length > 0 &&
        got.reply?.content?.[0]?.text?.length > 0 &&
        !got.reply.isError &&
        got.newMessages?.[0]?.role === "assistant" &&
        got.newMessages[0].content.length > 0,
      shown({ answer: got.answer, reply: got.reply, newMessages: got.newMessages }),
    );
  });
  await door("the docs' A2A snippet", async () => {
    const a2a = readmeBlock(readme, "ClientFactory");
    const { task } = await runSnippet(a2a ?? "", url);
    check(
      "docs: the A2A snippet runs as written: the card resolves (not the PWA's HTML) and the message answers a completed task",
      Boolean(a2a) && task?.status?.state === TaskState.TASK_STATE_COMPLETED && task.artifacts?.[0]?.parts?.length > 0,
      shown(task),
    );
  });
} catch (error) {
  check("the doors check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await telegram.close();
  await rm(persistTo, { recursive: true, force: true });
}

finish();

// `pantheon chat` in a real pseudo-terminal: tmux runs the real binary against wrangler dev, the
// check types with `send-keys` and reads the screen with `capture-pane`, as a person would: pick a
// session (its history scrolls back), see a streamed reply, approve a gated tool call inline,
// cancel a run with Ctrl-C, leave with Ctrl-D. Needs tmux (Debian's; `npm test` installs it when
// missing and root). Prints `N passed, N failed` as the last line.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const { check, finish } = makeChecks();
if (spawnSync("tmux", ["-V"]).status !== 0) {
  check(
    "tmux is installed (apt-get install -y tmux; npm test installs it when it runs as root)",
    false,
    "tmux not found",
  );
  finish();
}

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-chat-"));
const socket = `pantheon-chat-${process.pid}`;
const call = makeCall(token);
const tmux = (...args) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
/** The whole pane with its scrollback, wrapped lines joined. */
const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-2000", "-t", "chat");
const type = (text) => {
  tmux("send-keys", "-t", "chat", "-l", text);
  tmux("send-keys", "-t", "chat", "Enter");
};
const press = (...keys) => tmux("send-keys", "-t", "chat", ...keys);
/**
 * Waits until the screen from the last `anchor` on (all of it without one) matches; answers that
 * part, or null when it never does within the wait.
 */
async function waitFor(pattern, anchor = "", waitMs = 30_000) {
  const until = Date.now() + waitMs;
  for (;;) {
    const all = screen();
    const at = anchor ? all.lastIndexOf(anchor) : 0;
    const part = at < 0 ? "" : all.slice(at);
    if (pattern.test(part)) return part;
    if (Date.now() > until) return null;
    await new Promise((r) => setTimeout(r, 150));
  }
}
const tail = () => JSON.stringify(screen().split("\n").filter(Boolean).slice(-15).join("\n"));

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  const api = async (path, body, method = body ? "POST" : "GET") =>
    (await call(server.url, path, { method, ...(body ? { body: JSON.stringify(body) } : {}) })).body;
  await api("/api/agents", {
    name: "scout",
    description: "Finds things",
    systemPrompt: "You are Scout. The code word is pineapple.",
  });
  await api("/api/agents", { name: "helper", description: "Helps" });
  await api("/api/agents/scout/connections", { connections: ["helper"] }, "PUT");
  for (const name of ["scout", "helper"])
    await api(`/api/agents/${name}`, { runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } }, "PATCH");
  const old = await api("/api/agents/scout/sessions", { title: "Old plans" });
  await api("/api/agents/scout/messages", { content: "Remember the blue notebook.", session: old.id });
  // The default session is the most recent, so the picker opens on it and Down moves to "Old plans".
  await api("/api/agents/scout/messages", { content: "hello" });

  tmux(
    "new-session",
    "-d",
    "-s",
    "chat",
    "-x",
    "160",
    "-y",
    "50",
    "-e",
    `PANTHEON_URL=${server.url}`,
    "-e",
    `PANTHEON_TOKEN=${token}`,
    "-e",
    `XDG_CONFIG_HOME=${persistTo}`,
    "-c",
    persistTo,
    `${process.execPath} ${join(root, "cli/pantheon.ts")} chat scout; echo $? > ${join(persistTo, "chat-exit-code")}`,
  );
  tmux("set-option", "-t", "chat", "remain-on-exit", "on");

  const picker = await waitFor(/Session with scout[\s\S]*Old plans[\s\S]*New session/);
  check("chat opens a session picker when the agent has several sessions", picker !== null, tail());
  press("Down");
  await waitFor(/❯ Old plans/, "", 5000);
  press("Enter");
  const picked = await waitFor(/session "Old plans"[\s\S]*you: Remember the blue notebook\.[\s\S]*you ›/);
  check("picking a session opens it with its history scrolled back", picked !== null, tail());

  type("What is the code word?");
  const streamed = await waitFor(/scout:\n.*pineapple.*\n[\s\S]*you ›/, "you › What is the code word?");
  const history = await api(`/api/agents/scout/messages?session=${old.id}&limit=1`);
  const reply = history?.messages?.[0];
  check(
    "a message gets the agent's streamed reply on screen, the one stored",
    streamed !== null && reply?.role === "assistant" && streamed.includes(reply.content.trim()),
    `${tail()} stored=${JSON.stringify(reply?.content)}`,
  );

  let mark = "you › /tool clock.now {}";
  type("/tool clock.now {}");
  const asked = await waitFor(
    /waits for a person's approval[\s\S]*scout wants to run clock\.now[\s\S]*❯ Approve[\s\S]*Reject[\s\S]*Decide later/,
    mark,
  );
  check("an approval-gated tool call asks inline: Approve / Reject / Decide later", asked !== null, tail());
  press("Enter");
  const approved = await waitFor(
    /✓ approved clock\.now[\s\S]*→ clock\.now \{\}[\s\S]*← clock\.now ok[\s\S]*The tool clock\.now returned[\s\S]*you ›/,
    mark,
  );
  const runs = await api("/api/agents/scout/runs");
  const toolRun = runs?.runs?.find((r) => r.status === "completed" && r.steps > 1);
  check(
    "approving inline runs the call, shows its result and the reply; the run completed",
    approved !== null && Boolean(toolRun),
    `${tail()} ${JSON.stringify(runs?.runs?.map((r) => r.status))}`,
  );

  mark = "you › /ask helper /tool";
  type("/ask helper /tool clock.now {}");
  const asking = await waitFor(/→ ask_helper[\s\S]*waiting for another agent's answer… \(Ctrl-C cancels\)/, mark);
  // helper's own call waits for a person too; someone approves it elsewhere (the API, as the PWA would).
  let helperWait;
  for (let i = 0; i < 100 && !helperWait; i += 1) {
    helperWait = (await api("/api/approvals"))?.approvals?.find((a) => a.agent === "helper");
    if (!helperWait) await new Promise((r) => setTimeout(r, 150));
  }
  if (helperWait)
    await api(`/api/agents/helper/runs/${helperWait.runId}/approval`, {
      decision: "approve",
      callId: helperWait.callId,
    });
  const answered = await waitFor(/The tool ask_helper returned: .*clock\.now returned[\s\S]*you ›/, mark);
  check(
    "a run waiting on another agent is followed on screen, and its reply shows when the answer comes",
    asking !== null && Boolean(helperWait) && answered !== null,
    tail(),
  );

  mark = "you › /ask helper /tool";
  type("/ask helper /tool clock.now {}");
  const waiting = await waitFor(/waiting for another agent's answer… \(Ctrl-C cancels\)/, mark);
  check("a second question waits for the other agent", waiting !== null, tail());
  press("C-c");
  const cancelled = await waitFor(/cancelling the run…[\s\S]*run \S+ cancelled\.[\s\S]*you ›/, mark);
  const latest = (await api("/api/agents/scout/runs"))?.runs?.[0];
  check(
    "Ctrl-C cancels the run in progress (and the chat goes on)",
    cancelled !== null && latest?.status === "cancelled",
    `${tail()} ${JSON.stringify(latest)}`,
  );
  // The run scout delegated to helper (waiting for a person's approval) is cancelled with it, over the bus.
  const conversation = latest ? await api(`/api/conversations/${latest.id}`) : null;
  const delegated = conversation?.hops?.[0]?.runId;
  let helperRun;
  for (let i = 0; i < 50 && delegated; i += 1) {
    helperRun = (await api(`/api/agents/helper/runs/${delegated}`))?.run;
    if (helperRun?.status === "cancelled") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  check(
    "Ctrl-C cancels down the delegation chain: scout's run and the run it asked helper for both end cancelled",
    latest?.status === "cancelled" &&
      helperRun?.status === "cancelled" &&
      (await api("/api/approvals"))?.approvals?.every((a) => a.runId !== delegated),
    `scout ${JSON.stringify(latest?.status)} helper ${JSON.stringify(helperRun)}`,
  );

  mark = "you › /tool clock.now {}";
  type("/tool clock.now {}");
  const menu = await waitFor(/scout wants to run clock\.now[\s\S]*❯ Approve/, mark);
  press("C-c");
  const menuCancelled = await waitFor(/run \S+ cancelled\.[\s\S]*you ›/, mark);
  const gated = (await api("/api/agents/scout/runs"))?.runs?.[0];
  check(
    "Ctrl-C at an approval question cancels that run, not leaves it waiting",
    menu !== null && menuCancelled !== null && gated?.status === "cancelled",
    `${tail()} ${JSON.stringify(gated)}`,
  );

  press("C-c");
  const hint = await waitFor(/Ctrl-C again or Ctrl-D to leave/, " cancelled.", 5000);
  check("Ctrl-C at the prompt says how to leave", hint !== null, tail());
  press("C-d");
  // The pane's shell writes the chat's exit code to a file when it ends (tmux's own pane_dead_status
  // is not always set by the time the pane is marked dead).
  let dead = "";
  for (let i = 0; i < 100 && dead === ""; i += 1) {
    dead = existsSync(join(persistTo, "chat-exit-code"))
      ? readFileSync(join(persistTo, "chat-exit-code"), "utf8").trim()
      : "";
    if (dead === "") await new Promise((r) => setTimeout(r, 100));
  }
  check("Ctrl-D leaves the chat with exit code 0", dead === "0", `exit code '${dead}' ${tail()}`);
} catch (error) {
  check("the chat check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  try {
    tmux("kill-server");
  } catch {}
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();

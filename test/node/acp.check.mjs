// `pantheon acp <agent>` driven as an editor drives it: the real CLI in a child process, spoken to
// over its stdin/stdout pipes by the ACP SDK's own client side (`client()` + `connectWith`),
// against a real local stack (wrangler dev). Prints `N passed, N failed` as the last line.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const cliPath = join(root, "cli/pantheon.ts");
const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-acp-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const shown = (value) => JSON.stringify(value)?.slice(0, 900);

/**
 * Starts `pantheon acp <agent>` and runs `work(ctx, seen)` as its ACP client. `onPermission`
 * answers each permission request (it gets the request and the client context); every session
 * update lands in `seen.updates`.
 */
async function withAcp(server, agent, work, { onPermission, cliToken = token } = {}) {
  const child = spawn(process.execPath, [cliPath, "acp", agent], {
    cwd: persistTo,
    env: { ...process.env, PANTHEON_URL: server.url, PANTHEON_TOKEN: cliToken },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  // `log`: every update and permission request in the order the client got them, one line each.
  const seen = { updates: [], permissions: [], log: [] };
  const app = client({ name: "acp-check" })
    .onNotification(methods.client.session.update, ({ params }) => {
      seen.updates.push(params.update);
      const u = params.update;
      if (u.toolCallId) seen.log.push(`${u.sessionUpdate}${u.status ? `:${u.status}` : ""}`);
    })
    .onRequest(methods.client.session.requestPermission, async ({ params, agent: ctx }) => {
      seen.permissions.push(params);
      seen.log.push(
        `permission:${params.toolCall.toolCallId === seen.updates.find((u) => u.sessionUpdate === "tool_call")?.toolCallId ? "announced" : "unannounced"}`,
      );
      return onPermission ? onPermission(params, ctx) : { outcome: { outcome: "cancelled" } };
    });
  try {
    return await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), (ctx) =>
      work(ctx, seen),
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)} (stderr: ${stderr.slice(0, 500)})`);
  } finally {
    child.kill();
  }
}

const textOf = (updates, kind = "agent_message_chunk") =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => u.content.text)
    .join("");
const initialize = (ctx) =>
  ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
const newSession = (ctx) => ctx.request(methods.agent.session.new, { cwd: "/home/dev/launch-site", mcpServers: [] });
const prompt = (ctx, sessionId, text) =>
  ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  const api = async (path, init) => (await call(server.url, path, init)).body;
  await api("/api/agents", {
    method: "POST",
    body: JSON.stringify({
      name: "scout",
      systemPrompt: "You are Scout. The launch code word is pineapple.",
      runtime: { tools: ["clock.now"] },
    }),
  });
  await api("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "guarded", runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } }),
  });

  // initialize, a new session, a streamed prompt, a tool call, and loading the session again
  let firstSession;
  await withAcp(server, "scout", async (ctx, seen) => {
    const init = await initialize(ctx);
    check(
      "initialize answers the protocol version, loadSession and the agent's name",
      init.protocolVersion === PROTOCOL_VERSION &&
        init.agentCapabilities?.loadSession === true &&
        init.agentInfo?.name === "pantheon/scout",
      shown(init),
    );

    const { sessionId } = await newSession(ctx);
    firstSession = sessionId;
    const sessions = (await api("/api/agents/scout/sessions")).sessions;
    check(
      "session/new makes a Pantheon session of the agent, titled after the folder",
      sessions.some((s) => s.id === sessionId && s.title === "acp: launch-site"),
      shown({ sessionId, sessions }),
    );

    const answered = await prompt(ctx, sessionId, "What is the launch code word?");
    const said = textOf(seen.updates);
    const stored = (await api(`/api/agents/scout/messages?session=${sessionId}`)).messages.find(
      (m) => m.role === "assistant",
    );
    check(
      "a prompt streams the reply as agent_message_chunk updates and ends the turn",
      answered.stopReason === "end_turn" &&
        seen.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length > 1 &&
        /pineapple/i.test(said) &&
        said.trim() === stored?.content.trim(),
      shown({ answered, said, stored }),
    );

    seen.updates.length = 0;
    const tooled = await prompt(ctx, sessionId, "/tool clock.now {}");
    const opened = seen.updates.find((u) => u.sessionUpdate === "tool_call");
    const statuses = seen.updates
      .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === opened?.toolCallId && u.status)
      .map((u) => u.status);
    const closed = seen.updates.find(
      (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === opened?.toolCallId && u.status === "completed",
    );
    const order = seen.updates
      .filter((u) => u.toolCallId === opened?.toolCallId && (u.sessionUpdate === "tool_call" || u.status))
      .map((u) => `${u.sessionUpdate}:${u.status}`);
    check(
      "a tool call shows, in this order, as tool_call (pending), then in_progress, then completed with its output",
      tooled.stopReason === "end_turn" &&
        opened?.title === "clock.now" &&
        opened.status === "pending" &&
        seen.updates.findIndex((u) => u.toolCallId) === seen.updates.indexOf(opened) &&
        order.join() === "tool_call:pending,tool_call_update:in_progress,tool_call_update:completed" &&
        statuses.join() === "in_progress,completed" &&
        /\d{4}-\d{2}-\d{2}T/.test(closed?.content?.[0]?.content?.text ?? ""),
      shown(seen.updates),
    );
  });

  await withAcp(server, "scout", async (ctx, seen) => {
    await initialize(ctx);
    await ctx.request(methods.agent.session.load, {
      sessionId: firstSession,
      cwd: "/home/dev/launch-site",
      mcpServers: [],
    });
    const users = textOf(seen.updates, "user_message_chunk");
    check(
      "session/load replays the session's conversation in order",
      users.startsWith("What is the launch code word?") &&
        users.includes("/tool clock.now {}") &&
        /pineapple/i.test(textOf(seen.updates)),
      shown(seen.updates),
    );
    const missing = await ctx
      .request(methods.agent.session.load, { sessionId: "no-such-session", cwd: "/x", mcpServers: [] })
      .then(
        () => null,
        (error) => error,
      );
    check(
      "session/load of a session the agent does not have is an error",
      missing !== null && /no-such-session|not found/i.test(String(missing?.message ?? missing)),
      shown(missing),
    );
  });

  // a permission request for an approval-gated tool, answered approve, then reject
  await withAcp(
    server,
    "guarded",
    async (ctx, seen) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx);
      const answered = await prompt(ctx, sessionId, "/tool clock.now {}");
      const asked = seen.permissions[0];
      const done = seen.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
      const runs = (await api("/api/agents/guarded/runs")).runs;
      check(
        "an approval-gated call is announced (tool_call, pending), waits (pending), then asks permission; approved it goes in_progress, then completed — in this order",
        seen.log.join() ===
          "tool_call:pending,tool_call_update:pending,permission:announced,tool_call_update:in_progress,tool_call_update:completed" &&
          seen.updates.find((u) => u.sessionUpdate === "tool_call")?.title === "clock.now",
        shown(seen.log),
      );
      check(
        "an approval-gated tool call asks session/request_permission; approving runs it and the turn ends",
        answered.stopReason === "end_turn" &&
          asked?.toolCall?.title === "clock.now" &&
          asked.options.map((o) => o.kind).join() === "allow_once,reject_once" &&
          /\d{4}-\d{2}-\d{2}T/.test(done?.content?.[0]?.content?.text ?? "") &&
          runs[0]?.status === "completed",
        shown({ answered, asked, updates: seen.updates, runs: runs.slice(0, 1) }),
      );
    },
    { onPermission: () => ({ outcome: { outcome: "selected", optionId: "approve" } }) },
  );

  await withAcp(
    server,
    "guarded",
    async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx);
      const answered = await prompt(ctx, sessionId, "/tool clock.now {}");
      const run = (await api("/api/agents/guarded/runs")).runs[0];
      const view = await api(`/api/agents/guarded/runs/${run.id}`);
      const decision = view.trace.find((s) => s.name === "approval")?.data;
      check(
        "rejecting the permission request rejects the call over the API",
        answered.stopReason === "end_turn" && decision?.approved === false,
        shown({ answered, decision }),
      );
    },
    { onPermission: () => ({ outcome: { outcome: "selected", optionId: "reject" } }) },
  );

  // cancel while the permission request is open: the run is cancelled, the turn stops "cancelled"
  await withAcp(
    server,
    "guarded",
    async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx);
      const answered = await prompt(ctx, sessionId, "/tool clock.now {}");
      const run = (await api("/api/agents/guarded/runs")).runs[0];
      check(
        "session/cancel during a turn cancels its run and the prompt stops as cancelled",
        answered.stopReason === "cancelled" && run?.status === "cancelled",
        shown({ answered, run }),
      );
    },
    {
      onPermission: async (params, ctx) => {
        await ctx.notify(methods.agent.session.cancel, { sessionId: params.sessionId });
        return { outcome: { outcome: "cancelled" } };
      },
    },
  );

  // a chat token may talk through ACP, not approve
  const chatToken = (
    await api("/api/tokens", { method: "POST", body: JSON.stringify({ name: "editor", scope: "chat" }) })
  ).token;
  await withAcp(
    server,
    "guarded",
    async (ctx, seen) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx);
      const answered = await prompt(ctx, sessionId, "/tool clock.now {}");
      const run = (await api("/api/agents/guarded/runs")).runs[0];
      check(
        "with a chat token, approving is refused: the turn says so and the run keeps waiting",
        answered.stopReason === "end_turn" &&
          /approve' scope/.test(textOf(seen.updates)) &&
          run?.status === "waiting_approval",
        shown({ answered, said: textOf(seen.updates), run }),
      );
    },
    { cliToken: chatToken, onPermission: () => ({ outcome: { outcome: "selected", optionId: "approve" } }) },
  );

  // a wrong token or agent is refused at initialize
  const refused = await withAcp(server, "nobody-here", (ctx) =>
    initialize(ctx).then(
      () => null,
      (error) => error,
    ),
  );
  check(
    "initialize for an agent that does not exist is an error in every door's words, with the hint",
    refused !== null &&
      String(refused?.message).includes("agent 'nobody-here' does not exist in project 'default'") &&
      refused?.data?.hint === "pantheon agents list",
    shown(refused),
  );
} catch (error) {
  check("the ACP check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();

// `pantheon chat`, `pantheon history`, `pantheon sessions`
import { ApiError, param, readEvents, UsageError } from "../client.mjs";
import { oneLine, printJson, table, time } from "../format.mjs";

async function readStdin() {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}

const note = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);

export const chat = {
  name: "chat",
  summary: "send a message to an agent and stream its reply",
  usage: ['pantheon chat <agent> "<message>" [--session <id>]', "echo '<message>' | pantheon chat <agent> -"],
  options: { session: { type: "string", help: "the session (conversation) to talk in; default: the agent's default session" } },
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send, reach }, args, values, json }) {
    const [agent, given] = args;
    if (!agent) throw new UsageError("name the agent to talk to", "chat");
    const content = given === undefined || given === "-" ? (process.stdin.isTTY ? "" : await readStdin()) : args.slice(1).join(" ");
    if (!content) throw new UsageError("write a message: pantheon chat <agent> \"<message>\"", "chat");
    const input = { content, ...(values.session ? { session: values.session } : {}) };
    const messages = api.api.agents[":name"].messages;
    if (json) return printJson(await send(messages.$post({ ...param({ name: agent }), json: input })));

    const res = await reach(messages.$post({ ...param({ name: agent }), json: input }, { headers: { accept: "text/event-stream" } }));
    // Text a model writes before it calls a tool is not the reply; what was printed since the
    // last tool call is compared with the stored reply at the end, and any missing tail printed.
    let sinceTool = "";
    let printed = false;
    for await (const { event, data } of readEvents(res)) {
      if (event === "token") {
        process.stdout.write(data.text);
        sinceTool += data.text;
        printed = true;
      } else if (event === "tool_call") {
        if (printed) process.stdout.write("\n");
        sinceTool = "";
        printed = false;
        note(`  → ${data.name} ${oneLine(data.arguments, 80)}`);
      } else if (event === "gate" && !data.allow) {
        note(`  ✗ gate ${data.gate} stopped ${data.callId}${data.reason ? `: ${data.reason}` : ""}`);
      } else if (event === "tool_result") {
        note(`  ← ${data.name} ${data.ok ? "ok" : `failed: ${oneLine(data.error, 80)}`} (${data.ms} ms)`);
      } else if (event === "error") {
        if (printed) process.stdout.write("\n");
        throw new ApiError(500, { code: data.code, message: data.message });
      } else if (event === "done") {
        const reply = data.reply?.content;
        if (reply && reply.startsWith(sinceTool) && reply.length > sinceTool.length) {
          process.stdout.write(reply.slice(sinceTool.length));
          printed = true;
        }
        if (printed) process.stdout.write("\n");
        if (data.status === "waiting_approval") {
          note(`Waiting for approval (run ${data.runId}). Decide with: pantheon approve ${agent} ${data.runId}   or   pantheon reject ${agent} ${data.runId}`);
        } else if (data.status !== "completed") {
          throw new ApiError(500, { code: `run_${data.status}`, message: `run ${data.runId} ended ${data.status}; see: pantheon trace ${agent} ${data.runId}` });
        }
        return;
      }
    }
    throw new ApiError(500, { code: "stream_ended", message: "the reply stream ended before the run finished; see: pantheon runs " + agent });
  },
};

/** @param {{ role: string, name?: string, content: string, toolCalls?: { name: string, arguments: unknown }[] }} message */
function describe(message) {
  if (message.role === "tool") return `${message.name ?? "tool"} → ${oneLine(message.content, 200)}`;
  const calls = (message.toolCalls ?? []).map((c) => `${c.name}(${oneLine(c.arguments, 60)})`).join(", ");
  return [message.content, calls && `[calls ${calls}]`].filter(Boolean).join(" ");
}

export const history = {
  name: "history",
  summary: "show an agent's conversation, oldest first",
  usage: ["pantheon history <agent> [--session <id>] [--limit <n>]"],
  options: {
    session: { type: "string", help: "which session; default: the agent's default session" },
    limit: { type: "string", help: "how many of the latest messages (1-200, default 50)" },
  },
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, args, values, json }) {
    const [agent] = args;
    if (!agent) throw new UsageError("name the agent", "history");
    const query = { ...(values.session ? { session: values.session } : {}), ...(values.limit ? { limit: values.limit } : {}) };
    const body = await send(api.api.agents[":name"].messages.$get({ ...param({ name: agent }), query }));
    if (json) return printJson(body);
    if (!body.messages.length) return console.log(`No messages yet. Say hello: pantheon chat ${agent} "hello"`);
    for (const m of [...body.messages].reverse()) console.log(`${time(m.createdAt)}  ${m.role.padEnd(9)} ${describe(m)}`);
    if (body.nextCursor) note(`(older messages exist: raise --limit to see more)`);
  },
};

export const sessions = {
  name: "sessions",
  summary: "list an agent's sessions (conversations)",
  usage: ["pantheon sessions <agent>"],
  options: {},
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, args, json }) {
    const [agent] = args;
    if (!agent) throw new UsageError("name the agent", "sessions");
    const body = await send(api.api.agents[":name"].sessions.$get(param({ name: agent })));
    if (json) return printJson(body);
    console.log(table(["ID", "TITLE", "UPDATED", ""], body.sessions.map((s) => [s.id, s.title, time(s.updatedAt), s.isDefault ? "(default)" : s.forkedFrom ? `(fork of ${s.forkedFrom.sessionId})` : ""])));
  },
};

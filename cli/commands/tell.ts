// `pantheon tell` (one turn, streamed), `pantheon history`, `pantheon sessions`
import { ApiError, param, UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { note, oneLine, printJson, table, time } from "../format.ts";
import { streamTurn } from "./turn.ts";

async function readStdin(): Promise<string> {
  let all = "";
  for await (const chunk of process.stdin) all += chunk;
  return all.trim();
}

export const tell: Command = {
  name: "tell",
  summary: "send one message to an agent and stream its reply (tool calls on stderr)",
  actions: [
    {
      name: "",
      summary: "send one message to an agent and stream its reply (tool calls on stderr)",
      usage: ['<agent> "<message>" [--session <id>]', "<agent> - < message.txt"],
      options: {
        session: {
          type: "string",
          help: "the session (conversation) to talk in; default: the agent's default session",
        },
      },
      async run({ client, args, values, json }) {
        const [agent, given] = args;
        if (!agent) throw new UsageError("name the agent to talk to", "tell");
        const content =
          given === undefined || given === "-"
            ? process.stdin.isTTY
              ? ""
              : await readStdin()
            : args.slice(1).join(" ");
        if (!content) throw new UsageError('write a message: pantheon tell <agent> "<message>"', "tell");
        const session = text(values, "session");
        const input = { content, ...(session ? { session } : {}) };
        if (json)
          return printJson(
            await client.send(
              client.api.api.agents[":name"].messages.$post({ ...param({ name: agent }), json: input }),
            ),
          );
        const end = await streamTurn(client, agent, input, {
          text: (chunk) => void process.stdout.write(chunk),
          line: note,
        });
        if (end.status === "waiting_approval") {
          note(
            `Waiting for approval (run ${end.runId}). Decide with: pantheon runs approve ${agent} ${end.runId}   or   pantheon runs reject ${agent} ${end.runId}`,
          );
        } else if (end.status === "waiting_agent") {
          note(
            `Waiting for another agent's answer (run ${end.runId}); the reply will be in: pantheon history ${agent}`,
          );
        } else if (end.status !== "completed") {
          throw new ApiError(500, {
            code: `run_${end.status}`,
            message: `run ${end.runId} ended ${end.status}; see: pantheon runs show ${agent} ${end.runId}`,
          });
        }
      },
    },
  ],
};

/** One stored message as a line: its text, or what a tool answered, and the calls it made. */
export function describe(message: {
  role: string;
  name?: string | null;
  content: string;
  toolCalls?: { name: string; arguments: unknown }[] | null;
}): string {
  if (message.role === "tool") return `${message.name ?? "tool"} → ${oneLine(message.content, 200)}`;
  const calls = (message.toolCalls ?? []).map((c) => `${c.name}(${oneLine(c.arguments, 60)})`).join(", ");
  return [message.content, calls && `[calls ${calls}]`].filter(Boolean).join(" ");
}

export const history: Command = {
  name: "history",
  summary: "show an agent's conversation, oldest first",
  actions: [
    {
      name: "",
      summary: "show an agent's conversation, oldest first",
      usage: ["<agent> [--session <id>] [--limit <n>]"],
      options: {
        session: { type: "string", help: "which session; default: the agent's default session" },
        limit: { type: "string", help: "how many of the latest messages (1-200, default 50)" },
      },
      async run({ client: { api, send }, args, values, json }) {
        const [agent] = args;
        if (!agent) throw new UsageError("name the agent", "history");
        const session = text(values, "session");
        const limit = text(values, "limit");
        const body = await send(
          api.api.agents[":name"].messages.$get({
            ...param({ name: agent }),
            query: { ...(session ? { session } : {}), ...(limit ? { limit } : {}) },
          }),
        );
        if (json) return printJson(body);
        if (!body.messages.length) return console.log(`No messages yet. Say hello: pantheon tell ${agent} "hello"`);
        for (const m of [...body.messages].reverse())
          console.log(`${time(m.createdAt)}  ${m.role.padEnd(9)} ${describe(m)}`);
        if (body.nextCursor) note("(older messages exist: raise --limit to see more)");
      },
    },
  ],
};

export const sessions: Command = {
  name: "sessions",
  summary: "list an agent's sessions (conversations)",
  actions: [
    {
      name: "",
      summary: "list an agent's sessions (conversations)",
      usage: ["<agent>"],
      async run({ client: { api, send }, args, json }) {
        const [agent] = args;
        if (!agent) throw new UsageError("name the agent", "sessions");
        const body = await send(api.api.agents[":name"].sessions.$get(param({ name: agent })));
        if (json) return printJson(body);
        console.log(
          table(
            ["ID", "TITLE", "UPDATED", ""],
            body.sessions.map((s) => [
              s.id,
              s.title,
              time(s.updatedAt),
              s.isDefault ? "(default)" : s.forkedFrom ? `(fork of ${s.forkedFrom.sessionId})` : "",
            ]),
          ),
        );
      },
    },
  ],
};

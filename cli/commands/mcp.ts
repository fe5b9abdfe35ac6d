// `pantheon mcp list | add | remove`: an agent's remote MCP servers (GET/POST/DELETE /api/agents/:name/mcp).
// A server that wants OAuth, or needs authorising again, is listed with the URL a person opens to authorise it.
import { need } from "../arguments.ts";
import { text, type Command } from "../command.ts";
import { note, printJson, table } from "../format.ts";

interface ServerView {
  id: string;
  url: string;
  state: string;
  error: string | null;
  tools: { name: string }[];
  authUrl?: string;
}

const path = (agent: string) => `/api/agents/${encodeURIComponent(agent)}/mcp`;

/** What the person reads for a state: "needs authorising again" rather than the API's value. */
const stateText = (server: ServerView) =>
  server.state === "needs_reauthorization" ? "needs authorising again" : server.state;

function printAuthorise(server: ServerView): void {
  if (server.authUrl) note(`authorise '${server.id}' by opening: ${server.authUrl}`);
}

export const mcp: Command = {
  name: "mcp",
  summary: "an agent's remote MCP servers: list them (with the URL to authorise any waiting for a person), add, remove",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "the agent's MCP servers: state, tools, and the URL to open for one waiting to be authorised",
      usage: ["<agent>"],
      async run({ client: { request }, args, json }) {
        const agent = need(args, 0, "agent", "mcp");
        const body = await request<{ servers: ServerView[] }>("GET", path(agent));
        if (json) return printJson(body);
        console.log(
          table(
            ["SERVER", "STATE", "TOOLS", "URL"],
            body.servers.map((s) => [s.id, stateText(s), String(s.tools.length), s.url]),
          ),
        );
        for (const server of body.servers) {
          if (server.error) note(`${server.id}: ${server.error}`);
          printAuthorise(server);
        }
      },
    },
    {
      name: "add",
      summary: "connects a server by URL; one that wants OAuth answers the URL a person opens to authorise it",
      usage: ["<agent> <name> <url> [--bearer-secret NAME]"],
      options: {
        "bearer-secret": { type: "string", help: "a project secret sent as `Authorization: Bearer <value>`" },
      },
      async run({ client: { request }, args, values, json }) {
        const agent = need(args, 0, "agent", "mcp");
        const name = need(args, 1, "name", "mcp");
        const url = need(args, 2, "url", "mcp");
        const secret = text(values as never, "bearer-secret");
        const server = await request<ServerView>("POST", path(agent), {
          json: {
            name,
            url,
            ...(secret ? { headers: { Authorization: { secret, prefix: "Bearer " } } } : {}),
          },
        });
        if (json) return printJson(server);
        console.log(`${server.id}: ${stateText(server)}, ${server.tools.length} tools`);
        printAuthorise(server);
      },
    },
    {
      name: "remove",
      summary: "disconnects a server and forgets its tokens and headers",
      usage: ["<agent> <name>"],
      async run({ client: { request }, args }) {
        const agent = need(args, 0, "agent", "mcp");
        const name = need(args, 1, "name", "mcp");
        await request("DELETE", `${path(agent)}/${encodeURIComponent(name)}`);
        console.log(`removed ${name}`);
      },
    },
  ],
};

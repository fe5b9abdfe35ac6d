// `pantheon mcp list | add | remove`: an agent's remote MCP servers (GET/POST/DELETE /api/agents/:name/mcp).
// A server that wants OAuth, or needs authorising again, is listed with the URL a person opens to authorise it.
// With --project-wide: the project's servers, for all its agents (GET/POST/DELETE /api/projects/:slug/mcp).
import { need } from "../arguments.ts";
import { text, type Command, type Context } from "../command.ts";
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
/** The project's servers (the global --project, else the login's, else `default`). */
const projectPath = (context: Context) =>
  `/api/projects/${encodeURIComponent(text(context.values, "project") ?? context.config.project ?? "default")}/mcp`;
const wide = (context: Context) => context.values["project-wide"] === true;
const projectWide = {
  "project-wide": { type: "boolean" as const, help: "the project's servers, for all its agents, not one agent's" },
};

interface ProjectServer {
  name: string;
  url: string;
  headers: Record<string, string | { secret: string }>;
}

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
      usage: ["<agent>", "--project-wide"],
      options: projectWide,
      async run(context) {
        const {
          client: { request },
          args,
          json,
        } = context;
        if (wide(context)) {
          const body = await request<{ servers: ProjectServer[] }>("GET", projectPath(context));
          if (json) return printJson(body);
          return console.log(
            table(
              ["SERVER", "URL"],
              body.servers.map((s) => [s.name, s.url]),
            ),
          );
        }
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
      usage: ["<agent> <name> <url> [--bearer-secret NAME]", "--project-wide <name> <url> [--bearer-secret NAME]"],
      options: {
        "bearer-secret": { type: "string", help: "a project secret sent as `Authorization: Bearer <value>`" },
        ...projectWide,
      },
      async run(context) {
        const {
          client: { request },
          args,
          values,
          json,
        } = context;
        if (wide(context)) {
          const [name, url] = [need(args, 0, "name", "mcp"), need(args, 1, "url", "mcp")];
          const secret = text(values as never, "bearer-secret");
          const body = await request<{ server: ProjectServer }>("POST", projectPath(context), {
            json: { name, url, ...(secret ? { headers: { Authorization: { secret, prefix: "Bearer " } } } : {}) },
          });
          if (json) return printJson(body);
          return console.log(
            `${body.server.name}: declared for every agent of the project (each connects it before its next turn)`,
          );
        }
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
      usage: ["<agent> <name>", "--project-wide <name>"],
      options: projectWide,
      async run(context) {
        const {
          client: { request },
          args,
        } = context;
        if (wide(context)) {
          const name = need(args, 0, "name", "mcp");
          await request("DELETE", `${projectPath(context)}/${encodeURIComponent(name)}`);
          return console.log(`removed ${name} from the project`);
        }
        const agent = need(args, 0, "agent", "mcp");
        const name = need(args, 1, "name", "mcp");
        await request("DELETE", `${path(agent)}/${encodeURIComponent(name)}`);
        console.log(`removed ${name}`);
      },
    },
  ],
};

// `pantheon mcp list | add | remove`: an agent's remote MCP servers (GET/POST/DELETE /api/agents/:name/mcp).
// A server that wants OAuth, or needs authorising again, is listed with the URL a person opens to authorise it.
// With --project-wide: the project's servers, for all its agents (GET/POST/DELETE /api/projects/:slug/mcp);
// one with --oauth is authorised once for the project (`pantheon mcp authorise --project-wide <name>` again).
import { need } from "../arguments.ts";
import { UsageError } from "../client.ts";
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
  oauth?: true;
  authorisation?: Authorisation;
}
type Authorisation = { state: string; authUrl?: string; reason?: string };

/** A project's server's authorisation as the person reads it. */
const authorisationText = (server: ProjectServer) =>
  !server.authorisation
    ? "-"
    : server.authorisation.state === "needs_reauthorization"
      ? `needs authorising again (${server.authorisation.reason})`
      : server.authorisation.state;
function printProjectAuthorise(name: string, authorisation?: Authorisation): void {
  if (authorisation?.authUrl) note(`authorise '${name}' for the project by opening: ${authorisation.authUrl}`);
  else if (authorisation?.state === "needs_reauthorization")
    note(`'${name}' needs authorising again: pantheon mcp authorise --project-wide ${name}`);
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
          console.log(
            table(
              ["SERVER", "AUTHORISED", "URL"],
              body.servers.map((s) => [s.name, authorisationText(s), s.url]),
            ),
          );
          for (const server of body.servers) printProjectAuthorise(server.name, server.authorisation);
          return;
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
      usage: [
        "<agent> <name> <url> [--bearer-secret NAME]",
        "--project-wide <name> <url> [--bearer-secret NAME | --oauth]",
      ],
      options: {
        "bearer-secret": { type: "string", help: "a project secret sent as `Authorization: Bearer <value>`" },
        oauth: {
          type: "boolean",
          help: "with --project-wide: authorised once by OAuth for every agent of the project",
        },
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
          const body = await request<{ server: ProjectServer; authorisation?: Authorisation }>(
            "POST",
            projectPath(context),
            {
              json: {
                name,
                url,
                ...(secret ? { headers: { Authorization: { secret, prefix: "Bearer " } } } : {}),
                ...(values.oauth === true ? { oauth: true } : {}),
              },
            },
          );
          if (json) return printJson(body);
          console.log(
            `${body.server.name}: declared for every agent of the project (each connects it before its next turn)`,
          );
          return printProjectAuthorise(body.server.name, body.authorisation);
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
      name: "authorise",
      summary: "the URL an admin opens to authorise (again) one of the project's servers for all its agents",
      usage: ["--project-wide <name>"],
      options: projectWide,
      async run(context) {
        const name = need(context.args, 0, "name", "mcp");
        if (!wide(context))
          throw new UsageError(
            "authorise is for the project's servers (--project-wide); an agent's own server lists its URL in `pantheon mcp list <agent>`",
            "mcp",
          );
        const body = await context.client.request<Authorisation>(
          "POST",
          `${projectPath(context)}/${encodeURIComponent(name)}/authorise`,
        );
        if (context.json) return printJson(body);
        if (body.state === "authorised") return console.log(`${name}: authorised for the project`);
        printProjectAuthorise(name, body);
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

// `pantheon tokens list | create | delete`, `pantheon health`
import { param, UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { printJson, table, time } from "../format.ts";
import { need } from "../arguments.ts";

const scopes = ["chat", "approve", "admin"] as const;

export const tokens: Command = {
  name: "tokens",
  summary: "the project's API tokens and their scopes (chat < approve < admin)",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "every token with its scope, whose device it is (invited people) and when it was last used",
      usage: [""],
      async run({ client: { api, send }, json }) {
        const body = await send(api.api.tokens.$get());
        if (json) return printJson(body);
        if (!body.tokens.length)
          return console.log(
            "No API tokens. Create one with: pantheon tokens create <name> --scope chat|approve|admin",
          );
        // A person's device token (made by an invite) says whose device it is.
        console.log(
          table(
            ["ID", "NAME", "SCOPE", "DEVICE OF", "CREATED", "LAST USED"],
            body.tokens.map((t) => [
              t.id,
              t.name,
              t.scope,
              t.person ? `${t.person}${t.device ? ` (${t.device})` : ""}` : "-",
              time(t.createdAt),
              time(t.lastUsedAt),
            ]),
          ),
        );
      },
    },
    {
      name: "create",
      summary: "a new token, shown once (only its SHA-256 is stored)",
      usage: ["<name> [--scope chat|approve|admin]"],
      options: {
        scope: {
          type: "string",
          help: "chat (talk, read history and runs; the default), approve (chat + decide approvals) or admin (everything)",
        },
      },
      async run({ client: { api, send }, args, values, json }) {
        const name = need(args, 0, "token (who or what will use it)", "tokens");
        const scope = text(values, "scope");
        if (scope !== undefined && !(scopes as readonly string[]).includes(scope))
          throw new UsageError(`--scope is one of ${scopes.join(", ")}, got '${scope}'`, "tokens");
        const created = await send(
          api.api.tokens.$post({ json: { name, ...(scope ? { scope: scope as (typeof scopes)[number] } : {}) } }),
        );
        if (json) return printJson(created);
        console.log(
          `Created token '${created.name}' (id ${created.id}, scope ${created.scope}). It is shown only this once:\n\n  ${created.token}\n`,
        );
      },
    },
    {
      name: "delete",
      summary: "stop a token at once (its open sockets close)",
      usage: ["<id>"],
      async run({ client: { api, send }, args, json }) {
        const id = need(args, 0, "token's id (pantheon tokens list shows it)", "tokens");
        await send(api.api.tokens[":id"].$delete(param({ id })));
        if (json) return printJson({ deleted: id });
        console.log(`Deleted token ${id}: it no longer works, and its open sockets are closed.`);
      },
    },
  ],
};

export const health: Command = {
  name: "health",
  summary: "check that the server answers (no token needed)",
  actions: [
    {
      name: "",
      summary: "check that the server answers (no token needed)",
      usage: [""],
      async run({ client: { api, send, url }, json }) {
        const body = await send(api.api.health.$get());
        if (json) return printJson(body);
        console.log(`ok: Pantheon ${body.version} at ${url}`);
      },
    },
  ],
};

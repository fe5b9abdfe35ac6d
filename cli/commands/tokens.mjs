// `pantheon tokens list | create | delete`, `pantheon health`
import { param, UsageError } from "../client.mjs";
import { printJson, table, time } from "../format.mjs";

export const tokens = {
  name: "tokens",
  summary: "list, create and delete API tokens of the project",
  usage: ["pantheon tokens list", "pantheon tokens create <name> [--scope chat|approve|admin]", "pantheon tokens delete <id>"],
  options: {
    scope: { type: "string", help: "what the token may do: chat (talk, read history and runs; the default), approve (chat + decide approvals) or admin (everything)" },
  },
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, args, values, json }) {
    const [action = "list", arg] = args;
    if (action === "list") {
      const body = await send(api.api.tokens.$get());
      if (json) return printJson(body);
      if (!body.tokens.length) return console.log("No API tokens. Create one with: pantheon tokens create <name>");
      console.log(table(["ID", "NAME", "SCOPE", "CREATED", "LAST USED"], body.tokens.map((t) => [t.id, t.name, t.scope, time(t.createdAt), time(t.lastUsedAt)])));
      return;
    }
    if (action === "create") {
      if (!arg) throw new UsageError("name the token (who or what will use it)", "tokens");
      const created = await send(api.api.tokens.$post({ json: { name: arg, ...(values.scope ? { scope: values.scope } : {}) } }));
      if (json) return printJson(created);
      console.log(`Created token '${created.name}' (id ${created.id}, scope ${created.scope}). It is shown only this once:\n\n  ${created.token}\n`);
      return;
    }
    if (action === "delete") {
      if (!arg) throw new UsageError("give the token's id (pantheon tokens list shows it)", "tokens");
      await send(api.api.tokens[":id"].$delete(param({ id: arg })));
      if (json) return printJson({ deleted: arg });
      console.log(`Deleted token ${arg}: it no longer works, and its open sockets are closed.`);
      return;
    }
    throw new UsageError(`unknown action '${action}': use list, create or delete`, "tokens");
  },
};

export const health = {
  name: "health",
  summary: "check that the server answers (no token needed)",
  usage: ["pantheon health"],
  options: {},
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send, url }, json }) {
    const body = await send(api.api.health.$get());
    if (json) return printJson(body);
    console.log(`ok: Pantheon ${body.version} at ${url}`);
  },
};

// `pantheon agents list | get | create | delete`
import { param, UsageError } from "../client.mjs";
import { fields, oneLine, printJson, table, time } from "../format.mjs";

/**
 * `provider:name` → `{ provider, name }`; the name may itself contain ':' (fine-tuned model ids do).
 * @param {string} text
 */
export function parseModel(text) {
  const at = text.indexOf(":");
  if (at <= 0 || at === text.length - 1) throw new UsageError(`--model takes provider:name (for example openai:gpt-4o-mini or offline:offline), got '${text}'`, "agents");
  return { provider: text.slice(0, at), name: text.slice(at + 1) };
}

/** @param {{ provider: string, name: string } | undefined} model */
const modelText = (model) => (model ? `${model.provider}:${model.name}` : "-");

/**
 * @param {string[]} args
 * @param {number} index
 * @param {string} what
 */
function need(args, index, what) {
  const value = args[index];
  if (!value) throw new UsageError(`name the ${what}`, "agents");
  return value;
}

export const agents = {
  name: "agents",
  summary: "list, show, create and delete agents",
  usage: [
    "pantheon agents list",
    "pantheon agents get <name>",
    "pantheon agents create <name> [--description <text>] [--system-prompt <text>] [--model provider:name]",
    "pantheon agents delete <name>",
  ],
  options: {
    description: { type: "string", help: "what the agent is for (create)" },
    "system-prompt": { type: "string", help: "the agent's instructions (create)" },
    model: { type: "string", help: "provider:name, e.g. openai:gpt-4o-mini (create; default: the server's PANTHEON_DEFAULT_PROVIDER, offline locally)" },
  },
  /** @param {import("../client.mjs").CommandContext} context */
  async run({ client: { api, send }, args, values, json }) {
    const [action = "list"] = args;
    if (action === "list") {
      const body = await send(api.api.agents.$get());
      if (json) return printJson(body);
      if (!body.agents.length) return console.log("No agents yet. Create one with: pantheon agents create <name>");
      console.log(table(["NAME", "STATUS", "MODEL", "LAST ACTIVITY", "DESCRIPTION"], body.agents.map((a) => [a.name, a.status, modelText(a.model), time(a.lastActivityAt), oneLine(a.description, 50)])));
      return;
    }
    if (action === "get") {
      const agent = await send(api.api.agents[":name"].$get(param({ name: need(args, 1, "agent") })));
      if (json) return printJson(agent);
      console.log(
        fields([
          ["name", agent.name],
          ["status", agent.status],
          ["model", modelText(agent.model)],
          ["answers here", agent.resolvedModel ? `${modelText(agent.resolvedModel)} (${agent.resolvedModel.status}: ${agent.resolvedModel.reason})` : undefined],
          ["description", agent.description || "-"],
          ["system prompt", agent.systemPrompt || "-"],
          ["tools", agent.runtime?.tools?.join(", ") || "-"],
          ["connections", agent.connections?.join(", ") || "-"],
          ["script", agent.script ? "yes (pantheon script get " + agent.name + ")" : "no"],
          ["created", time(agent.createdAt)],
          ["updated", time(agent.updatedAt)],
          ["last activity", time(agent.lastActivityAt)],
        ]),
      );
      return;
    }
    if (action === "create") {
      const name = need(args, 1, "agent to create");
      /** @type {import("hono/client").InferRequestType<typeof api.api.agents.$post>["json"]} */
      const input = { name };
      if (values.description !== undefined) input.description = values.description;
      if (values["system-prompt"] !== undefined) input.systemPrompt = values["system-prompt"];
      if (values.model !== undefined) input.model = parseModel(values.model);
      const agent = await send(api.api.agents.$post({ json: input }));
      if (json) return printJson(agent);
      console.log(`Created agent ${agent.name} (model ${modelText(agent.model)}). Talk to it: pantheon chat ${agent.name} "hello"`);
      return;
    }
    if (action === "delete") {
      const name = need(args, 1, "agent to delete");
      await send(api.api.agents[":name"].$delete(param({ name })));
      if (json) return printJson({ deleted: name });
      console.log(`Deleted agent ${name} and its memory.`);
      return;
    }
    throw new UsageError(`unknown action '${action}': use list, get, create or delete`, "agents");
  },
};

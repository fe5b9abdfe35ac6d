// `pantheon gateway telegram|email …`: an agent's messaging gateways (admin).
import { param, UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { fields, printJson } from "../format.ts";

/** `1,2, 3` → [1, 2, 3]; a word that is not a whole number is a usage error naming the option. */
function ids(value: string | undefined, option: string): number[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      if (!/^-?\d+$/.test(part))
        throw new UsageError(`--${option} takes Telegram ids separated by commas, got '${part}'`, "gateway");
      return Number(part);
    });
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`name the ${what}`, "gateway");
  return value;
}

export const gateway: Command = {
  name: "gateway",
  summary: "configure an agent's Telegram or email gateway, and register the Telegram webhook",
  actions: [
    {
      name: "",
      summary: "configure an agent's Telegram or email gateway, and register the Telegram webhook",
      usage: [
        "telegram set <agent> --approvers <ids> [--chats <ids>] [--bot-token-secret TELEGRAM_BOT_TOKEN]",
        "telegram set-webhook <agent> [--url <server's public base URL>] [--public-url <base Telegram should call, if not --url>]",
        "telegram show|remove <agent>",
        "email set <agent> --senders <addresses or @domains> [--from-name <name>]",
        "email show|remove <agent>",
      ],
      options: {
        "public-url": {
          type: "string",
          help: "set-webhook: the base URL Telegram should call when it is not the server URL (--url / PANTHEON_URL)",
        },
        approvers: {
          type: "string",
          help: "telegram set: Telegram user ids whose Approve/Reject buttons count, comma-separated",
        },
        chats: { type: "string", help: "telegram set: chat ids allowed to start runs (default: any chat)" },
        "bot-token-secret": {
          type: "string",
          help: "telegram set: the worker secret holding the bot token (default TELEGRAM_BOT_TOKEN)",
        },
        senders: {
          type: "string",
          help: "email set: allowed senders, comma-separated (ann@example.com, @example.com)",
        },
        "from-name": { type: "string", help: "email set: display name of replies (default: the agent's name)" },
      },
      async run({ client: { api, send, url }, args, values, json }) {
        const [kind, action, agent] = args;
        if (kind !== "telegram" && kind !== "email")
          throw new UsageError("say which gateway: telegram or email", "gateway");
        const routes = api.api.agents[":name"].gateways;
        const name = () => param({ name: need(agent, "agent") });
        const show = (body: Record<string, unknown>) =>
          json
            ? printJson(body)
            : console.log(
                fields(Object.entries(body).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") || "-" : String(v)])),
              );

        if (action === "show")
          return show(
            kind === "telegram" ? await send(routes.telegram.$get(name())) : await send(routes.email.$get(name())),
          );
        if (action === "remove") {
          if (kind === "telegram") await send(routes.telegram.$delete(name()));
          else await send(routes.email.$delete(name()));
          return json ? printJson({ removed: kind, agent }) : console.log(`Removed the ${kind} gateway of ${agent}.`);
        }
        if (action === "set" && kind === "telegram") {
          const approverUserIds = ids(text(values, "approvers") ?? "", "approvers") ?? [];
          const allowedChatIds = ids(text(values, "chats"), "chats");
          const body = {
            botTokenSecret: text(values, "bot-token-secret") ?? "TELEGRAM_BOT_TOKEN",
            approverUserIds,
            ...(allowedChatIds ? { allowedChatIds } : {}),
          };
          const saved = await send(routes.telegram.$put({ ...name(), json: body }));
          if (json) return printJson(saved);
          show(saved);
          if (!saved.botTokenPresent)
            console.log(
              `\nThe secret ${saved.botTokenSecret} is not set on the server yet: npx wrangler secret put ${saved.botTokenSecret} --env production`,
            );
          console.log(`\nNext: pantheon gateway telegram set-webhook ${agent} --url <public base URL>`);
          return;
        }
        if (action === "set-webhook" && kind === "telegram") {
          // The server the CLI talks to (--url) is normally the public base Telegram calls.
          const base = text(values, "public-url") ?? url;
          if (!/^https:\/\//.test(base))
            console.error(`Note: Telegram calls only https URLs; ${base} is not one (pass --public-url).`);
          const result = await send(routes.telegram.webhook.$post({ ...name(), json: { url: base } }));
          return json
            ? printJson(result)
            : console.log(
                `Telegram now posts ${agent}'s updates to ${result.webhookUrl} (with its secret token; the bot token never left the server).`,
              );
        }
        if (action === "set" && kind === "email") {
          const allowedSenders = (text(values, "senders") ?? "")
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean);
          const fromName = text(values, "from-name");
          const saved = await send(
            routes.email.$put({ ...name(), json: { allowedSenders, ...(fromName ? { fromName } : {}) } }),
          );
          return show(saved);
        }
        throw new UsageError(
          `unknown action '${action ?? ""}' for ${kind}: use ${kind === "telegram" ? "set, set-webhook, show or remove" : "set, show or remove"}`,
          "gateway",
        );
      },
    },
  ],
};

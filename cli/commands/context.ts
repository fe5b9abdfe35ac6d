// `pantheon context preview <agent> "<text>"`: exactly what the model would see for a message.
import { param, UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { oneLine, printJson, table } from "../format.ts";
import { need } from "../arguments.ts";

export const context: Command = {
  name: "context",
  summary: "preview the context an agent would compile for a message (memories, scores, budget)",
  actions: [
    {
      name: "preview",
      summary: "the messages and every memory candidate with its source, scores, and why it was in or out",
      usage: ['<agent> "<text>" [--session <id>] [--max-tokens <n>]'],
      options: {
        session: { type: "string", help: "the session whose history counts (default: the agent's default session)" },
        "max-tokens": { type: "string", help: "a smaller budget than the agent's, to see what would be dropped" },
      },
      async run({ client: { api, send }, args, values, json }) {
        const name = need(args, 0, "agent", "context");
        const q = args.slice(1).join(" ");
        if (!q)
          throw new UsageError('write the message to preview: pantheon context preview <agent> "<text>"', "context");
        const session = text(values, "session");
        const maxTokens = text(values, "max-tokens");
        const body = await send(
          api.api.agents[":name"].context.$get({
            ...param({ name }),
            query: { q, ...(session ? { session } : {}), ...(maxTokens ? { maxTokens } : {}) },
          }),
        );
        if (json) return printJson(body);
        console.log(
          `Context for "${oneLine(q, 60)}": ${body.tokens.used} of ${body.tokens.budget} tokens, ${body.messages.length} messages.\n`,
        );
        console.log(
          table(
            ["ROLE", "CONTENT"],
            body.messages.map((m) => [m.role, oneLine(m.content, 100)]),
          ),
        );
        if (body.items.length) {
          console.log("");
          console.log(
            table(
              ["IN", "SOURCE", "ID", "SCORE", "WHY", "TEXT"],
              body.items.map((i) => [
                i.included ? "yes" : "no",
                i.source,
                i.id,
                i.scores.final.toFixed(3),
                i.reason,
                oneLine(i.text, 60),
              ]),
            ),
          );
        }
      },
    },
  ],
};

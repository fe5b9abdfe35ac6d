// `pantheon invite <name> [--scope …] [--expires …]`, `pantheon invite list | withdraw`
import { param, UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { printJson, table, time } from "../format.ts";
import { joinLink } from "../../core/invites/people.ts";
import { qrModules, qrTerminal } from "../../core/invites/qr.ts";
import { need } from "../arguments.ts";

const scopes = ["chat", "approve", "admin"] as const;
const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * `90s`, `30m`, `24h`, `7d` or plain seconds, in seconds.
 * @example
 * durationSeconds("2h") // 7200
 */
export function durationSeconds(value: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (!match) return null;
  return Number(match[1]) * (units[match[2] || "s"] ?? 1);
}

/** The QR code for a terminal: light modules as blocks; on a terminal, pinned to white on black so it scans on any theme. */
function printQr(link: string): void {
  const blocks = qrTerminal(qrModules(link));
  const tty = process.stdout.isTTY === true;
  console.log(
    tty
      ? blocks
          .split("\n")
          .map((line) => `\x1b[97;40m${line}\x1b[0m`)
          .join("\n")
      : blocks,
  );
}

export const invite: Command = {
  name: "invite",
  summary: "invite a person by name: a one-time sign-in link (and its QR code) for their phone",
  defaultAction: "create",
  actions: [
    {
      name: "create",
      summary: "a one-time sign-in link for a person, with its QR code; opening it signs one device in as them",
      usage: ["<name> [--scope chat|approve|admin] [--expires 24h] [--origin <url>]"],
      options: {
        scope: {
          type: "string",
          help: "chat (talk, read, comment; the default), approve (chat + decide approvals and answer tasks) or admin (everything)",
        },
        expires: { type: "string", help: "how long the link works: 30m, 24h (the default), 7d at most" },
        origin: {
          type: "string",
          help: "the address the phone opens, when it is not the one the CLI talks to (a tunnel, a public host)",
        },
      },
      async run({ client: { api, send }, args, values, json }) {
        const name = need(args, 0, "person (e.g. pantheon invite ana --scope approve)", "invite");
        if (args.length > 1)
          throw new UsageError(
            `one name at a time; quote a name with spaces: pantheon invite "${args.join(" ")}"`,
            "invite",
          );
        const scope = text(values, "scope");
        if (scope !== undefined && !(scopes as readonly string[]).includes(scope))
          throw new UsageError(`--scope is one of ${scopes.join(", ")}, got '${scope}'`, "invite");
        const expires = text(values, "expires");
        const expiresIn = expires === undefined ? undefined : durationSeconds(expires);
        if (expiresIn === null)
          throw new UsageError(`--expires is a duration such as 30m, 24h or 7d, got '${expires}'`, "invite");
        const origin = text(values, "origin");
        if (origin !== undefined && !/^https?:\/\/[^/]+/.test(origin))
          throw new UsageError(`--origin is a URL such as https://pantheon.example.com, got '${origin}'`, "invite");
        const made = await send(
          api.api.invites.$post({
            json: {
              name,
              ...(scope ? { scope: scope as (typeof scopes)[number] } : {}),
              ...(expiresIn !== undefined ? { expiresIn } : {}),
            },
          }),
        );
        const link = origin ? joinLink(new URL(origin).origin, made.code, made.project) : made.link;
        if (json) return printJson({ ...made, link });
        console.log(
          `Invited ${made.name} (scope ${made.scope}). This link signs in one device, once, until ${time(made.expiresAt)}:\n\n  ${link}\n`,
        );
        printQr(link);
        console.log(
          `\nOpen it on their phone, or let them scan the code. Their device gets its own token: pantheon tokens list shows it, pantheon tokens delete <id> signs it out.`,
        );
      },
    },
    {
      name: "list",
      summary: "invites waiting to be used",
      usage: [""],
      async run({ client: { api, send }, json }) {
        const body = await send(api.api.invites.$get());
        if (json) return printJson(body);
        if (!body.invites.length)
          return console.log(
            "No invites waiting. Invite someone with: pantheon invite <name> --scope chat|approve|admin",
          );
        console.log(
          table(
            ["ID", "NAME", "SCOPE", "CREATED", "EXPIRES"],
            body.invites.map((i) => [i.id, i.name, i.scope, time(i.createdAt), time(i.expiresAt)]),
          ),
        );
      },
    },
    {
      name: "withdraw",
      summary: "stop an invite's link before it is used",
      usage: ["<id>"],
      async run({ client: { api, send }, args, json }) {
        const id = need(args, 0, "invite's id (pantheon invite list shows it)", "invite");
        await send(api.api.invites[":id"].$delete(param({ id })));
        if (json) return printJson({ withdrawn: id });
        console.log(`Withdrew invite ${id}: its link no longer works.`);
      },
    },
  ],
};

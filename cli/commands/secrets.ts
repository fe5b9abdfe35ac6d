// `pantheon secrets list | set | delete | grant | revoke`: the current project's secrets (admin): what
// HTTP tools and A2A agents send in headers and Telegram gateways use as bot tokens.
// A value is typed at a hidden prompt or piped on stdin, never given as an argument (it would stay
// in the shell's history and the process list), and the server never shows it again.
import password from "@inquirer/password";
import { UsageError } from "../client.ts";
import { text, type Command, type Context } from "../command.ts";
import { printJson, table, time } from "../format.ts";
import { need } from "../arguments.ts";

interface SecretView {
  name: string;
  updatedAt: number;
  fingerprint: string;
}

const current = (context: Context) => text(context.values, "project") ?? context.config.project ?? "default";
const secretsPath = (slug: string) => `/api/projects/${encodeURIComponent(slug)}/secrets`;
const grantsPath = (slug: string) => `/api/projects/${encodeURIComponent(slug)}/grants`;

async function readStdin(): Promise<string> {
  let all = "";
  for await (const chunk of process.stdin) all += chunk;
  return all;
}

/** The value: typed (hidden) at a terminal, else read whole from stdin, its one trailing newline dropped. */
async function valueToSet(name: string): Promise<string> {
  const value = process.stdin.isTTY
    ? await password({ message: `Value of ${name} (hidden):`, mask: "•" })
    : (await readStdin()).replace(/\r?\n$/, "");
  if (!value)
    throw new UsageError(
      `no value for ${name}: type it when asked, or pipe it in (e.g. pantheon secrets set ${name} < key.txt)`,
      "secrets",
    );
  return value;
}

export const secrets: Command = {
  name: "secrets",
  summary: "the project's secrets for HTTP tools, A2A headers and Telegram bots (write-only; values never shown)",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "the project's secrets (name, last update, short fingerprint) and the deployment secrets granted to it",
      usage: [""],
      async run(context) {
        const slug = current(context);
        const body = await context.client.request<{
          secrets: SecretView[];
          grants: { name: string; grantedAt: number }[];
        }>("GET", secretsPath(slug));
        if (context.json) return printJson(body);
        if (!body.secrets.length && !body.grants.length)
          return console.log(
            `Project ${slug} has no secrets. Set one with: pantheon secrets set <NAME> (the value is asked for, or read from stdin)`,
          );
        const rows = [
          ...body.secrets.map((s) => [s.name, "project", time(s.updatedAt), s.fingerprint]),
          ...body.grants.map((g) => [g.name, "granted by the deployment", time(g.grantedAt), ""]),
        ];
        console.log(table(["NAME", "FROM", "UPDATED", "FINGERPRINT"], rows));
      },
    },
    {
      name: "set",
      summary: "set a secret (typed at a hidden prompt, or piped on stdin; never an argument)",
      usage: ['<NAME>   (then type the value, or: printf %s "$VALUE" | pantheon secrets set <NAME>)'],
      async run(context) {
        const name = need(context.args, 0, "secret's name (UPPER_SNAKE, e.g. AIRTABLE_KEY)", "secrets");
        if (context.args.length > 1)
          throw new UsageError(
            "the value is never an argument (it would stay in your shell history): type it when asked, or pipe it on stdin",
            "secrets",
          );
        const slug = current(context);
        const value = await valueToSet(name);
        const { secret } = await context.client.request<{ secret: SecretView }>(
          "PUT",
          `${secretsPath(slug)}/${encodeURIComponent(name)}`,
          { json: { value } },
        );
        if (context.json) return printJson({ secret });
        console.log(
          `Set ${secret.name} in project ${slug} (fingerprint ${secret.fingerprint}). Tools name it as {"secret": "${secret.name}"}.`,
        );
      },
    },
    {
      name: "delete",
      summary: "delete a secret (tools that name it are refused from their next call)",
      usage: ["<NAME>"],
      async run(context) {
        const name = need(context.args, 0, "secret's name", "secrets");
        const slug = current(context);
        await context.client.request("DELETE", `${secretsPath(slug)}/${encodeURIComponent(name)}`);
        if (context.json) return printJson({ deleted: name, project: slug });
        console.log(`Deleted ${name} from project ${slug}.`);
      },
    },
    {
      name: "grant",
      summary: "let the project use a deployment (worker) secret by name (the deployment's admin token only)",
      usage: ["<NAME>"],
      async run(context) {
        const name = need(context.args, 0, "worker secret's name", "secrets");
        const slug = current(context);
        await context.client.request("PUT", `${grantsPath(slug)}/${encodeURIComponent(name)}`);
        if (context.json) return printJson({ granted: name, project: slug });
        console.log(`Granted the deployment secret ${name} to project ${slug}.`);
      },
    },
    {
      name: "revoke",
      summary: "take a granted deployment secret back from the project (the deployment's admin token only)",
      usage: ["<NAME>"],
      async run(context) {
        const name = need(context.args, 0, "worker secret's name", "secrets");
        const slug = current(context);
        await context.client.request("DELETE", `${grantsPath(slug)}/${encodeURIComponent(name)}`);
        if (context.json) return printJson({ revoked: name, project: slug });
        console.log(`Revoked ${name} from project ${slug}.`);
      },
    },
  ],
};

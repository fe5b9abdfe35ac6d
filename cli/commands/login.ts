// `pantheon login` and `pantheon logout`: the server, token and project saved in the user's
// config directory (0600), so later commands need no flags.
import password from "@inquirer/password";
import { ApiError, makeClient, UsageError } from "../client.ts";
import type { Command } from "../command.ts";
import { configPath, devVarsToken, readSaved, removeSaved, writeSaved, type TokenSource } from "../config.ts";
import { printJson } from "../format.ts";

async function readStdin(): Promise<string> {
  let all = "";
  for await (const chunk of process.stdin) all += chunk;
  return all.trim();
}

/** The token to log in with and where it came from: --token or PANTHEON_TOKEN, else typed (hidden) or piped in, else the local dev token. */
async function tokenToUse(given: string | undefined): Promise<{ token: string; from: TokenSource } | undefined> {
  if (given) return { token: given, from: "flag" };
  if (process.env.PANTHEON_TOKEN) return { token: process.env.PANTHEON_TOKEN, from: "env" };
  const local = devVarsToken();
  const orLocal = (token: string, from: TokenSource) =>
    token ? { token, from } : local ? { token: local, from: ".dev.vars" as const } : undefined;
  if (!process.stdin.isTTY) return orLocal(await readStdin(), "stdin");
  const typed = await password({
    message: local ? "Token (Enter for the local dev token in .dev.vars):" : "Token:",
    mask: "•",
  });
  return orLocal(typed.trim(), "typed");
}

export const login: Command = {
  name: "login",
  summary: "save a server URL, token and project for later commands (config file, mode 0600)",
  actions: [
    {
      name: "",
      summary: "save a server URL, token and project for later commands (config file, mode 0600)",
      usage: ["[--url <server>] [--token <token> | (typed, or piped on stdin)] [--project <slug>]"],
      async run({ config, values, json }) {
        const given = await tokenToUse(typeof values.token === "string" ? values.token : undefined);
        if (!given)
          throw new UsageError(
            "give a token: --token <token>, PANTHEON_TOKEN, pipe it on stdin, or type it when asked",
            "login",
          );
        const { token } = given;
        const project = config.project;
        // The login is checked before it is saved: a wrong token (401) or an unknown project (404) is refused here.
        const client = makeClient({ url: config.url, token, project });
        const { agents } = await client.send(client.api.api.agents.$get()).catch((error: unknown) => {
          // Refused, it is this token's source the person must fix, not the one the config resolved.
          if (error instanceof ApiError) error.tokenFrom = given.from;
          throw error;
        });
        const saved = { url: config.url, token, ...(project ? { project } : {}) };
        writeSaved(saved);
        if (json)
          return printJson({
            url: saved.url,
            project: project ?? "default",
            agents: agents.length,
            config: configPath(),
          });
        console.log(
          `Logged in to ${config.url} (project ${project ?? "default"}, ${agents.length} agent${agents.length === 1 ? "" : "s"}). Saved to ${configPath()} (mode 0600).`,
        );
      },
    },
  ],
};

export const logout: Command = {
  name: "logout",
  summary: "forget the saved login (deletes the config file)",
  actions: [
    {
      name: "",
      summary: "forget the saved login (deletes the config file)",
      usage: [""],
      offline: true,
      async run() {
        const had = readSaved();
        removeSaved();
        console.log(had ? `Logged out of ${had.url} (removed ${configPath()}).` : "Not logged in.");
      },
    },
  ],
};

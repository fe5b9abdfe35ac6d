// What a command is: a family (`agents`) of actions (`list`, `show`, …), each with its usage,
// options and run function; and the help text made from them.
import type { Client } from "./client.ts";
import type { Resolved } from "./config.ts";

export type Option = { type: "string" | "boolean"; help: string; short?: string; multiple?: boolean };
export type Options = Record<string, Option>;

/** What an action's `run` gets. */
export interface Context {
  client: Client;
  config: Resolved;
  /** Positional arguments after the command and action words. */
  args: string[];
  values: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
}

export interface Action {
  /** The action word; "" for a command that has no actions (`tell`, `doctor`). */
  name: string;
  /** Older words for the same action (`agents get` = `agents show`). */
  aliases?: string[];
  summary: string;
  /** Usage lines without `pantheon <command> <action>`, e.g. `<agent> [--limit <n>]`. */
  usage: string[];
  options?: Options;
  /** Needs no server (help, local checks, login before it has one). */
  offline?: boolean;
  /** Answers an exit code, or nothing for 0. */
  run(context: Context): Promise<number | void>;
}

export interface Command {
  name: string;
  summary: string;
  actions: Action[];
  /** The action used when the first word is not an action's name (`pantheon runs scout` = `runs list scout`). */
  defaultAction?: string;
}

/**
 * A command in the shape the JavaScript CLI had (one `run`, usage lines starting `pantheon <name>`):
 * a command written against it (the ACP bridge, say) joins the table through {@link asCommand}.
 */
export interface SingleCommand {
  name: string;
  summary: string;
  usage: string[];
  options?: Options;
  run(context: Context): Promise<number | void | unknown>;
}

/** Either shape as a command family; a single command becomes one action with no name. */
export function asCommand(command: Command | SingleCommand): Command {
  if ("actions" in command) return command;
  const usage = command.usage.map((u) => u.replace(new RegExp(`^pantheon ${command.name}\\s*`), ""));
  const run = async (context: Context) => {
    const code = await command.run(context);
    return typeof code === "number" ? code : undefined;
  };
  return {
    name: command.name,
    summary: command.summary,
    actions: [
      { name: "", summary: command.summary, usage, ...(command.options ? { options: command.options } : {}), run },
    ],
  };
}

/** The value of a string option, or undefined. */
export const text = (values: Context["values"], name: string): string | undefined => {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
};

export const globalOptions: Options = {
  url: { type: "string", help: "server URL (env PANTHEON_URL, else the saved login, else http://127.0.0.1:8787)" },
  token: {
    type: "string",
    help: "API or admin token (env PANTHEON_TOKEN, else the saved login, else PANTHEON_ADMIN_TOKEN from ./.dev.vars)",
  },
  project: {
    type: "string",
    help: "project slug (env PANTHEON_PROJECT, else the saved login's, else the server's 'default')",
  },
  json: { type: "boolean", help: "print JSON instead of tables (read commands)" },
  help: { type: "boolean", short: "h", help: "show help" },
};

export function optionLines(options: Options): string[] {
  const entries = Object.entries(options);
  if (!entries.length) return [];
  const label = ([name, o]: [string, Option]) =>
    `--${name}${o.type === "string" ? " <value>" : ""}${o.short ? `, -${o.short}` : ""}`;
  const width = Math.max(...entries.map((e) => label(e).length));
  return entries.map((e) => `  ${label(e).padEnd(width)}  ${e[1].help}`);
}

const usageOf = (command: Command, action: Action) =>
  action.usage.map((u) => `pantheon ${command.name}${action.name ? ` ${action.name}` : ""}${u ? ` ${u}` : ""}`);

export function commandHelp(command: Command, action?: Action): string {
  const shown = action ? [action] : command.actions;
  const own = Object.assign({}, ...shown.map((a) => a.options ?? {})) as Options;
  const lines = [
    `pantheon ${command.name}${action?.name ? ` ${action.name}` : ""}: ${action?.summary ?? command.summary}`,
    "",
    "Usage:",
  ];
  if (action || command.actions.length === 1)
    lines.push(...shown.flatMap((a) => usageOf(command, a)).map((u) => `  ${u}`));
  else {
    const width = Math.max(...command.actions.map((a) => a.name.length));
    lines.push(
      ...command.actions.flatMap((a) => usageOf(command, a)).map((u) => `  ${u}`),
      "",
      "Actions:",
      ...command.actions.map((a) => `  ${a.name.padEnd(width)}  ${a.summary}`),
    );
    lines.push("", `More: pantheon ${command.name} <action> --help`);
  }
  if (Object.keys(own).length) lines.push("", "Options:", ...optionLines(own));
  lines.push("", "Also: --url, --token, --project, --json, --help (see pantheon help)");
  return lines.join("\n");
}

export function generalHelp(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "pantheon: drive a Pantheon server from the command line",
    "",
    "Usage: pantheon <command> [action] [arguments] [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${"help".padEnd(width)}  this text; 'pantheon <command> --help' for one command`,
    "",
    "Options for every command:",
    ...optionLines(globalOptions),
    "",
    "Exit codes: 0 ok, 1 the server refused (4xx/5xx), 2 the command was mistyped, 3 the server is not reachable.",
    "Start a local server with `npm start` in the Pantheon checkout; its admin token is read from ./.dev.vars.",
  ].join("\n");
}

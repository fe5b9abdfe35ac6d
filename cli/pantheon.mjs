#!/usr/bin/env node
// `pantheon`: the operator's command line for a Pantheon server, over its HTTP API.
// Plain Node >= 22, no dependencies. `pantheon help` lists the commands.
import { parseArgs } from "node:util";
import { ApiError, defaultUrl, makeClient, resolveConfig, UnreachableError, UsageError } from "./client.mjs";
import { agents } from "./commands/agents.mjs";
import { chat, history, sessions } from "./commands/chat.mjs";
import { approvals, approve, reject, runs, trace } from "./commands/runs.mjs";
import { script } from "./commands/script.mjs";
import { health, tokens } from "./commands/tokens.mjs";
import { doctor } from "./commands/doctor.mjs";
import { gateway } from "./commands/gateway.mjs";
import { acp } from "./commands/acp.mjs";

/**
 * @typedef {Record<string, { type: "string" | "boolean", help: string, short?: string }>} Options
 * @typedef {{ name: string, summary: string, usage: string[], options: Record<string, { type: string, help: string, short?: string }>, run(context: import("./client.mjs").CommandContext): Promise<unknown> }} Command
 */

/** @type {Command[]} */
const commands = [agents, chat, history, sessions, runs, trace, approvals, approve, reject, script, tokens, health, doctor, gateway, acp];
const byName = new Map(commands.map((c) => [c.name, c]));

/** @type {Options} */
const globalOptions = {
  url: { type: "string", help: `server URL (env PANTHEON_URL, default ${defaultUrl})` },
  token: { type: "string", help: "API or admin token (env PANTHEON_TOKEN, else PANTHEON_ADMIN_TOKEN from ./.dev.vars)" },
  project: { type: "string", help: "project slug (env PANTHEON_PROJECT, default: the server's 'default')" },
  json: { type: "boolean", help: "print the API's raw JSON" },
  help: { type: "boolean", short: "h", help: "show help" },
};

/** @param {Options} options */
function optionLines(options) {
  const entries = Object.entries(options);
  const width = Math.max(...entries.map(([name, o]) => name.length + (o.type === "string" ? 8 : 0)));
  return entries.map(([name, o]) => `  --${`${name}${o.type === "string" ? " <value>" : ""}`.padEnd(width)}  ${o.help}`);
}

function generalHelp() {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "pantheon: talk to a Pantheon server from the command line",
    "",
    "Usage: pantheon <command> [arguments] [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${"help".padEnd(width)}  this text; 'pantheon <command> --help' for one command`,
    "",
    "Options for every command:",
    ...optionLines(globalOptions),
    "",
    "Start a local server with `npm start` in the Pantheon checkout; its admin token is read from ./.dev.vars.",
  ].join("\n");
}

/** @param {Command} command */
function commandHelp(command) {
  const own = Object.keys(command.options).length ? ["", "Options:", ...optionLines(/** @type {Options} */ (command.options))] : [];
  return [`pantheon ${command.name}: ${command.summary}`, "", "Usage:", ...command.usage.map((u) => `  ${u}`), ...own, "", "Also: --url, --token, --project, --json, --help (see pantheon help)"].join("\n");
}

/**
 * The command word: the first argument that is neither a global option nor a global option's value.
 * @param {string[]} argv
 */
function commandWord(argv) {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = /** @type {string} */ (argv[i]);
    if (arg === "--") return argv[i + 1];
    if (!arg.startsWith("-")) return arg;
    const name = arg.replace(/^--?/, "").split("=")[0] ?? "";
    if (globalOptions[name]?.type === "string" && !arg.includes("=")) i += 1;
  }
  return undefined;
}

/**
 * @param {string[]} argv
 * @param {Command} command
 */
function parse(argv, command) {
  // Each command's options are plain object literals (their `type` reads as a string): parseArgs checks them at run time.
  const declared = /** @type {Options} */ ({ ...globalOptions, ...command.options });
  const options = Object.fromEntries(Object.entries(declared).map(([name, { type, short }]) => [name, short ? { type, short } : { type }]));
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values, args: positionals.slice(positionals.indexOf(command.name) + 1) };
  } catch (error) {
    throw new UsageError(error.message.replace(/ To specify a positional argument.*$/s, ""), command.name);
  }
}

/**
 * Prints what went wrong in words an operator can act on, and says which exit code to use.
 * @param {any} error
 * @param {{ token?: string }} config
 */
function report(error, config) {
  const say = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);
  if (error instanceof UnreachableError) {
    // undici hides the reason two levels down, sometimes in an AggregateError (IPv4 and IPv6 both refused).
    const failure = /** @type {any} */ (error.cause);
    const inner = failure?.cause;
    const cause = inner?.code ?? inner?.errors?.[0]?.code ?? inner?.message ?? failure?.message ?? "";
    say(`Error: Pantheon is not reachable at ${error.url}${cause ? ` (${cause})` : ""}.`);
    say("Start a local server with `npm start` in the Pantheon checkout, or point --url / PANTHEON_URL at a running one.");
    return 1;
  }
  if (error instanceof ApiError) {
    say(`Error: ${error.message}`);
    const issues = error.details?.issues ?? [];
    // A single script problem is already the message itself.
    const repeated = issues.length === 1 && error.message.includes(issues[0].message);
    for (const issue of repeated ? [] : issues) {
      const where = issue.line ? `line ${issue.line}:${issue.column ?? 0}` : (issue.path ?? []).join(".") || issue.form || "";
      say(`  - ${where ? `${where}: ` : ""}${issue.message}`);
    }
    if (error.status === 401) {
      say(config.token ? "The token was refused: check --token / PANTHEON_TOKEN." : "No token found: pass --token, set PANTHEON_TOKEN, or run from the checkout where `npm start` wrote .dev.vars.");
    }
    if (error.requestId) say(`(request id ${error.requestId})`);
    return 1;
  }
  if (error instanceof UsageError) {
    say(`Error: ${error.message}`);
    const command = error.command && byName.get(error.command);
    say(command ? `\nUsage:\n${command.usage.map((u) => `  ${u}`).join("\n")}\n\nMore: pantheon ${command.name} --help` : "\nSee: pantheon help");
    return 2;
  }
  say(`Error: ${error?.stack ?? error}`);
  return 1;
}

/** @param {string[]} argv */
async function main(argv) {
  const word = commandWord(argv);
  let config = resolveConfig({});
  try {
    if (word === undefined || word === "help") {
      const topic = word === "help" ? byName.get(argv[argv.indexOf("help") + 1] ?? "") : undefined;
      console.log(topic ? commandHelp(topic) : generalHelp());
      return 0;
    }
    const command = byName.get(word);
    if (!command) throw new UsageError(`unknown command '${word}'`);
    const { values, args } = parse(argv, command);
    if (values.help) {
      console.log(commandHelp(command));
      return 0;
    }
    config = resolveConfig(values);
    // A command may answer its own exit code (doctor: 1 when the deployment has a problem).
    const code = await command.run({ client: makeClient(config), args, values, json: Boolean(values.json) });
    return typeof code === "number" ? code : 0;
  } catch (error) {
    return report(error, config);
  }
}

process.exitCode = await main(process.argv.slice(2));

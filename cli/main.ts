// The command table, argument parsing, and the one place that turns a failure into words and an
// exit code: 0 ok, 1 the server refused, 2 a usage mistake, 3 the server is not reachable.
import { parseArgs } from "node:util";
import { ApiError, makeClient, UnreachableError, UsageError } from "./client.ts";
import {
  asCommand,
  commandHelp,
  generalHelp,
  globalOptions,
  type Action,
  type Command,
  type Context,
  type Options,
} from "./command.ts";
import { refusedTokenAdvice, resolveConfig, type Resolved } from "./config.ts";
import { agents } from "./commands/agents.ts";
import { chat } from "./commands/chat/index.ts";
import { context } from "./commands/context.ts";
import { doctor } from "./commands/doctor.ts";
import { evals } from "./commands/evals.ts";
import { gateway } from "./commands/gateway.ts";
import { history, sessions, tell } from "./commands/tell.ts";
import { invite } from "./commands/invite.ts";
import { login, logout } from "./commands/login.ts";
import { memory } from "./commands/memory.ts";
import { acp } from "./commands/acp.ts";
import { project } from "./commands/project.ts";
import { approvals, runs } from "./commands/runs.ts";
import { schedules } from "./commands/schedules.ts";
import { script } from "./commands/script.ts";
import { health, tokens } from "./commands/tokens.ts";
import { secrets } from "./commands/secrets.ts";
import { providers } from "./commands/providers.ts";
import { quotas, usage } from "./commands/quotas.ts";
import { tools } from "./commands/tools.ts";
import { skills } from "./commands/skills.ts";
import { mcp } from "./commands/mcp.ts";
import { feature, features } from "./commands/features.ts";
import { plan, tasks } from "./commands/tasks.ts";

/**
 * Every command, in the order `pantheon help` lists them. A new command is one import and one
 * entry here, as a family of actions (`Command`) or a single `run` (`SingleCommand`, the shape the
 * JavaScript CLI had). `pantheon acp <agent>` (workers/doors/acp/, an editor's agent over stdio) follows `chat`.
 */
export const commands: Command[] = [
  login,
  logout,
  project,
  agents,
  tell,
  chat,
  acp,
  history,
  sessions,
  runs,
  approvals,
  features,
  plan,
  tasks,
  feature,
  script,
  memory,
  context,
  tools,
  skills,
  mcp,
  schedules,
  evals,
  tokens,
  invite,
  secrets,
  providers,
  quotas,
  usage,
  health,
  doctor,
  gateway,
].map(asCommand);

/** Older spellings, kept so scripts written against them go on working. */
const aliases: Record<string, string[]> = {
  approve: ["runs", "approve"],
  reject: ["runs", "reject"],
  trace: ["runs", "show"],
};

const byName = new Map(commands.map((c) => [c.name, c]));

/** The positional words, skipping global options and their values. */
function words(argv: string[]): { index: number; word: string }[] {
  const found: { index: number; word: string }[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === "--") break;
    if (!arg.startsWith("-") || arg === "-") {
      found.push({ index: i, word: arg });
      continue;
    }
    const name = arg.replace(/^--?/, "").split("=")[0] ?? "";
    if (globalOptions[name]?.type === "string" && !arg.includes("=")) i += 1;
  }
  return found;
}

/** The command and its action from argv: the action named by the second word, else the default. */
function locate(argv: string[]): {
  command?: Command;
  action?: Action;
  rest: string[];
  unknown?: string;
  named?: boolean;
} {
  const positional = words(argv);
  const first = positional[0]?.word;
  if (first === undefined) return { rest: argv };
  const alias = aliases[first];
  if (alias) {
    const at = positional[0]!.index;
    return locate([...argv.slice(0, at), ...alias, ...argv.slice(at + 1)]);
  }
  const command = byName.get(first);
  if (!command) return { rest: argv, unknown: first };
  const second = positional[1];
  const named = second
    ? command.actions.find((a) => a.name !== "" && (a.name === second.word || a.aliases?.includes(second.word)))
    : undefined;
  const drop = new Set([positional[0]!.index, ...(named && second ? [second.index] : [])]);
  const rest = argv.filter((_, i) => !drop.has(i));
  if (named) return { command, action: named, rest, named: true };
  if (command.actions.length === 1) return { command, action: command.actions[0], rest, named: true };
  const fallback = command.defaultAction ? command.actions.find((a) => a.name === command.defaultAction) : undefined;
  // `pantheon runs scout` is `runs list scout`; `pantheon agents frobnicate` is a mistyped action, as `agents list` takes no argument.
  const takesArguments = fallback?.usage.some((u) => u.trim().startsWith("<") || u.trim().startsWith("[<"));
  if (fallback && (!second || takesArguments)) return { command, action: fallback, rest };
  return { command, rest, ...(second ? { unknown: second.word } : {}) };
}

function parse(argv: string[], command: Command, action: Action) {
  const declared: Options = { ...globalOptions, ...action.options };
  const options = Object.fromEntries(
    Object.entries(declared).map(([name, { type, short, multiple }]) => [
      name,
      { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) },
    ]),
  );
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values, args: positionals };
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/ To specify a positional argument.*$/s, ""), command.name);
  }
}

/** What went wrong, in words an operator can act on; answers the exit code. */
function report(error: unknown, config: Resolved | undefined): number {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (error instanceof UnreachableError) {
    // undici hides the reason two levels down, sometimes in an AggregateError (IPv4 and IPv6 both refused).
    const failure = error.cause as
      | { message?: string; cause?: { code?: string; message?: string; errors?: { code?: string }[] } }
      | undefined;
    const inner = failure?.cause;
    const cause = inner?.code ?? inner?.errors?.[0]?.code ?? inner?.message ?? failure?.message ?? "";
    say(`Error: Pantheon is not reachable at ${error.url}${cause ? ` (${cause})` : ""}.`);
    say(
      "Start a local server with `npm start` in the Pantheon checkout, or point --url / PANTHEON_URL (or pantheon login) at a running one.",
    );
    return 3;
  }
  if (error instanceof ApiError) {
    say(`Error: ${error.message}`);
    const issues = error.details?.issues ?? [];
    // A single script problem is already the message itself.
    const repeated = issues.length === 1 && error.message.includes(issues[0]!.message);
    for (const issue of repeated ? [] : issues) {
      const path = Array.isArray(issue.path) ? issue.path.join(".") : issue.path;
      const where = issue.line ? `line ${issue.line}:${issue.column ?? 0}` : path || issue.form || "";
      say(`  - ${where ? `${where}: ` : ""}${issue.message}`);
    }
    if (error.status === 401)
      say(refusedTokenAdvice(error.tokenFrom ?? config?.tokenFrom ?? "none", config?.url ?? "the server"));
    // What to run next, when the server names it (an unknown agent: pantheon agents list).
    const hint = error.details?.hint;
    if (typeof hint === "string" && error.status !== 401) say(`Try: ${hint}`);
    if (error.requestId) say(`(request id ${error.requestId})`);
    return 1;
  }
  if (error instanceof UsageError) {
    say(`Error: ${error.message}`);
    const command = error.command ? byName.get(error.command) : undefined;
    say(command ? `\n${commandHelp(command).split("\n").slice(2).join("\n")}` : "\nSee: pantheon help");
    return 2;
  }
  say(`Error: ${(error as Error)?.stack ?? error}`);
  return 1;
}

/** Runs one command line; answers the exit code. */
export async function main(argv: string[]): Promise<number> {
  let config: Resolved | undefined;
  try {
    const { command, action, rest, unknown, named } = locate(argv);
    const helpAsked = argv.includes("--help") || argv.includes("-h");
    if (!command) {
      if (unknown === "help") {
        const topic = words(argv)[1]?.word;
        const target = topic ? byName.get(topic) : undefined;
        console.log(target ? commandHelp(target) : generalHelp(commands));
        return 0;
      }
      if (unknown) throw new UsageError(`unknown command '${unknown}'`);
      console.log(generalHelp(commands));
      return helpAsked || argv.length === 0 ? 0 : 2;
    }
    if (!action) {
      if (helpAsked || !unknown) {
        console.log(commandHelp(command));
        return helpAsked ? 0 : 2;
      }
      throw new UsageError(
        `unknown action '${unknown}': use ${command.actions.map((a) => a.name).join(", ")}`,
        command.name,
      );
    }
    if (helpAsked) {
      console.log(commandHelp(command, command.actions.length > 1 && named ? action : undefined));
      return 0;
    }
    const { values, args } = parse(rest, command, action);
    config = resolveConfig({
      url: values.url as string | undefined,
      token: values.token as string | undefined,
      project: values.project as string | undefined,
    });
    const code = await action.run({
      client: makeClient(config),
      config,
      args,
      values: values as Context["values"],
      json: Boolean(values.json),
    });
    return typeof code === "number" ? code : 0;
  } catch (error) {
    return report(error, config);
  }
}

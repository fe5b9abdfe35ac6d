// Where the CLI finds its server, token and project: flags, then the environment, then what
// `pantheon login` saved in the user's config directory, then a local checkout's .dev.vars.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const defaultUrl = "http://127.0.0.1:8787";

/** What `pantheon login` saves. */
export interface SavedConfig {
  url: string;
  token?: string;
  project?: string;
}

/** `$XDG_CONFIG_HOME/pantheon/config.json`, else `~/.config/pantheon/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "pantheon", "config.json");
}

export function readSaved(file = configPath()): SavedConfig | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, "utf8"));
    return value && typeof value.url === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the config readable by its owner only (0600, in a 0700 folder): it holds a token.
 * Written to a temporary file first and renamed, so a crash never leaves half a file.
 */
export function writeSaved(config: SavedConfig, file = configPath()): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

export function removeSaved(file = configPath()): boolean {
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

/** PANTHEON_ADMIN_TOKEN from a .dev.vars file (what `npm start` writes), or undefined. */
export function devVarsToken(file = resolve(".dev.vars")): string | undefined {
  if (!existsSync(file)) return undefined;
  const match = /^PANTHEON_ADMIN_TOKEN\s*=\s*"?([^"\n]+)"?\s*$/m.exec(readFileSync(file, "utf8"));
  return match?.[1]?.trim() || undefined;
}

/** Where a token came from: a flag, the environment, the saved login, a checkout's .dev.vars, or (`pantheon login`) stdin or the prompt. */
export type TokenSource = "flag" | "env" | "login" | ".dev.vars" | "stdin" | "typed" | "none";

export interface Resolved {
  url: string;
  token: string | undefined;
  project: string | undefined;
  /** Where the token came from, for the message when it is refused. */
  tokenFrom: TokenSource;
}

/**
 * What to tell a person whose token a server refused (401): where that token came from, by name,
 * and what to do about that source.
 * @example
 * refusedTokenAdvice("stdin", "http://127.0.0.1:8787")
 * // "The token was refused by http://127.0.0.1:8787. It came from stdin: check what was piped in, or …"
 */
export function refusedTokenAdvice(source: TokenSource, url: string, env: NodeJS.ProcessEnv = process.env): string {
  const create = "an admin creates one with: pantheon tokens create <name> --scope chat";
  const refused = (from: string, fix: string) => `The token was refused by ${url}. It came from ${from}: ${fix}.`;
  switch (source) {
    case "flag":
      return refused("--token", `check it, or ${create}`);
    case "env":
      return refused("PANTHEON_TOKEN", `fix or unset PANTHEON_TOKEN (unset, the saved login is used), or ${create}`);
    case "login":
      return refused(`the saved login (${configPath(env)})`, "run pantheon login again with a valid token");
    case ".dev.vars":
      return refused(
        `${resolve(".dev.vars")} (PANTHEON_ADMIN_TOKEN)`,
        "that server was not started from this checkout; pass --token, set PANTHEON_TOKEN, or run pantheon login",
      );
    case "stdin":
      return refused("stdin", `check what was piped in, or ${create}`);
    case "typed":
      return refused("the prompt", `check what was typed, or ${create}`);
    case "none":
      return "No token found: pass --token, set PANTHEON_TOKEN, run pantheon login, or run from the checkout where `npm start` wrote .dev.vars.";
  }
}

/**
 * Flags win over the environment, the environment over the saved login. The saved token and
 * project are used only for the saved URL: a token is never sent to a server it was not made for.
 */
export function resolveConfig(
  flags: { url?: string | undefined; token?: string | undefined; project?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
  saved = readSaved(configPath(env)),
): Resolved {
  // An empty variable counts as unset (`PANTHEON_URL= pantheon …`).
  const url = (flags.url || env.PANTHEON_URL || saved?.url || defaultUrl).replace(/\/+$/, "");
  const sameServer = saved !== undefined && saved.url.replace(/\/+$/, "") === url;
  const fromSaved = sameServer ? saved : undefined;
  const project = flags.project || env.PANTHEON_PROJECT || fromSaved?.project || undefined;
  if (flags.token) return { url, token: flags.token, project, tokenFrom: "flag" };
  if (env.PANTHEON_TOKEN) return { url, token: env.PANTHEON_TOKEN, project, tokenFrom: "env" };
  if (fromSaved?.token) return { url, token: fromSaved.token, project, tokenFrom: "login" };
  const local = devVarsToken();
  return local
    ? { url, token: local, project, tokenFrom: ".dev.vars" }
    : { url, token: undefined, project, tokenFrom: "none" };
}

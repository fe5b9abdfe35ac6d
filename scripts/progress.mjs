// Progress for the slow steps of `npm start` (installing, building, starting): on a terminal one
// line that ticks every second ("installing dependencies… 45 s (312 fetched)"); elsewhere (CI, a
// pipe) a line every 10 s, so a log shows the step is alive without filling up. Runs on any Node
// from 20 on: scripts/with-node22.sh calls it before Node 22 is there.
//
//   node scripts/progress.mjs "installing dependencies" --count '^npm http fetch' -- npm install
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";

/**
 * A progress line on `stream` (stderr by default). `log(line)` prints a line above it; `detail(text)`
 * sets what follows the seconds; `relabel(label)` names the step it is now at (the seconds go on);
 * `done(line)` ends it with a last line.
 * @example
 * const progress = startProgress("waiting for the server to answer");
 * progress.log("[wrangler:info] Ready");
 * progress.done("the server answered after 12 s");
 * @param {string} label
 * @param {{ stream?: { isTTY?: boolean, write(text: string): unknown }, prefix?: string, tty?: boolean, everyMs?: number, quietMs?: number }} [options]
 */
export function startProgress(
  label,
  { stream = process.stderr, prefix = "", tty = undefined, everyMs = undefined, quietMs = 2000 } = {},
) {
  const onTerminal = tty ?? Boolean(stream.isTTY);
  const every = everyMs ?? (onTerminal ? 1000 : 10_000);
  const started = Date.now();
  let extra = "";
  let shown = false;
  let ticking = false;
  const seconds = () => Math.round((Date.now() - started) / 1000);
  const text = () => `${prefix}${label}… ${seconds()} s${extra ? ` (${extra})` : ""}`;
  const clear = () => {
    if (onTerminal && shown) stream.write("\r\x1b[2K");
    shown = false;
  };
  const draw = () => {
    if (onTerminal) {
      clear();
      stream.write(text());
      shown = true;
    } else {
      stream.write(`${text()}\n`);
    }
  };
  // A step over before `quietMs` shows no progress line at all, only its last line.
  /** @type {ReturnType<typeof setTimeout>} */
  let timer = setTimeout(() => {
    ticking = true;
    draw();
    timer = setInterval(draw, every);
    timer.unref?.();
  }, quietMs);
  timer.unref?.();
  return {
    seconds,
    /** @param {string} value */
    detail(value) {
      extra = value;
    },
    /** @param {string} value */
    relabel(value) {
      label = value;
      extra = "";
      if (ticking) draw();
    },
    /** @param {string} line */
    log(line) {
      clear();
      stream.write(line.endsWith("\n") ? line : `${line}\n`);
      if (onTerminal && ticking) draw();
    },
    /** @param {string} [line] */
    done(line) {
      clearTimeout(timer);
      clearInterval(timer);
      clear();
      if (line) stream.write(`${prefix}${line}\n`);
    },
  };
}

/**
 * Runs a command with a progress line; its output is kept and shown only when it fails, except
 * that lines matching `count` are counted into the line ("312 fetched").
 * @param {string} label
 * @param {string} command
 * @param {string[]} args
 * @param {{ count?: RegExp, countLabel?: string, prefix?: string, stream?: { isTTY?: boolean, write(text: string): unknown }, env?: NodeJS.ProcessEnv, cwd?: string }} [options]
 * @returns {Promise<{ code: number, output: string, seconds: number }>}
 */
export function runWithProgress(
  label,
  command,
  args,
  { count, countLabel = "fetched", prefix = "", stream = process.stderr, env = process.env, cwd } = {},
) {
  const progress = startProgress(label, { stream, prefix });
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env, cwd });
  let output = "";
  let counted = 0;
  /** @param {Buffer} chunk */
  const collect = (chunk) => {
    output += chunk;
    if (count) {
      counted += String(chunk)
        .split("\n")
        .filter((line) => count.test(line)).length;
      if (counted) progress.detail(`${counted} ${countLabel}`);
    }
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((resolve) => {
    child.on("error", (error) => {
      progress.done(`${label} could not start: ${error.message}`);
      resolve({ code: 127, output: error.message, seconds: progress.seconds() });
    });
    child.on("close", (code) => {
      const seconds = progress.seconds();
      progress.done(
        code === 0
          ? `${label}: done in ${seconds} s${counted ? ` (${counted} ${countLabel})` : ""}`
          : `${label} failed after ${seconds} s (exit ${code}):`,
      );
      if (code !== 0)
        stream.write(
          output
            .split("\n")
            .filter((line) => !count?.test(line))
            .join("\n")
            .slice(-6000),
        );
      resolve({ code: code ?? 1, output, seconds });
    });
  });
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (isMain) {
  const argv = process.argv.slice(2);
  const split = argv.indexOf("--");
  const options = split < 0 ? [] : argv.slice(0, split);
  const command = split < 0 ? [] : argv.slice(split + 1);
  const countAt = options.indexOf("--count");
  const label = options.find((option, i) => !option.startsWith("--") && (countAt < 0 || i !== countAt + 1));
  if (!label || command.length === 0) {
    console.error('usage: node scripts/progress.mjs "<label>" [--count <regex>] -- <command> [args…]');
    process.exit(2);
  }
  const count = countAt >= 0 ? new RegExp(options[countAt + 1] ?? "") : undefined;
  const [program = "", ...rest] = command;
  const { code } = await runWithProgress(label, program, rest, { count, prefix: "pantheon: " });
  process.exit(code);
}

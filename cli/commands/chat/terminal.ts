// The terminal side of `pantheon chat`: a line editor (node:readline, with history and the
// usual keys), keys watched while a run streams (Ctrl-C, Ctrl-D), and menus (@inquirer/select).
// Only one of them reads stdin at a time: each gives the terminal back before the next starts.
import select from "@inquirer/select";
import { createInterface, emitKeypressEvents } from "node:readline";

export type Read = { line: string } | { interrupt: true } | { eof: true };

/** One line from the person, with the lines typed before as history (↑/↓). */
export function readLine(prompt: string, history: string[]): Promise<Read> {
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: true,
    history: [...history],
    historySize: 500,
    removeHistoryDuplicates: true,
  });
  return new Promise((resolve) => {
    let settled = false;
    const done = (value: Read) => {
      if (settled) return;
      settled = true;
      if ("line" in value && value.line.trim())
        history.splice(0, history.length, ...[value.line, ...history.filter((h) => h !== value.line)].slice(0, 500));
      rl.close();
      resolve(value);
    };
    rl.on("line", (line) => done({ line }));
    rl.on("SIGINT", () => {
      process.stdout.write("\n");
      done({ interrupt: true });
    });
    rl.on("close", () => done({ eof: true }));
    rl.setPrompt(prompt);
    rl.prompt();
  });
}

/**
 * Watches Ctrl-C and Ctrl-D while something runs (no line editor is open then). Answers a
 * function that stops watching.
 */
export function watchKeys(on: { interrupt(): void; eof(): void }): () => void {
  const input = process.stdin;
  emitKeypressEvents(input);
  const raw = input.isTTY;
  if (raw) input.setRawMode(true);
  const listener = (_: string, key: { ctrl?: boolean; name?: string } | undefined) => {
    if (key?.ctrl && key.name === "c") on.interrupt();
    else if (key?.ctrl && key.name === "d") on.eof();
  };
  input.on("keypress", listener);
  input.resume();
  return () => {
    input.off("keypress", listener);
    if (raw) input.setRawMode(false);
    input.pause();
  };
}

/** A menu; undefined when the person leaves it (Ctrl-C, Esc), or `interrupted` for Ctrl-C when given. */
export async function choose<T>(
  message: string,
  choices: { name: string; value: T; description?: string }[],
  initial?: T,
  interrupted?: T,
): Promise<T | undefined> {
  try {
    return await select<T>({
      message,
      choices,
      ...(initial !== undefined ? { default: initial } : {}),
      pageSize: 12,
      loop: false,
    });
  } catch (error) {
    // inquirer's Ctrl-C ends the prompt with ExitPromptError.
    if ((error as Error).name === "ExitPromptError" && interrupted !== undefined) return interrupted;
    if ((error as Error).name === "ExitPromptError" || (error as Error).name === "AbortPromptError") return undefined;
    throw error;
  }
}

/** Dim and bold only when stdout is a terminal that wants colour. */
const styled = process.stdout.isTTY && !process.env.NO_COLOR;
export const dim = (text: string) => (styled ? `\x1b[2m${text}\x1b[22m` : text);
export const bold = (text: string) => (styled ? `\x1b[1m${text}\x1b[22m` : text);

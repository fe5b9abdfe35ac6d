// What commands read from their arguments and files, and where they write: shared by every command.
import { readFileSync, writeFileSync } from "node:fs";
import { UsageError } from "./client.ts";
import { note } from "./format.ts";

/** The positional argument at `index`, or a usage error naming what is missing. */
export function need(args: string[], index: number, what: string, command: string): string {
  const value = args[index];
  if (!value) throw new UsageError(`name the ${what}`, command);
  return value;
}

/** A file's text, or a usage error naming the file. */
export function readText(file: string, command: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read '${file}': ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`,
      command,
    );
  }
}

/** A file's JSON, or a usage error naming the file and what is wrong with it. */
export function readJson(file: string, command: string): unknown {
  const source = readText(file, command);
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new UsageError(`'${file}' is not JSON: ${(error as Error).message}`, command);
  }
}

/** Writes to `--out` when given, else to stdout. */
export function output(content: string, out: string | undefined): void {
  const body = content.endsWith("\n") ? content : `${content}\n`;
  if (out) {
    writeFileSync(out, body);
    note(`Wrote ${out}.`);
  } else process.stdout.write(body);
}

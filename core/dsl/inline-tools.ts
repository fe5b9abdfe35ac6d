import { ScriptError } from "./issues";
import { readForms, type Node } from "./reader";
import { headOf } from "./compiler-state";

/** A string as the DSL reads it back: `\` and `"` escaped, newlines and the rest kept as they are. */
const dslString = (text: string) => `"${text.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;

/**
 * The script with each `(tool … :path "file.ts")` of its actor turned into `:source "…"`, the file's
 * text read by `read` (the CLI reads it beside the script): what the API takes, since it has no files.
 * A file that cannot be read is a ScriptError at the path's line.
 * @example
 * inlineToolPaths(`(actor "a" (tool "x" :description "d" :path "x.ts"))`, () => "export default () => 1;")
 * // `(actor "a" (tool "x" :description "d" :source "export default () => 1;"))`
 */
export function inlineToolPaths(source: string, read: (path: string) => string): string {
  const actor = readForms(source)[0];
  if (actor?.type !== "list") return source;
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === "\n") lineStarts.push(i + 1);
  const replacements: { from: number; to: number; text: string }[] = [];
  for (const form of actor.items) {
    if (headOf(form) !== "tool") continue;
    const items = (form as Node & { type: "list" }).items;
    const at = items.findIndex((item, i) => i >= 2 && item.type === "keyword" && item.name === "path");
    const value = items[at + 1];
    if (at < 0 || value?.type !== "string") continue;
    let text: string;
    try {
      text = read(value.value);
    } catch (error) {
      throw new ScriptError([
        {
          line: value.pos.line,
          column: value.pos.column,
          form: "tool",
          expected: "a file that can be read",
          found: JSON.stringify(value.value),
          message: `(tool …) :path "${value.value}" cannot be read: ${error instanceof Error ? error.message : String(error)}`,
        },
      ]);
    }
    const key = items[at]!;
    const from = lineStarts[key.pos.line - 1]! + key.pos.column - 1;
    // The string ends at the first `"` not escaped after its opening one.
    let to = lineStarts[value.pos.line - 1]! + value.pos.column;
    while (to < source.length && source[to] !== '"') to += source[to] === "\\" ? 2 : 1;
    replacements.push({ from, to: to + 1, text: `:source ${dslString(text)}` });
  }
  let out = source;
  for (const { from, to, text } of replacements.reverse()) out = out.slice(0, from) + text + out.slice(to);
  return out;
}

import type { Node } from "./reader";
import {
  expectString,
  issue,
  keywordArgs,
  literal,
  mark,
  type Compiler,
  type Path,
  type ScriptToolForm,
} from "./compiler-state";

/** The form's options, camelCase, and what each must be. */
const toolOptions = {
  description: "string",
  input: "map",
  hosts: "vector",
  secrets: "vector",
  tools: "vector",
  requiresApproval: "boolean",
  idempotent: "boolean",
  source: "string",
  path: "string",
} as const;

const shown: Record<string, string> = {
  string: "a string",
  map: 'a JSON Schema map such as {:type "object" :properties {:csv {:type "string"}}}',
  vector: 'a vector of strings such as ["api.example.com"]',
  boolean: "true or false",
};

/**
 * `(tool "csv.stats" :description "…" :input {…} [:hosts […]] [:secrets […]] [:tools […]]
 * [:requires-approval true] [:idempotent true] :source "export default …" | :path "tools/csv-stats.ts")`.
 * The source may declare itself (`export const tool = { … }`) instead of the options.
 */
export function compileToolForm(
  c: Compiler,
  form: Node & { type: "list" },
  path: Path,
  tools: unknown[],
): ScriptToolForm | undefined {
  if (path.length > 0)
    return issue(
      c,
      form,
      "tool",
      "(tool …) in the top-level actor",
      "(tool …) in an inline script",
      "(tool …) declares a project tool: write it in the top-level actor, and list its name in the child's (tools …)",
    );
  const name = expectString(c, form.items[1], "tool", form, 'a tool name such as "csv.stats"');
  if (name === undefined) return undefined;
  const args = keywordArgs(c, form.items.slice(2), "tool", Object.keys(toolOptions));
  const fields: Record<string, unknown> = {};
  let bad = false;
  for (const [key, { value }] of args) {
    const want = toolOptions[key as keyof typeof toolOptions];
    const problem =
      value.type !== want ||
      (want === "vector" && value.type === "vector" && value.items.some((item) => item.type !== "string"));
    if (problem) {
      bad = true;
      issue(
        c,
        value,
        "tool",
        shown[want]!,
        undefined,
        `(tool "${name}") :${key.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)} must be ${shown[want]}`,
      );
      continue;
    }
    if (key !== "source" && key !== "path") fields[key] = literal(c, value, "tool");
  }
  const source = args.get("source")?.value;
  const file = args.get("path")?.value;
  if (!!source === !!file)
    return issue(
      c,
      form,
      "tool",
      ":source or :path",
      source ? ":source and :path" : "neither",
      `(tool "${name}") needs its code as :source "…" or :path "file.ts", ${source ? "not both" : "found neither"}`,
    );
  if (bad) return undefined;
  mark(c, ["tools", tools.length], form.items[1]!, "tool");
  if (!tools.includes(name)) tools.push(name);
  return {
    name,
    fields,
    ...(source?.type === "string" ? { source: source.value } : {}),
    ...(file?.type === "string" ? { path: file.value } : {}),
    pos: form.pos,
  };
}

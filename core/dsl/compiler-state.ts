import { didYouMean, type ScriptIssue, type ScriptWarning } from "./issues";
import { describe, type Node, type Pos } from "./reader";

export type Path = (string | number)[];

/**
 * A project script tool a script declares with `(tool …)`: what the form says of it, and its code
 * (`source`, or a `path` the CLI reads and sends as `source`). Whoever stores the script saves the
 * tool to the project (core/sandbox scriptFromForm makes the module); the actor lists it among its tools.
 */
export interface ScriptToolForm {
  name: string;
  /** The declaration's fields the form gives (core/sandbox's ScriptDeclaration, less the name). */
  fields: Record<string, unknown>;
  source?: string;
  path?: string;
  pos: Pos;
}

/** Where a value of the compiled object came from, so later checks can point at the source. */
export interface Mark {
  pos: Pos;
  form: string;
  node: Node;
}

/** Per-compilation state: collected issues, warnings and source marks. Created for each call. */
export interface Compiler {
  issues: ScriptIssue[];
  warnings: ScriptWarning[];
  marks: Map<string, Mark>;
  /** The `(tool …)` forms of the top-level actor: project script tools the script declares. */
  toolForms?: ScriptToolForm[];
}

export const pathKey = (path: Path): string => path.join(".");

export function mark(c: Compiler, path: Path, node: Node, form: string): void {
  c.marks.set(pathKey(path), { pos: node.pos, form, node });
}

/** Records a problem at `node`; returns undefined so callers can `return issue(…)`. */
export function issue(
  c: Compiler,
  node: Node,
  form: string,
  expected: string,
  found = describe(node),
  message?: string,
): undefined {
  c.issues.push({
    line: node.pos.line,
    column: node.pos.column,
    form,
    expected,
    found,
    message: message ?? `expected ${expected}, found ${found}`,
  });
  return undefined;
}

/** The head symbol of a list form, or undefined. */
export function headOf(node: Node): string | undefined {
  return node.type === "list" && node.items[0]?.type === "symbol" ? node.items[0].name : undefined;
}

/** Reports an unknown form name with the nearest known one. */
export function unknownForm(c: Compiler, node: Node, where: string, known: readonly string[]): undefined {
  const name = headOf(node);
  if (name === undefined) return issue(c, node, where, `one of (${known.join(" …), (")} …)`);
  const head = (node as { items: Node[] }).items[0]!;
  return issue(
    c,
    head,
    name,
    `one of: ${known.join(", ")}`,
    `(${name} …)`,
    `unknown form '${name}' in ${where}${didYouMean(name, known)}`,
  );
}

export function expectString(
  c: Compiler,
  node: Node | undefined,
  form: string,
  parent: Node,
  what = "a string",
): string | undefined {
  if (!node) return issue(c, parent, form, what, `end of (${form} …)`, `(${form} …) is missing ${what}`);
  if (node.type !== "string") return issue(c, node, form, what);
  return node.value;
}

/** Checks the count of arguments after the head (`min`..`max`). */
export function arity(
  c: Compiler,
  node: Node & { type: "list" },
  form: string,
  min: number,
  max: number,
  usage: string,
): boolean {
  const n = node.items.length - 1;
  if (n >= min && n <= max) return true;
  const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
  issue(
    c,
    node,
    form,
    usage,
    `${n} argument${n === 1 ? "" : "s"}`,
    `wrong number of arguments to (${form} …): expected ${want} as in ${usage}, found ${n}`,
  );
  return false;
}

export const kebabToCamel = (s: string) => s.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
export const camelToKebab = (s: string) => s.replace(/[A-Z]/g, (ch) => "-" + ch.toLowerCase());

/**
 * Reads `:key value` pairs. Keys are returned in camelCase (`:max-steps` → `maxSteps`);
 * `allowed` lists them in camelCase too.
 */
export function keywordArgs(
  c: Compiler,
  items: Node[],
  form: string,
  allowed: readonly string[],
): Map<string, { key: Node; value: Node }> {
  const out = new Map<string, { key: Node; value: Node }>();
  const shown = allowed.map((k) => ":" + camelToKebab(k));
  for (let k = 0; k < items.length; k += 2) {
    const key = items[k]!;
    if (key.type !== "keyword") {
      issue(c, key, form, `an option, one of ${shown.join(" ")}`);
      continue;
    }
    const name = kebabToCamel(key.name);
    const value = items[k + 1];
    if (!allowed.includes(name)) {
      issue(
        c,
        key,
        form,
        `one of ${shown.join(" ")}`,
        `:${key.name}`,
        `unknown option :${key.name} in (${form} …)${didYouMean(":" + key.name, shown)}`,
      );
    } else if (value === undefined) {
      issue(
        c,
        key,
        form,
        `a value after :${key.name}`,
        `end of (${form} …)`,
        `option :${key.name} in (${form} …) has no value`,
      );
    } else if (out.has(name)) {
      issue(
        c,
        key,
        form,
        `:${key.name} once`,
        `:${key.name} again`,
        `option :${key.name} is given twice in (${form} …)`,
      );
    } else {
      out.set(name, { key, value });
    }
  }
  return out;
}

/** A literal value (string, number, boolean, nil, vector, map) as plain JSON data. */
export function literal(c: Compiler, node: Node, form: string, camelKeys = false): unknown {
  switch (node.type) {
    case "string":
    case "number":
    case "boolean":
      return node.value;
    case "nil":
      return null;
    case "vector":
      return node.items.map((item) => literal(c, item, form, camelKeys));
    case "map":
      return Object.fromEntries(
        node.entries.map(([key, value]) => {
          const name = key.type === "keyword" ? key.name : (key as { value: string }).value;
          return [camelKeys ? kebabToCamel(name) : name, literal(c, value, form, camelKeys)];
        }),
      );
    default:
      return issue(c, node, form, "a plain value (string, number, true/false, nil, [vector] or {map})");
  }
}

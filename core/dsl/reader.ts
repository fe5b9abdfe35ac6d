import { ScriptError, type ScriptIssue } from "./issues";

/** 1-based line and column (UTF-16 code units) where a node starts. */
export interface Pos {
  line: number;
  column: number;
}

/** What the reader produces: data with positions, before any meaning is given to it. */
export type Node =
  | { type: "list"; items: Node[]; pos: Pos }
  | { type: "vector"; items: Node[]; pos: Pos }
  | { type: "map"; entries: [Node, Node][]; pos: Pos }
  | { type: "string"; value: string; pos: Pos }
  | { type: "number"; value: number; pos: Pos }
  | { type: "keyword"; name: string; pos: Pos }
  | { type: "symbol"; name: string; pos: Pos }
  | { type: "boolean"; value: boolean; pos: Pos }
  | { type: "nil"; pos: Pos };

export interface ReadLimits {
  /** Longest source accepted, in characters. */
  maxLength: number;
  /** Deepest nesting of lists, vectors and maps. */
  maxDepth: number;
}

export const defaultReadLimits: ReadLimits = { maxLength: 256 * 1024, maxDepth: 64 };

const closerOf = { "(": ")", "[": "]", "{": "}" } as const;
type Opener = keyof typeof closerOf;
const delimiters = new Set(["(", ")", "[", "]", "{", "}", '"', ";", ","]);
const whitespace = /\s/;
const numberPattern = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const escapes: Record<string, string> = { '"': '"', "\\": "\\", n: "\n", t: "\t", r: "\r" };

interface Open {
  opener: Opener;
  pos: Pos;
  items: Node[];
}

/**
 * Reads every top-level form of `source`. Throws a ScriptError at the first syntax problem,
 * naming where an unclosed bracket or string opened.
 * @example
 * readForms('(actor "x")')[0] // { type: "list", items: [...], pos: { line: 1, column: 1 } }
 */
export function readForms(source: string, limits: ReadLimits = defaultReadLimits): Node[] {
  if (source.length > limits.maxLength)
    fail(
      { line: 1, column: 1 },
      "script",
      `at most ${limits.maxLength} characters`,
      `${source.length} characters`,
      `the script is too long: ${source.length} characters, the limit is ${limits.maxLength}`,
    );
  const top: Node[] = [];
  const stack: Open[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const here = (): Pos => ({ line, column: i - lineStart + 1 });
  const emit = (node: Node) => (stack.length ? stack[stack.length - 1]!.items : top).push(node);

  while (i < source.length) {
    const ch = source[i]!;
    if (ch === "\n") {
      i++;
      line++;
      lineStart = i;
    } else if (ch === "," || whitespace.test(ch)) {
      i++;
    } else if (ch === ";") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (ch === "(" || ch === "[" || ch === "{") {
      if (stack.length >= limits.maxDepth)
        fail(
          here(),
          "script",
          `at most ${limits.maxDepth} levels of nesting`,
          `a '${ch}' at level ${stack.length + 1}`,
          `nesting is too deep: more than ${limits.maxDepth} levels`,
        );
      stack.push({ opener: ch, pos: here(), items: [] });
      i++;
    } else if (ch === ")" || ch === "]" || ch === "}") {
      const open = stack.pop();
      if (!open)
        fail(
          here(),
          "script",
          "a form or the end of the script",
          `'${ch}'`,
          `unexpected '${ch}': nothing is open here`,
        );
      if (closerOf[open.opener] !== ch)
        fail(
          here(),
          open.opener,
          `'${closerOf[open.opener]}' to close the '${open.opener}' opened at ${open.pos.line}:${open.pos.column}`,
          `'${ch}'`,
        );
      i++;
      emit(close(open));
    } else if (ch === '"') {
      const start = here();
      let value = "";
      i++;
      for (;;) {
        if (i >= source.length)
          fail(
            start,
            "string",
            "a closing '\"'",
            "end of input",
            `unterminated string: the string opened at ${start.line}:${start.column} has no closing '"'`,
          );
        const c = source[i]!;
        if (c === '"') break;
        if (c === "\\") {
          const escPos = here();
          const next = source[i + 1];
          if (next === "u") {
            const hex = source.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(escPos, "string", "\\u followed by 4 hex digits", `\\u${hex}`);
            value += String.fromCharCode(parseInt(hex, 16));
            i += 6;
          } else if (next !== undefined && escapes[next] !== undefined) {
            value += escapes[next];
            i += 2;
          } else {
            fail(
              escPos,
              "string",
              'one of \\" \\\\ \\n \\t \\r \\uXXXX',
              next === undefined ? "end of input" : `\\${next}`,
              `bad escape in string: expected one of \\" \\\\ \\n \\t \\r \\uXXXX`,
            );
          }
        } else {
          if (c === "\n") {
            line++;
            lineStart = i + 1;
          }
          value += c;
          i++;
        }
      }
      i++;
      emit({ type: "string", value, pos: start });
    } else {
      const start = here();
      const from = i;
      // The first character is neither a delimiter nor whitespace (handled above), so the atom is never empty.
      while (i < source.length && !delimiters.has(source[i]!) && !whitespace.test(source[i]!)) i++;
      emit(atom(source.slice(from, i), start));
    }
  }
  const unclosed = stack.pop();
  if (unclosed)
    fail(
      unclosed.pos,
      unclosed.opener,
      `'${closerOf[unclosed.opener]}' to close the '${unclosed.opener}' opened at ${unclosed.pos.line}:${unclosed.pos.column}`,
      "end of input",
      `unbalanced '${unclosed.opener}': the one opened at ${unclosed.pos.line}:${unclosed.pos.column} is never closed`,
    );
  return top;
}

function atom(text: string, pos: Pos): Node {
  if (/^-?\d/.test(text)) {
    const value = Number(text);
    if (!numberPattern.test(text)) fail(pos, "number", "a number such as 3, -2 or 0.5", text, `bad number '${text}'`);
    if (!Number.isFinite(value)) fail(pos, "number", "a number within range", text, `number '${text}' is too large`);
    return { type: "number", value, pos };
  }
  if (text.startsWith(":")) {
    const name = text.slice(1);
    if (name === "" || name.startsWith(":"))
      fail(pos, "keyword", "a keyword such as :active", text, `bad keyword '${text}'`);
    return { type: "keyword", name, pos };
  }
  if (text === "true" || text === "false") return { type: "boolean", value: text === "true", pos };
  if (text === "nil") return { type: "nil", pos };
  return { type: "symbol", name: text, pos };
}

function close(open: Open): Node {
  if (open.opener === "(") return { type: "list", items: open.items, pos: open.pos };
  if (open.opener === "[") return { type: "vector", items: open.items, pos: open.pos };
  if (open.items.length % 2 !== 0)
    fail(
      open.pos,
      "map",
      "key/value pairs",
      `${open.items.length} items`,
      `the map opened at ${open.pos.line}:${open.pos.column} has a key without a value`,
    );
  const entries: [Node, Node][] = [];
  const seen = new Set<string>();
  for (let k = 0; k < open.items.length; k += 2) {
    const key = open.items[k]!;
    if (key.type !== "keyword" && key.type !== "string")
      fail(key.pos, "map", 'a key such as :repo or "repo"', describe(key));
    const name = key.type === "keyword" ? key.name : (key as { value: string }).value;
    if (seen.has(name)) fail(key.pos, "map", "each key once", `'${name}' again`, `duplicate key '${name}' in map`);
    seen.add(name);
    entries.push([key, open.items[k + 1]!]);
  }
  return { type: "map", entries, pos: open.pos };
}

function fail(pos: Pos, form: string, expected: string, found: string, message?: string): never {
  const issue: ScriptIssue = {
    line: pos.line,
    column: pos.column,
    form,
    expected,
    found,
    message: message ?? `expected ${expected}, found ${found}`,
  };
  throw new ScriptError([issue]);
}

/** A short human description of a node, for "found …" in messages. */
export function describe(node: Node | undefined): string {
  if (!node) return "nothing";
  switch (node.type) {
    case "list": {
      const head = node.items[0];
      return head ? `(${head.type === "symbol" ? head.name : describe(head)} …)` : "()";
    }
    case "vector":
      return "a vector […]";
    case "map":
      return "a map {…}";
    case "string":
      return `string ${JSON.stringify(node.value.length > 40 ? node.value.slice(0, 40) + "…" : node.value)}`;
    case "number":
      return `number ${node.value}`;
    case "keyword":
      return `:${node.name}`;
    case "symbol":
      return `symbol ${node.name}`;
    case "boolean":
      return String(node.value);
    case "nil":
      return "nil";
  }
}

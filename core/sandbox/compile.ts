import type { Node } from "acorn";
import { readDeclaration, type ScriptDeclaration } from "./declaration";
import { scriptInvalid } from "./invalid";

/** The name of the step counter the compiler calls; a script may not use the prefix itself. */
export const stepHook = "__pantheon_step";
const reservedPrefix = "__pantheon";

/** A compiled script: its module, what it declares, and the hash warm isolates are keyed by. */
export interface CompiledScript {
  declaration: ScriptDeclaration;
  /** ES module JavaScript, the source's line numbers kept, with a step count at every loop and call. */
  code: string;
  /** SHA-256 of `code`, hex. */
  codeId: string;
}

type Located = Node & { body?: Node & { type: string } };

/**
 * Compiles a script tool's TypeScript (or JavaScript) when it is saved: types stripped by sucrase,
 * which keeps every line where it was so an error's line is the author's; then each loop body and
 * function body counts a step, so an endless loop stops at the step limit even where the platform's
 * CPU limit is not enforced. Imports are refused (a script is one file; its tools come through `ctx`).
 * @example
 * const { declaration, code } = await compileScript(`export const tool = { name: "add", description: "a+b", input: { type: "object" } };
 * export default async function (input: { a: number; b: number }) { return input.a + input.b; }`);
 */
export async function compileScript(source: string): Promise<CompiledScript> {
  // Loaded here, when a script is saved: sucrase's and acorn's modules build their token and keyword
  // tables when they are evaluated, which every isolate paid at startup for the few that compile.
  const [{ transform }, { parse }, { simple }] = await Promise.all([
    import("sucrase"),
    import("acorn"),
    import("acorn-walk"),
  ]);
  if (source.includes(reservedPrefix)) {
    const line = source.slice(0, source.indexOf(reservedPrefix)).split("\n").length;
    throw scriptInvalid(`names starting with '${reservedPrefix}' are reserved`, line);
  }
  let js: string;
  try {
    js = transform(source, { transforms: ["typescript"], disableESTransforms: true }).code;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = /\((\d+):\d+\)/.exec(message)?.[1];
    throw scriptInvalid(`not valid TypeScript: ${message}`, line ? Number(line) : undefined);
  }
  let ast: Node;
  try {
    ast = parse(js, { ecmaVersion: "latest", sourceType: "module", locations: true });
  } catch (error) {
    const e = error as { message?: string; loc?: { line: number } };
    throw scriptInvalid(`not valid JavaScript: ${e.message ?? String(error)}`, e.loc?.line);
  }
  const declaration = readDeclaration(ast);
  const inserts: { at: number; text: string }[] = [];
  const count = `${stepHook}();`;
  const intoBody = (node: Located) => {
    const body = node.body;
    if (!body) return;
    if (body.type === "BlockStatement") inserts.push({ at: body.start + 1, text: count });
    else if (node.type === "ArrowFunctionExpression") {
      inserts.push({ at: body.start, text: `(${stepHook}(), ` }, { at: body.end, text: ")" });
    } else inserts.push({ at: body.start, text: `{${count}` }, { at: body.end, text: "}" });
  };
  let hasDefault = false;
  simple(ast, {
    ImportDeclaration(node) {
      throw scriptInvalid("imports are not available: a script is one file", node.loc?.start.line);
    },
    ImportExpression(node) {
      throw scriptInvalid("imports are not available: a script is one file", node.loc?.start.line);
    },
    ExportDefaultDeclaration() {
      hasDefault = true;
    },
    ForStatement: intoBody,
    ForInStatement: intoBody,
    ForOfStatement: intoBody,
    WhileStatement: intoBody,
    DoWhileStatement: intoBody,
    FunctionDeclaration: intoBody,
    FunctionExpression: intoBody,
    ArrowFunctionExpression: intoBody,
  });
  if (!hasDefault)
    throw scriptInvalid("a script exports its function as default: export default async function (input, ctx) { … }");
  // From the end backwards, so each offset still points where it did; no text adds a line.
  inserts.sort((a, b) => b.at - a.at);
  let code = js;
  for (const { at, text } of inserts) code = code.slice(0, at) + text + code.slice(at);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code));
  const codeId = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { declaration, code, codeId };
}

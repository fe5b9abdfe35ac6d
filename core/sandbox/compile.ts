import type { Node } from "acorn";
import { readDeclaration, type ScriptDeclaration } from "./declaration";
import { scriptInvalid } from "./invalid";

/** The name of the step counter the compiler calls; a script may not use the prefix itself. */
export const stepHook = "__pantheon_step";
/** The meter's hooks (the harness defines them): an allocation of a known size, a spread, a string. */
const allocHook = "__pantheon_alloc";
const spreadHook = "__pantheon_spread";
const stringHook = "__pantheon_str";
const reservedPrefix = "__pantheon";

/** A compiled script: its module, what it declares, and the hash warm isolates are keyed by. */
export interface CompiledScript {
  declaration: ScriptDeclaration;
  /**
   * ES module JavaScript, the source's line numbers kept, with a step count at every loop and call and
   * the allocation meter's charges at each literal, `new`, spread and string `+` (SandboxLimits).
   */
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
  // `order` settles inserts at one offset: a loop body's `{` is written first and its `}` last, so
  // the expressions' wrappers (all `name(` … `)`, which nest either way) stay inside the block.
  const inserts: { at: number; text: string; order: number }[] = [];
  const count = `${stepHook}();`;
  const wrap = (node: Node, head: string) =>
    inserts.push({ at: node.start, text: head, order: 1 }, { at: node.end, text: ")", order: 1 });
  const intoBody = (node: Located) => {
    const body = node.body;
    if (!body) return;
    if (body.type === "BlockStatement") inserts.push({ at: body.start + 1, text: count, order: 1 });
    else if (node.type === "ArrowFunctionExpression") wrap(body, `(${stepHook}(), `);
    else inserts.push({ at: body.start, text: `{${count}`, order: 2 }, { at: body.end, text: "}", order: 0 });
  };
  // What an allocation costs the meter (see SandboxLimits.allocationBytes): charged as it is made.
  const tagged = new Set<Node>();
  const templates: Node[] = [];
  const allocations = {
    ObjectExpression(node: Node & { properties: unknown[] }) {
      wrap(node, `${allocHook}(${64 + 16 * node.properties.length}, `);
    },
    ArrayExpression(node: Node & { elements: unknown[] }) {
      wrap(node, `${allocHook}(${64 + 8 * node.elements.length}, `);
    },
    NewExpression(node: Node) {
      wrap(node, `${allocHook}(64, `);
    },
    SpreadElement(node: Node & { argument: Node }) {
      wrap(node.argument, `${spreadHook}(`);
    },
    TaggedTemplateExpression(node: Node & { quasi: Node }) {
      tagged.add(node.quasi);
    },
    TemplateLiteral(node: Node & { expressions: unknown[] }) {
      if (node.expressions.length) templates.push(node);
    },
    BinaryExpression(node: Node & { operator: string }) {
      if (node.operator === "+") wrap(node, `${stringHook}(`);
    },
    AssignmentExpression(node: Node & { operator: string }) {
      if (node.operator === "+=") wrap(node, `${stringHook}(`);
    },
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
    ...(allocations as unknown as Record<string, (node: Node) => void>),
  });
  // A tagged template's literal is its tag's argument, not a string (its tag is seen after it).
  for (const template of templates) if (!tagged.has(template)) wrap(template, `${stringHook}(`);
  if (!hasDefault)
    throw scriptInvalid("a script exports its function as default: export default async function (input, ctx) { … }");
  // From the end backwards, so each offset still points where it did; no text adds a line.
  inserts.sort((a, b) => b.at - a.at || a.order - b.order);
  let code = js;
  for (const { at, text } of inserts) code = code.slice(0, at) + text + code.slice(at);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code));
  const codeId = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { declaration, code, codeId };
}

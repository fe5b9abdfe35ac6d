import { didYouMean } from "./issues";
import { describe, type Node } from "./reader";
import type { Expr, Scope } from "./script-schema";
import { arity, headOf, issue, type Compiler } from "./compiler-state";

/** Parameter names of a `(goal (…) …)` or `(plan (…) …)` form, bound to what they stand for. */
export type Bindings = Map<string, Scope>;

const exprForms = ["get", "concat"] as const;

/** Reads the `(input ctx)` parameter list: the first name stands for the input, the second for the context. */
export function readParams(c: Compiler, node: Node, form: string): Bindings | undefined {
  if (node.type !== "list" || node.items.some((p) => p.type !== "symbol") || node.items.length > 2)
    return issue(c, node, form, "a parameter list such as (input ctx)");
  const bindings: Bindings = new Map();
  node.items.forEach((p, i) => {
    const name = (p as { name: string }).name;
    if (bindings.has(name)) issue(c, p, form, "distinct parameter names", `${name} twice`);
    bindings.set(name, i === 0 ? "input" : "ctx");
  });
  return bindings;
}

/**
 * Turns a node into an expression: literals, `"$prev"`, vectors, maps, `(get input "k")`,
 * `(concat …)`, or a bare parameter name for the whole scope.
 */
export function compileExpr(c: Compiler, node: Node, form: string, bindings: Bindings): Expr | undefined {
  switch (node.type) {
    case "string":
      return node.value === "$prev" ? { prev: true } : node.value;
    case "number":
    case "boolean":
      return node.value;
    case "nil":
      return null;
    case "vector": {
      const items = node.items.map((item) => compileExpr(c, item, form, bindings));
      return items.every((x) => x !== undefined) ? items : undefined;
    }
    case "map": {
      const entries = node.entries.map(
        ([key, value]) =>
          [
            key.type === "keyword" ? key.name : (key as { value: string }).value,
            compileExpr(c, value, form, bindings),
          ] as const,
      );
      return entries.every(([, v]) => v !== undefined)
        ? { map: Object.fromEntries(entries) as Record<string, Expr> }
        : undefined;
    }
    case "symbol": {
      const scope = bindings.get(node.name);
      if (scope) return { get: [scope] };
      return issue(
        c,
        node,
        form,
        `an expression or a parameter (${[...bindings.keys()].join(", ") || "none declared"})`,
        `symbol ${node.name}`,
        `unknown name '${node.name}' in (${form} …): expected one of the parameters (${[...bindings.keys()].join(" ")})${didYouMean(node.name, [...bindings.keys()])}`,
      );
    }
    case "keyword":
      return issue(c, node, form, "an expression (string, number, (get …), (concat …), {map}, [vector])");
    case "list": {
      const head = headOf(node);
      if (head === "get") return compileGet(c, node, bindings);
      if (head === "concat") {
        const parts = node.items.slice(1).map((item) => compileExpr(c, item, "concat", bindings));
        return parts.every((x) => x !== undefined) ? { concat: parts } : undefined;
      }
      if (head === undefined) return issue(c, node, form, "an expression form (get …) or (concat …)");
      return issue(
        c,
        node.items[0]!,
        head,
        "(get …) or (concat …)",
        `(${head} …)`,
        `unknown expression '${head}'${didYouMean(head, exprForms)}: expected (get input "key") or (concat …)`,
      );
    }
  }
}

function compileGet(c: Compiler, node: Node & { type: "list" }, bindings: Bindings): Expr | undefined {
  if (!arity(c, node, "get", 2, 16, '(get input "key")')) return undefined;
  const target = node.items[1]!;
  const scope = target.type === "symbol" ? bindings.get(target.name) : undefined;
  if (!scope)
    return issue(
      c,
      target,
      "get",
      `a parameter (${[...bindings.keys()].join(", ") || "none declared"})`,
      describe(target),
      `(get …) reads from a parameter such as input or ctx, found ${describe(target)}`,
    );
  const keys: string[] = [];
  for (const key of node.items.slice(2)) {
    if (key.type === "string" && key.value !== "") keys.push(key.value);
    else if (key.type === "keyword") keys.push(key.name);
    else return issue(c, key, "get", 'a key such as "repo"');
  }
  return { get: [scope, ...keys] };
}

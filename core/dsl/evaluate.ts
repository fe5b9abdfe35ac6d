import type { SupervisePolicy } from "../behaviors/supervision";
import type { Action, ActorScript, Expr, Plan } from "./script-schema";

/** What expressions can read: the behavior's input, the run context and the previous action's result. */
export interface ExprScope {
  input?: unknown;
  ctx?: unknown;
  prev?: unknown;
}

/** JSON data an expression evaluates to. Missing fields read as null. */
export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

/**
 * Evaluates an expression. Pure: no I/O, no clock.
 * @example
 * evaluateExpr({ concat: ["Review ", { get: ["input", "repo"] }] }, { input: { repo: "pantheon" } }) // "Review pantheon"
 */
export function evaluateExpr(expr: Expr, scope: ExprScope): Value {
  if (expr === null || typeof expr !== "object") return expr;
  if (Array.isArray(expr)) return expr.map((item) => evaluateExpr(item, scope));
  if ("get" in expr) {
    const [from, ...keys] = expr.get;
    let value: unknown = from === "input" ? scope.input : scope.ctx;
    for (const key of keys)
      value =
        typeof value === "object" && value !== null && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    return toValue(value);
  }
  if ("concat" in expr) return expr.concat.map((part) => asText(evaluateExpr(part, scope))).join("");
  if ("map" in expr)
    return Object.fromEntries(Object.entries(expr.map).map(([key, value]) => [key, evaluateExpr(value, scope)]));
  return toValue(scope.prev);
}

/**
 * The `(get input …)` paths of an expression that the scope has no value for: they read as null,
 * and the run's trace says which (a typo in a key is visible, not silent).
 * @example
 * missingInputKeys({ get: ["input", "repo"] }, { input: { text: "hi" } }) // ["repo"]
 */
export function missingInputKeys(expr: Expr, scope: ExprScope): string[] {
  const missing = new Set<string>();
  const walk = (e: Expr): void => {
    if (e === null || typeof e !== "object") return;
    if (Array.isArray(e)) return e.forEach(walk);
    if ("get" in e) {
      const [from, ...keys] = e.get;
      if (from !== "input") return;
      let value: unknown = scope.input;
      for (const key of keys) {
        if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) {
          missing.add(keys.join("."));
          return;
        }
        value = (value as Record<string, unknown>)[key];
      }
      return;
    }
    if ("concat" in e) return e.concat.forEach(walk);
    if ("map" in e) return Object.values(e.map).forEach(walk);
  };
  walk(expr);
  return [...missing];
}

function asText(value: Value): string {
  if (value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Outside data made JSON-safe: undefined, functions and non-finite numbers read as null. */
function toValue(value: unknown): Value {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "object") {
    const json = JSON.stringify(value);
    return json === undefined ? null : (JSON.parse(json) as Value);
  }
  return null;
}

/**
 * The actions of a plan in the order they run. The templates still hold expressions;
 * `resolveArgs` fills them in once the scope of that step is known.
 * @example
 * resolvePlan(behavior.plan).map((a) => a.kind) // ["tool", "think"]
 */
export function resolvePlan(plan: Plan): readonly Action[] {
  return plan.steps;
}

/** An action with every expression evaluated: what the runtime executes. */
export type ResolvedAction =
  | { kind: "tool"; tool: string; args: { [key: string]: Value } }
  | { kind: "message"; role: "assistant" | "system" | "user"; content: string }
  | { kind: "ask"; targets: string[]; question: string }
  | { kind: "remember"; content: string }
  | { kind: "think" }
  | { kind: "spawn"; script: string | ActorScript; goal: string; supervise?: SupervisePolicy };

/**
 * Evaluates the expressions of one action template in `scope` (with `prev` = the result of the
 * previous step). Text fields (message content, questions, goals) are rendered as strings.
 * @example
 * resolveArgs({ kind: "tool", tool: "git.diff", args: { repo: { get: ["input", "repo"] } } }, { input: { repo: "x" } })
 * // { kind: "tool", tool: "git.diff", args: { repo: "x" } }
 */
export function resolveArgs(template: Action, scope: ExprScope): ResolvedAction {
  const text = (expr: Expr) => asText(evaluateExpr(expr, scope));
  switch (template.kind) {
    case "tool":
      return {
        kind: "tool",
        tool: template.tool,
        args: Object.fromEntries(Object.entries(template.args).map(([k, v]) => [k, evaluateExpr(v, scope)])),
      };
    case "message":
      return { kind: "message", role: template.role, content: text(template.content) };
    case "ask":
      return { kind: "ask", targets: [...template.targets], question: text(template.question) };
    case "remember":
      return { kind: "remember", content: text(template.content) };
    case "think":
      return { kind: "think" };
    case "spawn":
      return {
        kind: "spawn",
        script: template.script,
        goal: text(template.goal),
        ...(template.supervise ? { supervise: template.supervise } : {}),
      };
  }
}

import { ScriptError } from "./issues";
import { defaultReadLimits } from "./reader";
import { finishScript, type CompileResult, type Path } from "./finish";
import { checkedIdle, type CompileOptions } from "./compile";

/**
 * Compiles the JSON form of a script (the ActorScript object itself) through the same schema.
 * Issues carry line 0, column 0 and the JSON path in `form`.
 * @example
 * const { script } = compileScriptJson(JSON.parse(text));
 */
export function compileScriptJson(value: unknown, options: CompileOptions = {}): CompileResult {
  const defaultIdle = checkedIdle(options.defaultIdle);
  const limits = { ...defaultReadLimits, ...options.limits };
  // JSON nests about twice as deep as the DSL for the same script (objects inside arrays).
  const data = plainCopy(value, limits.maxDepth * 2 + 8, { budget: limits.maxLength });
  return finishScript(data, (path: Path) => ({ line: 0, column: 0, form: path.join(".") || "(root)" }), {
    knownTools: options.knownTools,
    knownAgents: options.knownAgents,
    defaultIdle,
  });
}

function tooBig(form: string, expected: string, found: string, message: string): never {
  throw new ScriptError([{ line: 0, column: 0, form, expected, found, message }]);
}

/**
 * A copy holding only JSON data, bounded in depth and size, so the schema never meets cycles,
 * getters that throw, or inputs big enough to stall.
 */
function plainCopy(value: unknown, maxDepth: number, size: { budget: number }, path: string[] = []): unknown {
  const form = path.join(".") || "(root)";
  if (path.length > maxDepth)
    tooBig(
      form,
      `at most ${maxDepth} levels of nesting`,
      "deeper nesting",
      `nesting is too deep at ${form}: more than ${maxDepth} levels`,
    );
  size.budget -= 1;
  if (size.budget < 0) tooBig(form, "a smaller script", "too many values", "the script is too large");
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "string") {
    size.budget -= value.length;
    if (size.budget < 0) tooBig(form, "a smaller script", "too much text", "the script is too large");
    return value;
  }
  try {
    if (Array.isArray(value)) return value.map((item, i) => plainCopy(item, maxDepth, size, [...path, String(i)]));
    if (
      typeof value === "object" &&
      (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)
    ) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        // An own `__proto__` (JSON.parse keeps one) would set `out`'s prototype: the field would vanish unreported.
        if (key === "__proto__")
          tooBig(
            [...path, key].join("."),
            "a field name other than '__proto__'",
            "'__proto__'",
            `'__proto__' at ${[...path, key].join(".")} is a reserved key: rename the field`,
          );
        if (item !== undefined) out[key] = plainCopy(item, maxDepth, size, [...path, key]);
      }
      return out;
    }
  } catch (error) {
    if (error instanceof ScriptError) throw error;
    tooBig(form, "plain JSON data", "a value that cannot be read", `the value at ${form} cannot be read as JSON`);
  }
  return tooBig(form, "plain JSON data", typeof value, `the value at ${form} is a ${typeof value}, not JSON data`);
}

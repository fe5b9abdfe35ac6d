import { Validator, type OutputUnit } from "@cfworker/json-schema";
import type { FieldIssue } from "../errors";

export type ArgumentCheck = { valid: true } | { valid: false; issues: FieldIssue[] };

/** Keywords whose errors only say "something below failed"; the error below says what. */
const wrapperKeywords = new Set([
  "properties",
  "items",
  "prefixItems",
  "additionalProperties",
  "patternProperties",
  "allOf",
  "$ref",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "dependentSchemas",
]);

function pathOf(instanceLocation: string): (string | number)[] {
  return instanceLocation
    .replace(/^#\/?/, "")
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => {
      const text = decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~");
      return /^\d+$/.test(text) ? Number(text) : text;
    });
}

function issueOf(unit: OutputUnit): FieldIssue {
  const path = pathOf(unit.instanceLocation);
  if (unit.keyword === "required") {
    const missing = /"([^"]+)"/.exec(unit.error)?.[1];
    return { path: missing === undefined ? path : [...path, missing], message: "is required" };
  }
  if (unit.keyword === "false") return { path, message: "is not allowed here" };
  return { path, message: unit.error };
}

/**
 * Checks tool arguments against the tool's JSON Schema (draft 2020-12) and names each bad field.
 * @example
 * validateArguments({ type: "object", required: ["url"] }, {});
 * // { valid: false, issues: [{ path: ["url"], message: "is required" }] }
 */
export function validateArguments(schema: Record<string, unknown>, args: unknown): ArgumentCheck {
  let result: ReturnType<Validator["validate"]>;
  try {
    result = new Validator(schema as never, "2020-12", false).validate(args);
  } catch (error) {
    return {
      valid: false,
      issues: [
        {
          path: [],
          message: `the tool's schema cannot be used: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
    };
  }
  if (result.valid) return { valid: true };
  const leaves = result.errors.filter(
    (unit) =>
      !wrapperKeywords.has(unit.keyword) ||
      !result.errors.some((other) => other !== unit && other.instanceLocation.startsWith(`${unit.instanceLocation}/`)),
  );
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const unit of leaves.length > 0 ? leaves : result.errors) {
    const issue = issueOf(unit);
    const key = `${issue.path.join("/")}|${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return { valid: false, issues };
}

/** One line per issue, for the model: `url: is required; n: 0 is less than 1.` */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(arguments)"}: ${issue.message}`)
    .join("; ");
}

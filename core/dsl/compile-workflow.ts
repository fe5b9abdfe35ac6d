import { describe, type Node } from "./reader";
import {
  expectString,
  headOf,
  issue,
  keywordArgs,
  literal,
  mark,
  unknownForm,
  type Compiler,
  type Path,
} from "./compiler-state";

type List = Node & { type: "list" };
const stepKinds = ["ask", "fanout", "tool", "join"] as const;
const stepOptions = [...stepKinds, "input", "after", "policy", "args", "weights", "rounds", "retries", "tie"] as const;

/** A list of names: `("a" "b")` or `["a" "b"]`. */
function names(c: Compiler, node: Node, form: string): unknown[] {
  const items = node.type === "vector" || node.type === "list" ? node.items : [node];
  return items.map((item) => (item.type === "string" ? item.value : issue(c, item, form, 'a name such as "judge-a"')));
}

const word = (node: Node) =>
  node.type === "keyword"
    ? node.name
    : node.type === "string"
      ? node.value
      : node.type === "symbol"
        ? node.name
        : undefined;

/**
 * `(workflow "name" (step "id" :ask "agent" :input "…" [:after ("a")]) …)` → a raw workflow
 * (validated later by core/workflows `workflowSchema`). A step is one of `:ask "agent"`,
 * `:fanout ("a" "b") :policy :critique`, `:tool "clock.now" :args {…}`, `:join ("a" "b") :policy :majority`.
 * @example
 * (workflow "verdict" (step "a" :ask "judge-a" :input "{{input}}") (step "b" :ask "judge-b" :input "{{input}}") (step "v" :join ("a" "b") :policy :majority))
 */
export function compileWorkflow(c: Compiler, node: List, path: Path): Record<string, unknown> {
  mark(c, path, node, "workflow");
  const out: Record<string, unknown> = { steps: [] };
  out.name = expectString(c, node.items[1], "workflow", node, 'a workflow name such as "triage"');
  for (const form of node.items.slice(2)) {
    if (headOf(form) === "description") {
      out.description = expectString(c, (form as List).items[1], "description", form);
      continue;
    }
    if (headOf(form) !== "step") {
      unknownForm(c, form, "workflow", ["step", "description"]);
      continue;
    }
    const steps = out.steps as unknown[];
    steps.push(compileStep(c, form as List, [...path, "steps", steps.length]));
  }
  return out;
}

function compileStep(c: Compiler, form: List, path: Path): Record<string, unknown> {
  mark(c, path, form, "step");
  const step: Record<string, unknown> = {
    id: expectString(c, form.items[1], "step", form, 'a step id such as "judge"'),
  };
  const args = keywordArgs(c, form.items.slice(2), "step", stepOptions);
  const kinds = stepKinds.filter((k) => args.has(k));
  if (kinds.length !== 1) {
    issue(
      c,
      form,
      "step",
      'one of :ask "agent", :fanout ("a" "b"), :tool "name", :join ("a" "b")',
      kinds.length ? kinds.map((k) => `:${k}`).join(" and ") : "none",
    );
    return step;
  }
  const kind = kinds[0]!;
  step.kind = kind;
  const value = args.get(kind)!.value;
  if (kind === "ask")
    step.agent = value.type === "string" ? value.value : issue(c, value, "step", 'an agent name such as "judge-a"');
  if (kind === "tool")
    step.tool = value.type === "string" ? value.value : issue(c, value, "step", 'a tool name such as "clock.now"');
  if (kind === "fanout") step.targets = names(c, value, "step");
  if (kind === "join") step.after = names(c, value, "step");
  for (const [key, { value: v }] of args) {
    if ((stepKinds as readonly string[]).includes(key)) continue;
    mark(c, [...path, key], v, "step");
    if (key === "after") step.after = names(c, v, "step");
    else if (key === "policy" || key === "tie")
      step[key] = word(v) ?? issue(c, v, "step", `a ${key} such as :majority`, describe(v));
    else step[key] = literal(c, v, "step");
  }
  return step;
}

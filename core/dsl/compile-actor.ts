import { compileDenyPattern, denyPatternExpected } from "../gates/pattern";
import { didYouMean } from "./issues";
import type { Node } from "./reader";
import { limitKeys, modelKeys } from "./script-schema";
import { arity, expectString, headOf, issue, keywordArgs, literal, mark, unknownForm, type Compiler, type Path } from "./compiler-state";
import { compileTalent } from "./compile-behavior";

type List = Node & { type: "list" };
const actorForms = ["description", "role", "model", "context", "tools", "connections", "limits", "gate", "grants", "spawn", "talent"] as const;
/** Forms that may appear once; the others accumulate. */
const singletons = new Set(["description", "role", "model", "limits", "spawn", "grants"]);
const gateKinds = ["denyPattern", "allowHosts", "maxCalls"] as const;

/**
 * `(actor "name" …)` → a raw script object (validated later by the schema). Also used for
 * scripts spawned inline.
 */
export function compileActor(c: Compiler, node: List, path: Path): Record<string, unknown> {
  mark(c, path, node, "actor");
  const out: Record<string, unknown> = { contextSources: [], tools: [], connections: [], gates: [], talents: [] };
  const nameNode = node.items[1];
  out.name = expectString(c, nameNode, "actor", node, 'an actor name such as "dev-buddy"');
  if (nameNode) mark(c, [...path, "name"], nameNode, "actor");
  const seen = new Map<string, Node>();
  for (const form of node.items.slice(2)) {
    const head = headOf(form);
    if (head === undefined || !(actorForms as readonly string[]).includes(head)) {
      unknownForm(c, form, "actor", actorForms);
      continue;
    }
    const earlier = seen.get(head);
    if (earlier && singletons.has(head)) {
      issue(c, form, head, `one (${head} …) per actor`, `a second (${head} …)`, `(${head} …) is given twice; the first is at ${earlier.pos.line}:${earlier.pos.column}`);
      continue;
    }
    seen.set(head, form);
    compileActorForm(c, form as List, head, path, out);
  }
  // The design writes actors with a role and no description: the description is derived from
  // them, and the compiled script says so (and a warning points at where to write one).
  if (!seen.has("description") && typeof out.name === "string") {
    const how = typeof out.role === "string" ? "from (role …) and the actor's name" : "from the actor's name";
    out.description = typeof out.role === "string" ? `${out.role} (${out.name})` : out.name;
    out.derived = { description: how };
    c.warnings.push({ line: node.pos.line, column: node.pos.column, form: "actor", message: `no (description "…"): derived "${out.description as string}" ${how}; write one to say what the agent is for` });
  }
  return out;
}

function compileActorForm(c: Compiler, form: List, head: string, path: Path, out: Record<string, unknown>): void {
  const at = (key: string, ...rest: (string | number)[]) => [...path, key, ...rest];
  switch (head) {
    case "description":
    case "role":
      if (!arity(c, form, head, 1, 1, `(${head} "…")`)) return;
      mark(c, at(head), form.items[1]!, head);
      out[head] = expectString(c, form.items[1], head, form);
      return;
    case "model": {
      const model: Record<string, unknown> = {};
      for (const [key, { value }] of keywordArgs(c, form.items.slice(1), "model", modelKeys)) {
        mark(c, at("model", key), value, "model");
        const want = key === "provider" || key === "name" ? "string" : key === "fallback" ? "map" : "number";
        if (value.type !== want) issue(c, value, "model", want === "map" ? 'a map such as {:provider "anthropic" :name "claude-haiku"}' : `a ${want}`);
        else model[key] = literal(c, value, "model", true);
      }
      out.model = model;
      return;
    }
    case "context":
    case "tools":
    case "connections":
    case "grants": {
      const key = head === "context" ? "contextSources" : head;
      const list = out[key] as unknown[] | undefined;
      const into = list ?? (out[key] = []);
      for (const item of form.items.slice(1)) {
        const source = head === "context" && headOf(item) === "source" ? (item as List).items[1] : item;
        if (head === "context" && headOf(item) === "source" && !arity(c, item as List, "source", 1, 1, '(source "docs")')) continue;
        if (head === "context" && item.type === "list" && headOf(item) !== "source") {
          unknownForm(c, item, "context", ["source"]);
          continue;
        }
        const value = expectString(c, source, head, form, head === "context" ? 'a (source "name")' : "a name string");
        if (value === undefined) continue;
        mark(c, at(key, (into as unknown[]).length), source!, head);
        (into as unknown[]).push(value);
      }
      return;
    }
    case "limits": {
      const limits: Record<string, unknown> = {};
      for (const [key, { value }] of keywordArgs(c, form.items.slice(1), "limits", limitKeys)) {
        mark(c, at("limits", key), value, "limits");
        if (value.type !== "number") issue(c, value, "limits", "a whole number");
        else limits[key] = value.value;
      }
      out.limits = limits;
      return;
    }
    case "gate":
      (out.gates as unknown[]).push(compileGate(c, form, at("gates", (out.gates as unknown[]).length)));
      return;
    case "spawn": {
      const args = keywordArgs(c, form.items.slice(1), "spawn", ["allowed", "quota"]);
      const allowed = args.get("allowed")?.value;
      const quota = args.get("quota")?.value;
      mark(c, at("spawn"), form, "spawn");
      if (!allowed) return void issue(c, form, "spawn", "(spawn :allowed true :quota 3)", "no :allowed");
      if (allowed.type !== "boolean") return void issue(c, allowed, "spawn", "true or false");
      if (quota && quota.type !== "number") return void issue(c, quota, "spawn", "a whole number");
      if (quota) mark(c, at("spawn", "quota"), quota, "spawn");
      out.spawn = { allowed: allowed.value, quota: quota?.type === "number" ? quota.value : allowed.value ? 1 : 0 };
      return;
    }
    default:
      (out.talents as unknown[]).push(compileTalent(c, form, at("talents", (out.talents as unknown[]).length)));
  }
}

/** `(gate "name" :deny-pattern "re" | :allow-hosts ["h"] | :max-calls n [:tool "t"] [:field "f"])` */
function compileGate(c: Compiler, form: List, path: Path): unknown {
  mark(c, path, form, "gate");
  const name = expectString(c, form.items[1], "gate", form, "a gate name");
  if (name !== undefined) mark(c, [...path, "name"], form.items[1]!, "gate");
  const args = keywordArgs(c, form.items.slice(2), "gate", [...gateKinds, "tool", "field"]);
  const kinds = gateKinds.filter((k) => args.has(k));
  const shown = ":deny-pattern, :allow-hosts or :max-calls";
  if (kinds.length !== 1)
    return issue(c, form, "gate", `exactly one of ${shown}`, kinds.length === 0 ? "none" : `${kinds.length} of them`, `(gate …) needs exactly one of ${shown}, found ${kinds.length === 0 ? "none" : kinds.length}`);
  const gate: Record<string, unknown> = { name };
  for (const key of ["tool", "field"] as const) {
    const value = args.get(key)?.value;
    if (!value) continue;
    if (value.type !== "string") return issue(c, value, "gate", "a string");
    mark(c, [...path, key], value, "gate");
    gate[key] = value.value;
  }
  const value = args.get(kinds[0]!)!.value;
  mark(c, [...path, kinds[0] === "denyPattern" ? "pattern" : kinds[0] === "allowHosts" ? "hosts" : "max"], value, "gate");
  if (kinds[0] === "denyPattern") {
    if (value.type !== "string") return issue(c, value, "gate", "a regular expression string");
    const compiled = compileDenyPattern(value.value);
    if (!compiled.ok) return issue(c, value, "gate", denyPatternExpected, JSON.stringify(value.value), `gate ${JSON.stringify(name ?? "")}: ${compiled.reason}`);
    return { ...gate, kind: "deny-pattern", pattern: value.value };
  }
  if (kinds[0] === "allowHosts") {
    const hosts = value.type === "vector" || value.type === "list" ? value.items : [value];
    const strings = hosts.map((h) => (h.type === "string" ? h.value : issue(c, h, "gate", 'a host name such as "api.github.com"')));
    return { ...gate, kind: "allow-hosts", hosts: strings };
  }
  if (value.type !== "number") return issue(c, value, "gate", "a whole number of calls");
  if (args.has("field")) return issue(c, args.get("field")!.key, "gate", "no :field on a :max-calls gate", ":field", `:field has no meaning on a :max-calls gate${didYouMean("field", ["tool"])}`);
  return { ...gate, kind: "max-calls", max: value.value };
}


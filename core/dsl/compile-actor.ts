import { customGateKinds, gateTargets, outputKinds, type CustomGateKind } from "../gates/gate-spec";
import { compileDenyPattern, denyPatternExpected } from "../gates/pattern";
import { didYouMean, orList } from "./issues";
import type { Node } from "./reader";
import { limitKeys, modelKeys } from "./script-schema";
import {
  arity,
  expectString,
  headOf,
  issue,
  kebabToCamel,
  keywordArgs,
  literal,
  mark,
  unknownForm,
  type Compiler,
  type Path,
} from "./compiler-state";
import { compileTalent } from "./compile-behavior";
import { compileWorkflow } from "./compile-workflow";
import { compileToolForm } from "./compile-tool";

type List = Node & { type: "list" };
const actorForms = [
  "description",
  "role",
  "model",
  "context",
  "tools",
  "connections",
  "limits",
  "gate",
  "grants",
  "spawn",
  "deny-tools",
  "memory",
  "goals",
  "talent",
  "workflow",
  "tool",
] as const;
/** Forms that may appear once; the others accumulate. */
const singletons = new Set([
  "description",
  "role",
  "model",
  "limits",
  "spawn",
  "grants",
  "deny-tools",
  "memory",
  "goals",
]);

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
      issue(
        c,
        form,
        head,
        `one (${head} …) per actor`,
        `a second (${head} …)`,
        `(${head} …) is given twice; the first is at ${earlier.pos.line}:${earlier.pos.column}`,
      );
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
    c.warnings.push({
      line: node.pos.line,
      column: node.pos.column,
      form: "actor",
      message: `no (description "…"): derived "${out.description as string}" ${how}; write one to say what the agent is for`,
    });
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
        const want =
          key === "provider" || key === "name"
            ? "string"
            : key === "fallback" || key === "breaker"
              ? "map"
              : key === "cascade" || key === "allowed"
                ? "vector"
                : "number";
        const shown = {
          map:
            key === "breaker"
              ? "a map such as {:threshold 3 :cooldown-ms 30000}"
              : 'a map such as {:provider "anthropic" :name "claude-haiku"}',
          vector: 'a vector of models such as ["groq/llama-3.1-70b" "openai/gpt-4o-mini"]',
        } as Record<string, string>;
        if (value.type !== want) issue(c, value, "model", shown[want] ?? `a ${want}`);
        else model[key] = literal(c, value, "model", true);
      }
      out.model = model;
      return;
    }
    case "context":
      for (const item of form.items.slice(1)) {
        if (item.type === "string") {
          mark(c, at("contextSources", (out.contextSources as unknown[]).length), item, "context");
          (out.contextSources as unknown[]).push(item.value);
          continue;
        }
        if (headOf(item) !== "source") {
          unknownForm(c, item, "context", ["source"]);
          continue;
        }
        compileSource(c, item as List, at, out);
      }
      return;
    case "tools":
    case "connections":
    case "goals":
    case "grants": {
      const into = ((out[head] as unknown[] | undefined) ?? (out[head] = [])) as unknown[];
      for (const item of form.items.slice(1)) {
        if (head === "grants" && headOf(item) === "grant") {
          const grant = compileGrant(c, item as List);
          if (grant) into.push(grant);
          continue;
        }
        const value = expectString(
          c,
          item,
          head,
          form,
          head === "grants"
            ? 'a source name or (grant "name" :to ["agent"] :access "search")'
            : head === "goals"
              ? 'a goal, e.g. "Review PR #123"'
              : "a name string",
        );
        if (value === undefined) continue;
        mark(c, at(head, into.length), item, head);
        into.push(value);
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
    case "deny-tools": {
      const names: string[] = [];
      for (const item of form.items.slice(1)) {
        const value = expectString(c, item, head, form, 'a tool name or prefix string such as "memory.*"');
        if (value !== undefined) names.push(value);
      }
      mark(c, at("denyTools"), form, head);
      out.denyTools = names;
      return;
    }
    case "memory": {
      const memory: Record<string, unknown> = {};
      for (const [key, { value }] of keywordArgs(c, form.items.slice(1), "memory", ["policy", "ttlMs"])) {
        mark(c, at("memory", key), value, "memory");
        const want = key === "policy" ? "string" : "number";
        if (value.type !== want)
          issue(
            c,
            value,
            "memory",
            key === "policy" ? '"none", "window" or "summary"' : "a whole number of milliseconds",
          );
        else memory[key] = value.value;
      }
      out.memory = memory;
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
    case "tool": {
      const tool = compileToolForm(c, form, path, out.tools as unknown[]);
      if (tool) (c.toolForms ??= []).push(tool);
      return;
    }
    case "workflow": {
      const workflows = (out.workflows ??= []) as unknown[];
      workflows.push(compileWorkflow(c, form, at("workflows", workflows.length)));
      return;
    }
    default:
      (out.talents as unknown[]).push(compileTalent(c, form, at("talents", (out.talents as unknown[]).length)));
  }
}

/** `(source "docs" [:label "Runbooks"] [:description "How we run billing"])`: a name, and what it is for. */
function compileSource(
  c: Compiler,
  form: List,
  at: (key: string, ...rest: (string | number)[]) => Path,
  out: Record<string, unknown>,
): void {
  const sources = out.contextSources as unknown[];
  const name = expectString(c, form.items[1], "source", form, '(source "docs")');
  if (name === undefined) return;
  mark(c, at("contextSources", sources.length), form.items[1]!, "context");
  sources.push(name);
  const details: Record<string, string> = {};
  for (const [key, { value }] of keywordArgs(c, form.items.slice(2), "source", ["label", "description"])) {
    if (value.type !== "string") issue(c, value, "source", "a string");
    else details[key] = value.value;
  }
  if (Object.keys(details).length)
    out.sourceDetails = { ...(out.sourceDetails as object | undefined), [name]: details };
}

/** `(grant "docs" [:to ["agent" …]] [:access "read"|"search"])`: a grant to named agents, or to the connections. */
function compileGrant(c: Compiler, form: List): Record<string, unknown> | undefined {
  const source = expectString(c, form.items[1], "grant", form, '(grant "docs" :to ["reader"])');
  if (source === undefined) return undefined;
  const grant: Record<string, unknown> = { source };
  for (const [key, { value }] of keywordArgs(c, form.items.slice(2), "grant", ["to", "access"])) {
    if (key === "access") {
      if (value.type !== "string" && value.type !== "keyword" && value.type !== "symbol")
        issue(c, value, "grant", '"read" or "search"');
      else grant.access = value.type === "string" ? value.value : value.name;
    } else {
      const items = value.type === "vector" || value.type === "list" ? value.items : [value];
      grant.to = items.map((item) =>
        item.type === "string" ? item.value : issue(c, item, "grant", 'an agent name such as "reader"'),
      );
    }
  }
  return grant;
}

/** Short spellings of a gate kind's keyword in the DSL (`:deny` for `:deny-pattern`). */
const gateKindAliases: Partial<Record<CustomGateKind, string>> = { "deny-pattern": "deny" };

/** The keywords naming a gate's kind (camelCase, as `keywordArgs` reads them), each with its kind: derived from the gate schema. */
function gateKindKeywords(): [keyword: string, kind: CustomGateKind][] {
  return customGateKinds().flatMap((kind) => {
    const alias = gateKindAliases[kind];
    return [[kebabToCamel(kind), kind], ...(alias ? [[alias, kind] as [string, CustomGateKind]] : [])] as [
      string,
      CustomGateKind,
    ][];
  });
}

/**
 * `(gate "name" :deny-pattern "re" | :allow-hosts ["h"] | :max-calls n | :max-size n [:tool "t"] [:field "f"] [:on kind | (kind …)])`.
 * `:deny` is `:deny-pattern` said shortly. `:on` names what the gate checks: `tool` (calls; the
 * default) and the outputs `reply`, `message`, `memory`, `answer`; `:max-size` limits outputs only.
 * The kinds come from the gate schema (core/gates/gate-spec.ts); the `switch` at the end is exhaustive.
 */
function compileGate(c: Compiler, form: List, path: Path): unknown {
  mark(c, path, form, "gate");
  const name = expectString(c, form.items[1], "gate", form, "a gate name");
  if (name !== undefined) mark(c, [...path, "name"], form.items[1]!, "gate");
  const keywords = gateKindKeywords();
  const args = keywordArgs(c, form.items.slice(2), "gate", [...keywords.map(([k]) => k), "tool", "field", "on"]);
  const found = keywords.filter(([k]) => args.has(k));
  const shown = orList(
    customGateKinds().map((k) => `:${k}${gateKindAliases[k] ? ` (or :${gateKindAliases[k]})` : ""}`),
  );
  if (found.length !== 1)
    return issue(
      c,
      form,
      "gate",
      `exactly one of ${shown}`,
      found.length === 0 ? "none" : `${found.length} of them`,
      `(gate …) needs exactly one of ${shown}, found ${found.length === 0 ? "none" : found.length}`,
    );
  const [keyword, kind] = found[0]!;
  const gate: Record<string, unknown> = { name };
  for (const key of ["tool", "field"] as const) {
    const value = args.get(key)?.value;
    if (!value) continue;
    if (value.type !== "string") return issue(c, value, "gate", "a string");
    mark(c, [...path, key], value, "gate");
    gate[key] = value.value;
  }
  const onArg = args.get("on");
  if (onArg) {
    if (kind !== "deny-pattern" && kind !== "max-size")
      return issue(
        c,
        onArg.key,
        "gate",
        "no :on on this gate",
        ":on",
        `:on is for :deny-pattern and :max-size gates; :${kind} checks tool calls only`,
      );
    const allowed: readonly string[] = kind === "max-size" ? outputKinds : gateTargets;
    const items = onArg.value.type === "vector" || onArg.value.type === "list" ? onArg.value.items : [onArg.value];
    const on: string[] = [];
    for (const item of items) {
      const word =
        item.type === "symbol" || item.type === "keyword" ? item.name : item.type === "string" ? item.value : undefined;
      if (word === undefined || !allowed.includes(word))
        return issue(
          c,
          item,
          "gate",
          `one of ${allowed.join(", ")}`,
          word ?? item.type,
          `:on takes ${allowed.join(", ")}${word ? `, not ${word}` : ""}`,
        );
      if (!on.includes(word)) on.push(word);
    }
    if (on.length === 0) return issue(c, onArg.value, "gate", `one of ${allowed.join(", ")}`, "nothing");
    mark(c, [...path, "on"], onArg.value, "gate");
    gate.on = on;
  } else if (kind === "max-size") {
    return issue(
      c,
      form,
      "gate",
      `:on with the outputs it limits (${outputKinds.join(", ")})`,
      "no :on",
      `a :max-size gate needs :on naming the outputs it limits: ${outputKinds.join(", ")}`,
    );
  }
  const value = args.get(keyword)!.value;
  mark(c, [...path, kind === "deny-pattern" ? "pattern" : kind === "allow-hosts" ? "hosts" : "max"], value, "gate");
  switch (kind) {
    case "deny-pattern": {
      if (value.type !== "string") return issue(c, value, "gate", "a regular expression string");
      const compiled = compileDenyPattern(value.value);
      if (!compiled.ok)
        return issue(
          c,
          value,
          "gate",
          denyPatternExpected,
          JSON.stringify(value.value),
          `gate ${JSON.stringify(name ?? "")}: ${compiled.reason}`,
        );
      return { ...gate, kind, pattern: value.value };
    }
    case "allow-hosts": {
      const hosts = value.type === "vector" || value.type === "list" ? value.items : [value];
      const strings = hosts.map((h) =>
        h.type === "string" ? h.value : issue(c, h, "gate", 'a host name such as "api.github.com"'),
      );
      return { ...gate, kind, hosts: strings };
    }
    case "max-size":
      if (value.type !== "number") return issue(c, value, "gate", "a whole number of characters");
      for (const key of ["tool", "field"] as const)
        if (args.has(key))
          return issue(
            c,
            args.get(key)!.key,
            "gate",
            `no :${key} on a :max-size gate`,
            `:${key}`,
            `:${key} has no meaning on a :max-size gate: it limits outputs`,
          );
      return { ...gate, kind, max: value.value };
    case "max-calls":
      if (value.type !== "number") return issue(c, value, "gate", "a whole number of calls");
      if (args.has("field"))
        return issue(
          c,
          args.get("field")!.key,
          "gate",
          "no :field on a :max-calls gate",
          ":field",
          `:field has no meaning on a :max-calls gate${didYouMean("field", ["tool"])}`,
        );
      return { ...gate, kind, max: value.value };
    default: {
      const uncompiled: never = kind;
      throw new Error(`no compiler for gate kind ${JSON.stringify(uncompiled)}`);
    }
  }
}

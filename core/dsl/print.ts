import { camelToKebab } from "./compiler-state";
import type { Action, ActorScript, Behavior, Expr, Trigger } from "./script-schema";
import type { Workflow } from "../workflows/workflow";
import type { CustomGateSpec } from "../gates/gate-spec";

const keywordSafe = /^[A-Za-z_*+!?<>=/][A-Za-z0-9_*+!?<>=/.-]*$/;

/**
 * Prints a script in the Lisp DSL, canonically: compiling the output gives back an equal script.
 * @example
 * printScript(compileScript(source).script) // '(actor "dev-buddy"\n  (description "…")\n …)'
 */
export function printScript(script: ActorScript): string {
  return printActor(script, "");
}

function printActor(s: ActorScript, indent: string): string {
  const pad = indent + "  ";
  const lines = [`(actor ${str(s.name)}`];
  if (s.role !== undefined) lines.push(`${pad}(role ${str(s.role)})`);
  lines.push(`${pad}(description ${str(s.description)})`);
  const model = Object.entries(s.model).filter(([, v]) => v !== undefined);
  lines.push(`${pad}(model${model.map(([k, v]) => ` :${camelToKebab(k)} ${data(v)}`).join("")})`);
  const details = (c: string) => {
    const d = s.sourceDetails?.[c];
    return `${d?.label !== undefined ? ` :label ${str(d.label)}` : ""}${d?.description !== undefined ? ` :description ${str(d.description)}` : ""}`;
  };
  if (s.contextSources.length)
    lines.push(`${pad}(context${s.contextSources.map((c) => ` (source ${str(c)}${details(c)})`).join("")})`);
  if (s.tools.length) lines.push(`${pad}(tools ${s.tools.map(str).join(" ")})`);
  if (s.connections.length) lines.push(`${pad}(connections ${s.connections.map(str).join(" ")})`);
  const limits = Object.entries(s.limits).filter(([, v]) => v !== undefined);
  if (limits.length)
    lines.push(`${pad}(limits${limits.map(([k, v]) => ` :${camelToKebab(k)} ${num(v as number)}`).join("")})`);
  for (const g of s.gates) {
    const on = "on" in g && g.on !== undefined ? ` :on ${g.on.length === 1 ? g.on[0] : `(${g.on.join(" ")})`}` : "";
    const scope = `${"tool" in g && g.tool !== undefined ? ` :tool ${str(g.tool)}` : ""}${"field" in g && g.field !== undefined ? ` :field ${str(g.field)}` : ""}${on}`;
    lines.push(`${pad}(gate ${str(g.name)} ${gateKind(g)}${scope})`);
  }
  const grant = (g: NonNullable<ActorScript["grants"]>[number]) =>
    typeof g === "string"
      ? str(g)
      : `(grant ${str(g.source)}${g.to ? ` :to [${g.to.map(str).join(" ")}]` : ""}${g.access ? ` :access ${str(g.access)}` : ""})`;
  if (s.grants) lines.push(`${pad}(grants${s.grants.map((g) => " " + grant(g)).join("")})`);
  if (s.spawn) lines.push(`${pad}(spawn :allowed ${s.spawn.allowed} :quota ${num(s.spawn.quota)})`);
  if (s.denyTools) lines.push(`${pad}(deny-tools${s.denyTools.map((t) => " " + str(t)).join("")})`);
  if (s.memory)
    lines.push(
      `${pad}(memory${s.memory.policy !== undefined ? ` :policy ${str(s.memory.policy)}` : ""}${s.memory.ttlMs !== undefined ? ` :ttl-ms ${num(s.memory.ttlMs)}` : ""})`,
    );
  if (s.goals) lines.push(`${pad}(goals ${s.goals.map(str).join(" ")})`);
  for (const t of s.talents) {
    lines.push(`${pad}(talent ${str(t.name)}`);
    for (const b of t.behaviors) lines.push(printBehavior(b, pad + "  "));
    lines[lines.length - 1] += ")";
  }
  for (const w of s.workflows ?? []) lines.push(printWorkflow(w, pad));
  lines[lines.length - 1] += ")";
  return lines.join("\n");
}

/** `(workflow "name" (step "id" :ask "agent" :input "…" :after ("a")) …)`: what compile-workflow.ts reads. */
function printWorkflow(w: Workflow, indent: string): string {
  const list = (xs: readonly string[]) => `(${xs.map(str).join(" ")})`;
  const steps = w.steps.map((step) => {
    const head =
      step.kind === "ask"
        ? `:ask ${str(step.agent)}`
        : step.kind === "fanout"
          ? `:fanout ${list(step.targets)}`
          : step.kind === "tool"
            ? `:tool ${str(step.tool)}`
            : `:join ${list(step.after)}`;
    const parts = [head];
    if ("policy" in step) parts.push(`:policy :${step.policy}`);
    if ("input" in step) parts.push(`:input ${str(step.input)}`);
    if (step.kind !== "join" && step.after.length) parts.push(`:after ${list(step.after)}`);
    if (step.kind === "tool" && Object.keys(step.args).length) parts.push(`:args ${json(step.args)}`);
    for (const key of ["weights", "rounds", "retries"] as const)
      if (key in step && step[key as keyof typeof step] !== undefined)
        parts.push(`:${key} ${json(step[key as keyof typeof step])}`);
    if ("tie" in step && step.tie) parts.push(`:tie :${step.tie}`);
    return `${indent}  (step ${str(step.id)} ${parts.join(" ")})`;
  });
  return (
    [
      `${indent}(workflow ${str(w.name)}${w.description !== undefined ? ` (description ${str(w.description)})` : ""}`,
      ...steps,
    ].join("\n") + ")"
  );
}

function printBehavior(b: Behavior, indent: string): string {
  const pad = indent + "  ";
  const lines = [`${indent}(behavior ${str(b.name)} :${b.mode}`];
  if (b.trigger) lines.push(`${pad}${printTrigger(b.trigger)}`);
  if (b.input) lines.push(`${pad}:input ${json(b.input)}`);
  if (b.when) lines.push(`${pad}:when ${data(b.when)}`);
  if (b.priority !== undefined) lines.push(`${pad}:priority ${num(b.priority)}`);
  if (b.notify) lines.push(`${pad}:notify`);
  if (b.policy) lines.push(`${pad}(policy :${b.policy})`);
  if (b.retry) lines.push(`${pad}(retry :max ${num(b.retry.max)})`);
  lines.push(`${pad}(goal ${usesCtx(b.goal) ? "(input ctx)" : "(input)"} ${expr(b.goal)})`);
  if (b.plan.steps.length === 1)
    lines.push(`${pad}(plan (input ctx) ${printAction(b.plan.steps[0]!, pad).trimStart()}))`);
  else
    lines.push(
      `${pad}(plan (input ctx)\n${pad}  (sequence\n${b.plan.steps.map((a) => printAction(a, pad + "    ")).join("\n")})))`,
    );
  return lines.join("\n");
}

function printTrigger(t: Trigger): string {
  if (t.kind === "every") return `(every ${str(t.every)})`;
  if (t.kind === "cron") return `(cron ${str(t.cron)})`;
  return `(on-idle ${str(t.idle)})`;
}

function printAction(a: Action, indent: string): string {
  switch (a.kind) {
    case "tool": {
      const args = Object.keys(a.args).length ? ` :args ${expr({ map: a.args })}` : "";
      return `${indent}(tool ${str(a.tool)}${args})`;
    }
    case "message":
      return `${indent}(message ${str(a.role)} :content ${expr(a.content)})`;
    case "ask": {
      const targets = a.targets.length === 1 ? str(a.targets[0]!) : `(${a.targets.map(str).join(" ")})`;
      return `${indent}(ask ${targets} ${expr(a.question)})`;
    }
    case "remember":
      return `${indent}(remember ${expr(a.content)})`;
    case "think":
      return `${indent}(think)`;
    case "spawn": {
      const script =
        typeof a.script === "string" ? str(a.script) : printActor(a.script, "").replace(/\n/g, `\n${indent}  `);
      const supervise = a.supervise
        ? Object.entries(a.supervise)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => ` :${camelToKebab(k)} ${data(v)}`)
            .join("")
        : "";
      return `${indent}(spawn ${script} :goal ${expr(a.goal)}${supervise})`;
    }
  }
}

function usesCtx(e: Expr): boolean {
  if (e === null || typeof e !== "object") return false;
  if (Array.isArray(e)) return e.some(usesCtx);
  if ("get" in e) return e.get[0] === "ctx";
  if ("concat" in e) return e.concat.some(usesCtx);
  if ("map" in e) return Object.values(e.map).some(usesCtx);
  return false;
}

function expr(e: Expr): string {
  if (e === null || typeof e !== "object") return data(e);
  if (Array.isArray(e)) return `[${e.map(expr).join(" ")}]`;
  if ("get" in e) {
    const [from, ...keys] = e.get;
    return keys.length ? `(get ${from}${keys.map((k) => " " + str(k)).join("")})` : from;
  }
  if ("concat" in e) return `(concat${e.concat.map((p) => " " + expr(p)).join("")})`;
  if ("map" in e)
    return `{${Object.entries(e.map)
      .map(([k, v]) => `${key(k)} ${expr(v)}`)
      .join(" ")}}`;
  return '"$prev"';
}

/** Plain data (model settings): no expressions inside. */
function data(v: unknown): string {
  if (v === null) return "nil";
  if (typeof v === "string") return str(v);
  if (typeof v === "number") return num(v);
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(data).join(" ")}]`;
  if (typeof v === "object")
    return `{${Object.entries(v as object)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${key(camelToKebab(k))} ${data(x)}`)
      .join(" ")}}`;
  return "nil";
}

/** JSON data as a DSL literal, keys as they are (a behavior's input). */
function json(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(json).join(" ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${key(k)} ${json(x)}`)
      .join(" ")}}`;
  return data(v);
}

const key = (k: string) => (keywordSafe.test(k) ? ":" + k : str(k));
const num = (n: number) => (Object.is(n, -0) ? "-0" : String(n));

function str(s: string): string {
  let out = '"';
  for (const ch of s) {
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch.charCodeAt(0) < 0x20 || ch === "\u2028" || ch === "\u2029")
      out += "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/**
 * A gate's kind and its value, as the DSL writes them. Exhaustive: a new kind in the gate schema
 * (core/gates/gate-spec.ts) fails to compile here until it is printed.
 */
function gateKind(g: CustomGateSpec): string {
  switch (g.kind) {
    case "deny-pattern":
      return `:deny-pattern ${str(g.pattern)}`;
    case "allow-hosts":
      return `:allow-hosts [${g.hosts.map(str).join(" ")}]`;
    case "max-calls":
      return `:max-calls ${num(g.max)}`;
    case "max-size":
      return `:max-size ${num(g.max)}`;
    default: {
      const unprinted: never = g;
      throw new Error(`no printer for gate kind ${JSON.stringify((unprinted as { kind: unknown }).kind)}`);
    }
  }
}

import type { z } from "zod";
import { didYouMean, orList, ScriptError, type ScriptIssue, type ScriptWarning } from "./issues";
import { parseDuration } from "./time";
import type { ScriptToolForm } from "./compiler-state";
import { customGateKinds } from "../gates/gate-spec";
import { actorScriptSchema, type Action, type ActorScript } from "./script-schema";

export type Path = (string | number)[];
/** Where a JSON path of the script came from: a source position and form, or 0:0 and the path itself. */
export type Locate = (path: Path) => { line: number; column: number; form: string; found?: string };

export interface CompileResult {
  script: ActorScript;
  warnings: ScriptWarning[];
  /** The project script tools the script declares with `(tool …)` (the DSL only); the script lists each. */
  scriptTools?: ScriptToolForm[];
}

/**
 * Validates a raw script through the schema, then adds the tools plans use to the allowlist,
 * gives passive behaviors without a trigger the default idle trigger, and warns about tools no
 * registry provides. Throws ScriptError with every schema issue located.
 */
export function finishScript(raw: unknown, locate: Locate, options: FinishOptions): CompileResult {
  const parsed = actorScriptSchema.safeParse(raw);
  if (!parsed.success)
    throw new ScriptError(dedupe(parsed.error.issues.flatMap((i) => toScriptIssues(i, raw, locate, []))));
  const warnings: ScriptWarning[] = [];
  checkConnections(parsed.data, locate, options.knownAgents, warnings);
  return { script: normalize(parsed.data, [], locate, options, warnings), warnings };
}

interface FinishOptions {
  knownTools?: ReadonlySet<string>;
  knownAgents?: ReadonlySet<string>;
  defaultIdle: string;
}

/**
 * Connections that cannot be used: to the actor itself (always), or to an agent outside
 * `knownAgents` (when given). They stay in the script as written; whoever stores the agent leaves
 * them out of its connections, as `PUT /connections` refuses them (see workers/api/scripts.ts).
 * Inline scripts of `spawn` steps are not checked: the registry checks a child's connections
 * against its parent's when it is spawned.
 */
function checkConnections(
  script: ActorScript,
  locate: Locate,
  knownAgents: ReadonlySet<string> | undefined,
  warnings: ScriptWarning[],
): void {
  const others = knownAgents ? [...knownAgents].filter((a) => a !== script.name) : [];
  script.connections.forEach((connection, i) => {
    const at = locate(["connections", i]);
    const warn = (message: string) => warnings.push({ line: at.line, column: at.column, form: at.form, message });
    if (connection === script.name)
      warn(`actor '${script.name}' cannot be connected to itself; the connection is left out`);
    else if (knownAgents && !knownAgents.has(connection))
      warn(
        `no agent named '${connection}' in this project${didYouMean(connection, others)}; the connection is left out until that agent exists and the script is set again`,
      );
  });
}

function normalize(
  script: ActorScript,
  base: Path,
  locate: Locate,
  options: FinishOptions,
  warnings: ScriptWarning[],
): ActorScript {
  const { knownTools, defaultIdle } = options;
  const tools: string[] = [];
  const warn = (tool: string, path: Path) => {
    if (!tools.includes(tool)) tools.push(tool);
    else return;
    if (knownTools && !knownTools.has(tool)) {
      const at = locate([...base, ...path]);
      warnings.push({
        line: at.line,
        column: at.column,
        form: at.form,
        message: `no registry provides tool '${tool}'; calls to it will fail until one does`,
      });
    }
  };
  script.tools.forEach((tool, i) => warn(tool, ["tools", i]));
  const talents = script.talents.map((talent, ti) => ({
    ...talent,
    behaviors: talent.behaviors.map((b, bi) => ({
      ...b,
      ...(b.mode === "passive" && !b.trigger
        ? { trigger: { kind: "on-idle" as const, idle: defaultIdle, ms: parseDuration(defaultIdle) ?? 0 } }
        : {}),
      plan: {
        steps: b.plan.steps.map((step, si): Action => {
          const at: Path = ["talents", ti, "behaviors", bi, "plan", "steps", si];
          if (step.kind === "tool") warn(step.tool, [...at, "tool"]);
          if (step.kind === "spawn" && typeof step.script !== "string")
            return { ...step, script: normalize(step.script, [...base, ...at, "script"], locate, options, warnings) };
          return step;
        }),
      },
    })),
  }));
  return { ...script, tools, talents };
}

function toScriptIssues(issue: z.core.$ZodIssue, raw: unknown, locate: Locate, prefix: Path): ScriptIssue[] {
  const path = [...prefix, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
  if (issue.code === "invalid_union" && "errors" in issue) {
    // Report the branch that got furthest: it is the shape the author most likely meant.
    const branches = (issue.errors as z.core.$ZodIssue[][]).filter((b) => b.length > 0);
    const best = branches.sort((a, b) => depth(b) - depth(a) || a.length - b.length)[0];
    if (best && depth(best) > 0) return best.flatMap((i) => toScriptIssues(i, raw, locate, path));
  }
  // A record key that failed its own schema: report what the key's schema said (zod nests it).
  if (issue.code === "invalid_key" && "issues" in issue && issue.issues.length > 0)
    return (issue.issues as z.core.$ZodIssue[]).flatMap((i) => toScriptIssues(i, raw, locate, path));
  const at = locate(path);
  const params = (issue as { params?: { expected?: string; found?: string } }).params;
  const expected = params?.expected ?? expectedOf(issue);
  const found = params?.found ?? at.found ?? render(valueAt(raw, path));
  const field = at.line > 0 ? `${fieldName(path)}: ` : "";
  const message = issue.code === "custom" ? issue.message : `${field}expected ${expected}, found ${found}`;
  return [{ line: at.line, column: at.column, form: at.form, expected, found, message }];
}

const depth = (issues: z.core.$ZodIssue[]) => Math.max(...issues.map((i) => i.path.length));

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "undefined" || issue.expected === "never"
        ? "nothing here (unknown field)"
        : `a ${issue.expected}`;
    case "unrecognized_keys":
      return `no unknown fields (${issue.keys.join(", ")})`;
    case "invalid_value":
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union":
      if ("discriminator" in issue && issue.discriminator === "kind")
        return issue.path.includes("gates")
          ? `kind ${orList(customGateKinds().map((k) => JSON.stringify(k)))}`
          : 'kind "tool", "message", "ask", "remember", "think" or "spawn"';
      return "an expression (string, number, boolean, null, list, {get}, {concat}, {map}, {prev}) or one of the documented shapes";
    default:
      return issue.message.replace(/^Invalid input: expected /, "").replace(/^Too (big|small): expected /, "");
  }
}

function fieldName(path: Path): string {
  const last = [...path].reverse().find((p) => typeof p === "string");
  return last === undefined ? "script" : String(last);
}

function valueAt(raw: unknown, path: Path): unknown {
  let value = raw;
  for (const key of path)
    value = typeof value === "object" && value !== null ? (value as Record<string | number, unknown>)[key] : undefined;
  return value;
}

function render(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 60) + "…" : text;
}

function dedupe(issues: ScriptIssue[]): ScriptIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.line}:${i.column}:${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

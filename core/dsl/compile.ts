import { ScriptError } from "./issues";
import { defaultReadLimits, describe, readForms, type ReadLimits } from "./reader";
import { parseDuration, durationExpected } from "./time";
import { headOf, pathKey, type Compiler } from "./compiler-state";
import { compileActor } from "./compile-actor";
import { finishScript, type CompileResult, type Path } from "./finish";

export interface CompileOptions {
  /** Tools some registry provides; a tool outside it compiles with a warning. Absent = no check. */
  knownTools?: ReadonlySet<string>;
  /**
   * The project's agents; a connection to an agent outside it compiles with a warning (the agent
   * storing the script leaves it out). A connection to the actor itself always warns. Absent = no check.
   */
  knownAgents?: ReadonlySet<string>;
  /** Idle time of a passive behavior written without a trigger. Default "30m". */
  defaultIdle?: string;
  /** Size and nesting limits; defaults 256 KiB and 64 levels. */
  limits?: Partial<ReadLimits>;
}

/**
 * Compiles a script written in the Lisp DSL to a validated ActorScript.
 * Throws only ScriptError, listing every problem found with its line:column.
 * @example
 * const { script, warnings } = compileScript(`(actor "echo" (description "Echoes")
 *   (talent "chat" (behavior "reply" :active (goal (input) (get input "text")) (plan (input ctx) (think)))))`);
 */
export function compileScript(source: string, options: CompileOptions = {}): CompileResult {
  if (typeof source !== "string")
    throw new ScriptError([
      {
        line: 0,
        column: 0,
        form: "script",
        expected: "source text",
        found: typeof source,
        message: "the script must be a string",
      },
    ]);
  const defaultIdle = checkedIdle(options.defaultIdle);
  const forms = readForms(source, { ...defaultReadLimits, ...options.limits });
  const c: Compiler = { issues: [], warnings: [], marks: new Map() };
  const actor = forms[0];
  if (!actor || headOf(actor) !== "actor") {
    const at = actor?.pos ?? { line: 1, column: 1 };
    throw new ScriptError([
      {
        line: at.line,
        column: at.column,
        form: "script",
        expected: '(actor "name" …)',
        found: actor ? describe(actor) : "an empty script",
        message: `a script is one (actor "name" …) form, found ${actor ? describe(actor) : "an empty script"}`,
      },
    ]);
  }
  const extra = forms[1];
  if (extra)
    c.issues.push({
      line: extra.pos.line,
      column: extra.pos.column,
      form: "script",
      expected: "nothing after the (actor …) form",
      found: describe(extra),
      message: `unexpected ${describe(extra)} after the (actor …) form: a script holds one actor`,
    });
  const raw = compileActor(c, actor as typeof actor & { type: "list" }, []);
  if (c.issues.length > 0) throw new ScriptError(c.issues);
  const locate = (path: Path) => {
    for (let n = path.length; n >= 0; n--) {
      const m = c.marks.get(pathKey(path.slice(0, n)));
      if (m)
        return {
          line: m.pos.line,
          column: m.pos.column,
          form: m.form,
          ...(n === path.length ? { found: describe(m.node) } : {}),
        };
    }
    return { line: actor.pos.line, column: actor.pos.column, form: "actor" };
  };
  const toolForms = c.toolForms ?? [];
  // A tool the script declares is one it provides: no warning that no registry does.
  const knownTools =
    options.knownTools && toolForms.length
      ? new Set([...options.knownTools, ...toolForms.map((t) => t.name)])
      : options.knownTools;
  const finished = finishScript(raw, locate, {
    knownTools,
    knownAgents: options.knownAgents,
    defaultIdle,
  });
  return {
    ...finished,
    warnings: [...c.warnings, ...finished.warnings],
    ...(toolForms.length ? { scriptTools: toolForms } : {}),
  };
}

export function checkedIdle(idle: string | undefined): string {
  const value = idle ?? "30m";
  if (typeof value !== "string" || parseDuration(value) === undefined)
    throw new ScriptError([
      {
        line: 0,
        column: 0,
        form: "options.defaultIdle",
        expected: durationExpected,
        found: JSON.stringify(value),
        message: `bad default idle time ${JSON.stringify(value)}: expected ${durationExpected}`,
      },
    ]);
  return value;
}

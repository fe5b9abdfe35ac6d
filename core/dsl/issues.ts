/**
 * Problems found in a script. Positions are 1-based; JSON input has no positions, so its issues
 * carry line 0, column 0 and the JSON path in `form` instead.
 */
export interface ScriptIssue {
  line: number;
  column: number;
  /** The form the problem sits in, e.g. `behavior`, or a JSON path such as `talents.0.name`. */
  form: string;
  expected: string;
  found: string;
  message: string;
}

/** Something that compiles but deserves a look, e.g. a tool no registry provides. */
export interface ScriptWarning {
  line: number;
  column: number;
  form: string;
  message: string;
}

const shownIssues = 5;

/**
 * The only error the script compilers throw. `issues` lists every problem found, in source order
 * where positions are known. Carries `code`/`status` like PantheonError so the worker can map it.
 * @example
 * try { compileScript(src) } catch (e) { if (isScriptError(e)) console.log(e.issues[0]?.line) }
 */
export class ScriptError extends Error {
  override readonly name = "ScriptError" as const;
  readonly code = "script_invalid" as const;
  readonly status = 400;
  readonly issues: ScriptIssue[];

  constructor(issues: ScriptIssue[]) {
    const sorted = [...issues].sort((a, b) => a.line - b.line || a.column - b.column);
    const lines = sorted.slice(0, shownIssues).map(formatIssue);
    if (sorted.length > shownIssues) lines.push(`… and ${sorted.length - shownIssues} more`);
    super(lines.join("\n"));
    this.issues = sorted;
  }
}

export function isScriptError(error: unknown): error is ScriptError {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "ScriptError";
}

function formatIssue(issue: ScriptIssue): string {
  const where = issue.line > 0 ? `${issue.line}:${issue.column}` : issue.form;
  const form = issue.line > 0 ? ` (${issue.form})` : "";
  return `${where}${form}: ${issue.message}`;
}

/** The known name closest to `name`, when it is close enough to be a likely typo. */
export function nearest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? Infinity;
}

/** "did you mean" tail for a message, or nothing. */
export function didYouMean(name: string, known: readonly string[]): string {
  const guess = nearest(name, known);
  return guess === undefined ? "" : ` (did you mean '${guess}'?)`;
}

/** A list said as a sentence: `a`, `a or b`, `a, b or c`. */
export function orList(words: readonly string[]): string {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

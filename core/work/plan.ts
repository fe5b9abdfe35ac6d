import type { FieldIssue } from "../errors";
import type { PlannedTask } from "./types";

/** A task name as a key: what a sync matches tasks by across plan versions. */
export function taskKey(name: string): string {
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
}

const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const listItem = /^(?:\d+[.)]|[-*+])\s+(?:\[[ xX]\]\s+)?(.*)$/;
/** Where a task's name ends and its description begins on its first line. */
const nameSeparator = /\s+(?:—|–|-{1,2})\s+|:\s+/;

export interface ParsedPlan {
  tasks: PlannedTask[];
  problems: FieldIssue[];
}

/**
 * Reads the task list of a plan: the top-level list items under a heading named "Tasks" (numbered
 * or bulleted, checkboxes allowed). An item's first line is the task's name, optionally followed by
 * " — " or ": " and the start of its description; indented lines below it continue the description.
 * @example
 * parsePlanTasks("# Plan\n## Tasks\n1. Schema — add the table\n   with an index\n2. API: the route").tasks
 * // [{ key: "schema", name: "Schema", description: "add the table\nwith an index", line: 3 }, { key: "api", … }]
 */
export function parsePlanTasks(markdown: string): ParsedPlan {
  const lines = markdown.split(/\r?\n/);
  const tasks: PlannedTask[] = [];
  const problems: FieldIssue[] = [];
  let sectionLevel = 0;
  /** Each task's own lines as written (its item line and the lines below it), so a problem with a `depends on` names the line it is on. */
  const sources = new Map<PlannedTask, SourceLine[]>();
  let current: { task: PlannedTask; body: string[]; source: SourceLine[] } | null = null;
  let inFence = false;
  const close = () => {
    if (!current) return;
    current.task.description = [current.task.description, ...current.body]
      .filter((part) => part.length > 0)
      .join("\n")
      .trim();
    tasks.push(current.task);
    sources.set(current.task, current.source);
    current = null;
  };
  lines.forEach((raw, index) => {
    if (/^\s*```/.test(raw)) inFence = !inFence;
    const h = inFence ? null : heading.exec(raw);
    if (h) {
      const level = h[1]!.length;
      if (sectionLevel > 0 && level <= sectionLevel) {
        close();
        sectionLevel = 0;
      }
      if (sectionLevel === 0 && /^tasks\b/i.test(h[2]!)) sectionLevel = level;
      return;
    }
    if (sectionLevel === 0) return;
    const item = inFence || /^\s/.test(raw) ? null : listItem.exec(raw);
    if (item) {
      close();
      const text = item[1]!.trim();
      const split = nameSeparator.exec(text);
      const name = (split ? text.slice(0, split.index) : text).replace(/\*\*|__|`/g, "").trim();
      const description = split ? text.slice(split.index + split[0].length).trim() : "";
      const key = taskKey(name);
      if (!key)
        problems.push({
          path: ["markdown", `line ${index + 1}`],
          message: "a task needs a name made of letters or digits",
        });
      else if (tasks.some((t) => t.key === key))
        problems.push({
          path: ["markdown", `line ${index + 1}`],
          message: `task '${name}' is listed twice: task names must differ`,
        });
      current = {
        task: { key, name: name.slice(0, 200), description, line: index + 1, dependsOn: [] },
        body: [],
        source: [{ line: index + 1, text: raw.trim() }],
      };
      return;
    }
    if (current) {
      current.body.push(raw.trim());
      current.source.push({ line: index + 1, text: raw.trim() });
    }
  });
  close();
  resolveDependencies(tasks, sources, problems);
  if (sectionLevel === 0 && tasks.length === 0 && !lines.some((l) => heading.exec(l) && /^#+\s+tasks\b/i.test(l))) {
    problems.push({
      path: ["markdown"],
      message: "the plan has no '## Tasks' section: list the tasks under a heading named Tasks",
    });
  }
  return { tasks: tasks.filter((t) => t.key), problems };
}

/** `depends on 2`, `depends on tasks 1 and 3`, `(depends on #2, #4)`: the numbers are positions in the plan's task list. */
const dependsOn = /\bdepends?\s+on\s+((?:tasks?\s+)?#?\d+(?:\s*(?:,|and|&)\s*(?:tasks?\s+)?#?\d+)*)/gi;

/** One line of the plan as written: its 1-based number and its text. */
interface SourceLine {
  line: number;
  text: string;
}

/** A line as a problem quotes it: its number and its text, cut short when long. */
const quote = (at: SourceLine) => `line ${at.line} "${at.text.length > 120 ? `${at.text.slice(0, 117)}...` : at.text}"`;

/**
 * Reads each task's declared dependencies from its lines and stores them as the keys of the tasks it
 * waits for (keys survive a re-sync that renumbers); a number past the list, a task waiting on
 * itself or a cycle is a problem naming the line where the `depends on` is written, with its text.
 * @example
 * parsePlanTasks("## Tasks\n1. Schema\n2. API — depends on 1").tasks[1].dependsOn // ["schema"]
 */
function resolveDependencies(tasks: PlannedTask[], sources: Map<PlannedTask, SourceLine[]>, problems: FieldIssue[]) {
  /** Where each edge `task → dependency` is written, for the circle's message. */
  const writtenAt = new Map<string, SourceLine>();
  tasks.forEach((task, index) => {
    const numbers = new Map<number, SourceLine>();
    for (const source of sources.get(task) ?? []) {
      for (const match of source.text.matchAll(dependsOn)) {
        for (const n of match[1]!.match(/\d+/g) ?? []) if (!numbers.has(Number(n))) numbers.set(Number(n), source);
      }
    }
    for (const [n, source] of [...numbers].sort(([a], [b]) => a - b)) {
      const at = ["markdown", `line ${source.line}`];
      if (n === index + 1)
        problems.push({ path: at, message: `${quote(source)}: task ${n} '${task.name}' depends on itself` });
      else if (n < 1 || n > tasks.length)
        problems.push({
          path: at,
          message: `${quote(source)}: task ${index + 1} '${task.name}' depends on task ${n}, but the plan lists tasks 1–${tasks.length}`,
        });
      else if (tasks[n - 1]!.key) {
        task.dependsOn.push(tasks[n - 1]!.key);
        writtenAt.set(`${task.key} ${tasks[n - 1]!.key}`, source);
      }
    }
  });
  const byKey = new Map(tasks.map((t) => [t.key, t]));
  const state = new Map<string, "visiting" | "done">();
  const visit = (t: PlannedTask, path: string[]): boolean => {
    if (state.get(t.key) === "done") return true;
    if (state.get(t.key) === "visiting") {
      const keys = [...path.slice(path.indexOf(t.key)), t.key];
      const cycle = keys.map((k) => tasks.findIndex((x) => x.key === k) + 1);
      const lines = keys.slice(1).map((k, i) => writtenAt.get(`${keys[i]} ${k}`)!);
      problems.push({
        path: ["markdown", `line ${lines[lines.length - 1]!.line}`],
        message: `the tasks' dependencies go in a circle: ${cycle.join(" → ")}, written at ${lines.map(quote).join(", ")}`,
      });
      return false;
    }
    state.set(t.key, "visiting");
    for (const k of t.dependsOn) if (!visit(byKey.get(k)!, [...path, t.key])) return false;
    state.set(t.key, "done");
    return true;
  };
  for (const t of tasks) if (!visit(t, [])) break;
}

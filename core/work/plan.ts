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
  let current: { task: PlannedTask; body: string[] } | null = null;
  let inFence = false;
  const close = () => {
    if (!current) return;
    current.task.description = [current.task.description, ...current.body].filter((part) => part.length > 0).join("\n").trim();
    tasks.push(current.task);
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
      if (!key) problems.push({ path: ["markdown", `line ${index + 1}`], message: "a task needs a name made of letters or digits" });
      else if (tasks.some((t) => t.key === key)) problems.push({ path: ["markdown", `line ${index + 1}`], message: `task '${name}' is listed twice: task names must differ` });
      current = { task: { key, name: name.slice(0, 200), description, line: index + 1 }, body: [] };
      return;
    }
    if (current) current.body.push(raw.trim());
  });
  close();
  if (sectionLevel === 0 && tasks.length === 0 && !lines.some((l) => heading.exec(l) && /^#+\s+tasks\b/i.test(l))) {
    problems.push({ path: ["markdown"], message: "the plan has no '## Tasks' section: list the tasks under a heading named Tasks" });
  }
  return { tasks: tasks.filter((t) => t.key), problems };
}

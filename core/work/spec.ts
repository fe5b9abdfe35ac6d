import type { TaskRecord } from "./types";

/** The budgets of a task's spec: the worker's whole prompt stays small and says what it left out. */
export const specBudgets = {
  /** Prior tasks listed with their summaries (the most recent ones). */
  priorTasks: 10,
  /** Characters of one prior task's summary. */
  summaryChars: 2_000,
  /** Bytes of one context file. */
  contextFileBytes: 20 * 1024,
  /** Bytes of the whole spec. */
  totalBytes: 60 * 1024,
};
export type SpecBudgets = typeof specBudgets;

export interface SpecInput {
  feature: { name: string; title: string };
  task: Pick<TaskRecord, "number" | "name" | "description">;
  /** Every task of the feature, in plan order. */
  tasks: readonly Pick<TaskRecord, "number" | "name" | "status" | "summary">[];
  /** The feature's context files, in the order they should be read. */
  contextFiles: readonly { path: string; content: string }[];
}

export interface TaskSpec {
  feature: { name: string; title: string };
  task: { number: number; name: string; description: string };
  prior: { number: number; name: string; status: string; summary: string | null }[];
  upcoming: { number: number; name: string }[];
  contextFiles: { path: string; bytes: number; includedBytes: number }[];
  /** Every cut, in words: a worker and a person reading the spec both see what is missing. */
  warnings: string[];
  sizes: { promptBytes: number; contextBytes: number };
  /** The worker's prompt: the single source of what it is told. */
  prompt: string;
}

const bytesOf = (text: string) => new TextEncoder().encode(text).length;

/** Cuts text to at most `max` UTF-8 bytes without splitting a character. */
function cutToBytes(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  return new TextDecoder().decode(bytes.slice(0, max)).replace(/\uFFFD+$/, "");
}

/**
 * Builds a task's spec: number and name, the feature, the plan's description of the task, prior
 * tasks with their summaries, upcoming tasks and the feature's context files, within `budgets`;
 * sizes and every cut are reported as warnings.
 * @example
 * const spec = buildTaskSpec({ feature, task: tasks[1], tasks, contextFiles: [{ path: "context/brief.md", content }] });
 * spec.prompt   // "# Task 2: API\n…"
 * spec.warnings // ["context file context/big.log is 31,200 bytes: cut to 20,480"]
 */
export function buildTaskSpec(input: SpecInput, budgets: SpecBudgets = specBudgets): TaskSpec {
  const warnings: string[] = [];
  const before = input.tasks.filter((t) => t.number < input.task.number);
  const prior = before.slice(-budgets.priorTasks).map((t) => {
    let summary = t.summary;
    if (summary && summary.length > budgets.summaryChars) {
      warnings.push(
        `the summary of task ${t.number} is ${summary.length.toLocaleString("en")} characters: cut to ${budgets.summaryChars.toLocaleString("en")}`,
      );
      summary = `${summary.slice(0, budgets.summaryChars)}…`;
    }
    return { number: t.number, name: t.name, status: t.status, summary };
  });
  if (before.length > prior.length)
    warnings.push(
      `${before.length - prior.length} earlier task(s) left out: only the last ${budgets.priorTasks} are listed`,
    );
  const upcoming = input.tasks
    .filter((t) => t.number > input.task.number)
    .map((t) => ({ number: t.number, name: t.name }));

  const head = [
    `# Task ${input.task.number}: ${input.task.name}`,
    "",
    `Feature: ${input.feature.title} (${input.feature.name})`,
    "",
    "## What to do (from the approved plan)",
    "",
    input.task.description || "(the plan gives no more than the task's name)",
    "",
    "## Done before this task",
    "",
    ...(prior.length
      ? prior.map(
          (t) =>
            `- Task ${t.number}: ${t.name} — ${t.status}${t.summary ? `\n  Summary: ${t.summary.replace(/\n/g, "\n  ")}` : ""}`,
        )
      : ["(nothing: this is the first task)"]),
    "",
    "## Coming after this task (not yours to do)",
    "",
    ...(upcoming.length ? upcoming.map((t) => `- Task ${t.number}: ${t.name}`) : ["(nothing: this is the last task)"]),
    "",
    "## How to work",
    "",
    "Work only on the feature's files, through the fs.list, fs.read, fs.write and fs.delete tools: your changes stay in your own copy until they are committed.",
    "When the task is done, call task.commit with a short summary of what you did. If you cannot go on without a person's decision, call task.block with your question and wait for the answer.",
    "",
  ].join("\n");

  const contextFiles: TaskSpec["contextFiles"] = [];
  const parts: string[] = [];
  let used = bytesOf(head);
  for (const file of input.contextFiles) {
    const bytes = bytesOf(file.content);
    const room = budgets.totalBytes - used - bytesOf("\n## Context files\n");
    if (room <= 0) {
      warnings.push(
        `context file ${file.path} (${bytes.toLocaleString("en")} bytes) left out: the spec reached its ${budgets.totalBytes.toLocaleString("en")}-byte budget`,
      );
      contextFiles.push({ path: file.path, bytes, includedBytes: 0 });
      continue;
    }
    let text = file.content;
    if (bytes > budgets.contextFileBytes) {
      warnings.push(
        `context file ${file.path} is ${bytes.toLocaleString("en")} bytes: cut to ${budgets.contextFileBytes.toLocaleString("en")}`,
      );
      text = cutToBytes(text, budgets.contextFileBytes);
    }
    const section = `\n### ${file.path}\n\n${text}\n`;
    let kept = section;
    if (bytesOf(section) > room) {
      kept = cutToBytes(section, room);
      warnings.push(
        `context file ${file.path} cut to ${bytesOf(kept).toLocaleString("en")} bytes: the spec reached its ${budgets.totalBytes.toLocaleString("en")}-byte budget`,
      );
    }
    parts.push(kept);
    used += bytesOf(kept);
    contextFiles.push({ path: file.path, bytes, includedBytes: Math.min(bytesOf(text), bytesOf(kept)) });
  }
  const prompt = parts.length ? `${head}\n## Context files\n${parts.join("")}` : head;
  return {
    feature: input.feature,
    task: { number: input.task.number, name: input.task.name, description: input.task.description },
    prior,
    upcoming,
    contextFiles,
    warnings,
    sizes: { promptBytes: bytesOf(prompt), contextBytes: contextFiles.reduce((sum, f) => sum + f.includedBytes, 0) },
    prompt,
  };
}

// `pantheon plan show | diff | comment | approve | answer` and `pantheon tasks list | start | answer |
// commit | resolve | discard | run-all | pause | resume | report`: a feature's plan and tasks over its routes.
import { createTwoFilesPatch } from "diff";
import { UsageError } from "../client.ts";
import { text, type Command } from "../command.ts";
import { note, oneLine, printJson, table } from "../format.ts";
import { need } from "../arguments.ts";
import { featurePath } from "./features.ts";
import { resolve } from "./resolve.ts";

interface PlanView {
  version: number;
  latest: boolean;
  markdown: string;
  approved: boolean;
  approvedBy: string | null;
  comments: { line: number; body: string; author: string }[];
  analysis?: { ok: boolean; findings: string[] };
  questions?: { id: string; question: string; answer: string | null }[];
}

interface Task {
  number: number;
  key: string;
  name: string;
  status: string;
  summary: string | null;
  question: string | null;
  dependsOn?: number[];
  diff: { filesChanged: number; insertions: number; deletions: number };
  overlayFiles: number;
}

/** The words after the positional ones that name things: the text of an answer or comment. */
const rest = (args: string[], from: number, what: string, command: string) => {
  const words = args.slice(from).join(" ").trim();
  if (!words) throw new UsageError(`give the ${what}`, command);
  return words;
};
const versionOf = (value: string | undefined, option: string, command: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${option} is a plan version from 1, got '${value}'`, command);
  return n;
};

export const plan: Command = {
  name: "plan",
  summary:
    "a feature's plan: show a version with comments and analysis, diff two versions, comment, approve, answer the planner",
  defaultAction: "show",
  actions: [
    {
      name: "show",
      summary:
        "a plan version (the latest unless named): its markdown with line numbers, comments, analysis, questions",
      usage: ["<feature> [--version <n>]"],
      options: { version: { type: "string", help: "which version (default: the latest)" } },
      async run({ client: { request }, args, values, json }) {
        const feature = need(args, 0, "feature", "plan");
        const version = versionOf(text(values, "version"), "version", "plan");
        const view = await request<PlanView>("GET", featurePath(feature, "/plan"), {
          query: { version: version?.toString() },
        });
        if (json) return printJson(view);
        console.log(
          `Plan of ${feature}, version ${view.version}${view.latest ? " (latest)" : ""}: ${view.approved ? `approved by ${view.approvedBy}` : "waiting for review"}\n`,
        );
        const byLine = new Map<number, string[]>();
        for (const c of view.comments) byLine.set(c.line, [...(byLine.get(c.line) ?? []), `${c.author}: ${c.body}`]);
        view.markdown.split(/\r?\n/).forEach((line, i) => {
          console.log(`${String(i + 1).padStart(4)}  ${line}`);
          for (const c of byLine.get(i + 1) ?? []) console.log(`      ▸ ${c}`);
        });
        if (view.analysis)
          console.log(
            `\nAnalysis: ${view.analysis.ok ? "every task traced to the plan, every section has a task" : view.analysis.findings.join("; ")}`,
          );
        const asked = await request<{ questions: NonNullable<PlanView["questions"]> }>(
          "GET",
          featurePath(feature, "/questions"),
        );
        for (const q of asked?.questions ?? [])
          console.log(
            `Question ${q.id}: ${q.question} — ${q.answer ?? `not answered (pantheon plan answer ${feature} ${q.id} <answer>)`}`,
          );
      },
    },
    {
      name: "diff",
      summary: "what changed between two plan versions (default: the one before the latest, and the latest)",
      usage: ["<feature> [--from <n>] [--to <n>]"],
      options: {
        from: { type: "string", help: "the older version" },
        to: { type: "string", help: "the newer version (default: the latest)" },
      },
      async run({ client: { request }, args, values, json }) {
        const feature = need(args, 0, "feature", "plan");
        const to = await request<PlanView>("GET", featurePath(feature, "/plan"), {
          query: { version: versionOf(text(values, "to"), "to", "plan")?.toString() },
        });
        const fromVersion = versionOf(text(values, "from"), "from", "plan") ?? to.version - 1;
        if (fromVersion < 1)
          throw new UsageError(`${feature} has only version ${to.version}: nothing to compare it with`, "plan");
        const from = await request<PlanView>("GET", featurePath(feature, "/plan"), {
          query: { version: String(fromVersion) },
        });
        const patch = createTwoFilesPatch(`plan v${from.version}`, `plan v${to.version}`, from.markdown, to.markdown);
        if (json) return printJson({ from: from.version, to: to.version, patch, comments: from.comments });
        process.stdout.write(patch);
        for (const c of from.comments) console.log(`(v${from.version} line ${c.line}) ${c.author}: ${c.body}`);
      },
    },
    {
      name: "comment",
      summary: "comment on a line of the plan (the latest version unless named)",
      usage: ["<feature> --line <n> <text…> [--version <n>]"],
      options: {
        line: { type: "string", help: "the 1-based line of the plan" },
        version: { type: "string", help: "which version (default: the latest)" },
      },
      async run({ client: { request }, args, values, json }) {
        const feature = need(args, 0, "feature", "plan");
        const line = Number(text(values, "line"));
        if (!Number.isInteger(line) || line < 1)
          throw new UsageError("--line is the plan's 1-based line the comment is about", "plan");
        const version = versionOf(text(values, "version"), "version", "plan");
        const body = await request<{ version: number; line: number }>("POST", featurePath(feature, "/plan/comments"), {
          json: { line, body: rest(args, 1, "comment", "plan"), ...(version ? { version } : {}) },
        });
        if (json) return printJson(body);
        console.log(`Commented on line ${body.line} of version ${body.version}.`);
      },
    },
    {
      name: "approve",
      summary: "approve the latest plan version (a token of scope approve); naming an older version is refused",
      usage: ["<feature> [--version <n>]"],
      options: { version: { type: "string", help: "the version you reviewed (refused when it is not the latest)" } },
      async run({ client: { request }, args, values, json }) {
        const feature = need(args, 0, "feature", "plan");
        const version = versionOf(text(values, "version"), "version", "plan");
        const view = await request<PlanView>("POST", featurePath(feature, "/plan/approve"), {
          json: version ? { version } : {},
        });
        if (json) return printJson(view);
        console.log(
          `Approved version ${view.version} of ${feature}. Next: the orchestrator syncs the tasks; then pantheon tasks run-all ${feature}`,
        );
        const open = view.comments.length;
        if (open) note(`Note: version ${view.version} has ${open} comment(s).`);
      },
    },
    {
      name: "answer",
      summary: "answer a question the planner asked before writing the plan",
      usage: ["<feature> <question-id> <answer…>"],
      async run({ client: { request }, args, json }) {
        const feature = need(args, 0, "feature", "plan");
        const id = need(args, 1, "question (its id, from pantheon approvals)", "plan");
        const body = await request<{ orchestrator: string; told: boolean }>(
          "POST",
          featurePath(feature, `/questions/${encodeURIComponent(id)}/answer`),
          { json: { answer: rest(args, 2, "answer", "plan") } },
        );
        if (json) return printJson(body);
        console.log(
          `Answered. ${body.told ? `${body.orchestrator} goes on planning with it.` : "(it was answered already)"}`,
        );
      },
    },
  ],
};

/** `tasks <action> <feature> <task>`: the feature and the task (a number, or its key). */
function featureAndTask(args: string[], action: string): [string, string] {
  const [feature, task] = args;
  if (!feature || !task)
    throw new UsageError(`name the feature and the task: pantheon tasks ${action} <feature> <task>`, "tasks");
  return [feature, task];
}

export const tasks: Command = {
  name: "tasks",
  summary:
    "a feature's tasks: list, start, answer a question, commit, resolve a conflict, discard, run all one after another, pause, report",
  defaultAction: "list",
  actions: [
    {
      name: "list",
      summary: "the board: each task's number, key, status, what it waits for, changes",
      usage: ["<feature>"],
      async run({ client: { request }, args, json }) {
        const feature = need(args, 0, "feature", "tasks");
        const body = await request<{ tasks: Task[] }>("GET", featurePath(feature, "/tasks"));
        if (json) return printJson(body);
        if (!body.tasks.length)
          return console.log(`No tasks yet: the plan is approved and synced first (pantheon plan show ${feature}).`);
        console.log(
          table(
            ["#", "KEY", "STATUS", "AFTER", "CHANGES", "TASK", "NOTE"],
            body.tasks.map((t) => [
              t.number,
              t.key,
              t.status,
              t.dependsOn?.length ? t.dependsOn.join(",") : "-",
              t.diff.filesChanged
                ? `${t.diff.filesChanged} file(s) +${t.diff.insertions} −${t.diff.deletions}`
                : t.overlayFiles
                  ? `${t.overlayFiles} uncommitted`
                  : "-",
              t.name,
              oneLine(t.status === "blocked" ? `asks: ${t.question}` : (t.summary ?? ""), 60),
            ]),
          ),
        );
        const blocked = body.tasks.filter((t) => t.status === "blocked");
        for (const t of blocked)
          note(
            `Task ${t.number} asks: ${t.question}\n  Answer with: pantheon tasks answer ${feature} ${t.key} <answer>`,
          );
      },
    },
    {
      name: "start",
      summary: "start a task: its worker agent runs it from its spec (an admin)",
      usage: ["<feature> <task>"],
      async run({ client: { request }, args, json }) {
        const [feature, task] = featureAndTask(args, "start");
        const body = await request<{ task: number; key: string; worker: string; runId: string }>(
          "POST",
          featurePath(feature, `/tasks/${encodeURIComponent(task)}/start`),
        );
        if (json) return printJson(body);
        console.log(
          `Started task ${body.task} (${body.key}): worker ${body.worker}, run ${body.runId}. See: pantheon runs show ${body.worker} ${body.runId}`,
        );
      },
    },
    {
      name: "answer",
      summary: "answer a blocked task's question (a token of scope approve): its worker goes on with it",
      usage: ["<feature> <task> <answer…>"],
      async run({ client: { request }, args, json }) {
        const [feature, task] = featureAndTask(args, "answer");
        const body = await request<{ task: number; key: string; resumed: boolean }>(
          "POST",
          featurePath(feature, `/tasks/${encodeURIComponent(task)}/answer`),
          { json: { answer: rest(args, 2, "answer", "tasks") } },
        );
        if (json) return printJson(body);
        console.log(`Answered task ${body.task} (${body.key})${body.resumed ? ": its worker goes on." : "."}`);
      },
    },
    {
      name: "commit",
      summary: "commit a task's changes to the feature (an admin)",
      usage: ["<feature> <task> [--summary <text>] [--partial]"],
      options: {
        summary: { type: "string", help: "what the task did (default: the worker's)" },
        partial: { type: "boolean", help: "commit, but leave the task partial" },
      },
      async run({ client: { request }, args, values, json }) {
        const [feature, task] = featureAndTask(args, "commit");
        const summary = text(values, "summary");
        const body = await request<{
          committed: boolean;
          conflicts: string[];
          status: string;
          diff: { filesChanged: number };
        }>("POST", featurePath(feature, `/tasks/${encodeURIComponent(task)}/commit`), {
          json: { ...(summary ? { summary } : {}), ...(values.partial ? { status: "partial" } : {}) },
        });
        if (json) return printJson(body);
        if (!body.committed) {
          console.log(`Not committed: ${body.conflicts.join(", ")} changed meanwhile. The task is ${body.status}.`);
          return 1;
        }
        console.log(`Committed ${body.diff.filesChanged} file(s); the task is ${body.status}.`);
      },
    },
    resolve,
    {
      name: "discard",
      summary: "drop a task's uncommitted changes and cancel it (an admin)",
      usage: ["<feature> <task>"],
      async run({ client: { request }, args, json }) {
        const [feature, task] = featureAndTask(args, "discard");
        const body = await request<{ discarded: number; status: string }>(
          "POST",
          featurePath(feature, `/tasks/${encodeURIComponent(task)}/discard`),
        );
        if (json) return printJson(body);
        console.log(`Discarded ${body.discarded} change(s); the task is ${body.status}.`);
      },
    },
    {
      name: "run-all",
      summary: "run the tasks one after another to the end, stopping on a question or a failure (an admin)",
      usage: ["<feature>"],
      async run({ client: { request }, args, json }) {
        const feature = need(args, 0, "feature", "tasks");
        const body = await request<{ next: { task: number; key: string } | null; reason?: string }>(
          "POST",
          featurePath(feature, "/run-all"),
        );
        if (json) return printJson(body);
        console.log(
          body.next
            ? `Running ${feature}: task ${body.next.task} (${body.next.key}) first, then each next one as the one before ends. Watch: pantheon tasks list ${feature}`
            : `Nothing to start: ${body.reason ?? "every task is settled"}.`,
        );
      },
    },
    {
      name: "pause",
      summary: "pause the feature: writes are refused and running workers stop (approve scope)",
      usage: ["<feature>"],
      async run({ client: { request }, args, json }) {
        const feature = need(args, 0, "feature", "tasks");
        const body = await request<{ stopped: number[] }>("POST", featurePath(feature, "/pause"));
        if (json) return printJson(body);
        console.log(
          `Paused ${feature}${body.stopped.length ? `; stopped task(s) ${body.stopped.join(", ")}` : ""}. Resume with: pantheon tasks resume ${feature}`,
        );
      },
    },
    {
      name: "resume",
      summary: "resume a paused feature: stopped tasks start again with their work kept",
      usage: ["<feature>"],
      async run({ client: { request }, args, json }) {
        const feature = need(args, 0, "feature", "tasks");
        const body = await request<{ restarted: number[] }>("POST", featurePath(feature, "/resume"));
        if (json) return printJson(body);
        console.log(
          `Resumed ${feature}${body.restarted.length ? `; started again task(s) ${body.restarted.join(", ")}` : ""}.`,
        );
      },
    },
    {
      name: "report",
      summary: "the feature's report.md, or one task's",
      usage: ["<feature> [<task>]"],
      async run({ client: { request }, args, json }) {
        const feature = need(args, 0, "feature", "tasks");
        const task = args[1];
        if (json) return printJson(await request("GET", featurePath(feature, "/report")));
        const md = await request<string>(
          "GET",
          featurePath(feature, task ? `/tasks/${encodeURIComponent(task)}/report.md` : "/report.md"),
          { accept: "text/markdown" },
        );
        process.stdout.write(md.endsWith("\n") ? md : `${md}\n`);
      },
    },
  ],
};

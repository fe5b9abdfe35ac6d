import type { FeatureReport, TaskReport, TaskRun } from "./report";

/** A moment as people read it in a report: ISO 8601 in UTC, or a dash. */
const when = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z") : "—");
/** A cost in dollars; a run the stand-in answered is free and says so; unknown prices say so once. */
const money = (usd: number | null, runs: readonly TaskRun[] = []) => {
  if (usd === null) return "not priced (a model without a known price answered)";
  const offline = runs.length > 0 && runs.every((r) => r.models.length > 0 && r.models.every((m) => m.offline));
  return `$${usd.toFixed(4)}${offline ? " (offline stand-in)" : ""}`;
};
const tokens = (t: { input: number; output: number }) =>
  `${t.input.toLocaleString("en")} in, ${t.output.toLocaleString("en")} out`;
/** Markdown-safe on one line: a summary or question with newlines or pipes stays inside its cell. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
const quote = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => `> ${l}`)
    .join("\n");

function runLines(runs: readonly TaskRun[], base: string): string[] {
  if (!runs.length) return ["(no runs)"];
  return [
    "| run | status | models | tokens | cost |",
    "| --- | --- | --- | --- | --- |",
    ...runs.map(
      (r) =>
        `| [${r.runId}](${base}${r.trace}) | ${r.status} | ${r.models.map((m) => m.model).join(", ") || "—"} | ${tokens({ input: r.inputTokens, output: r.outputTokens })} | ${money(r.costUsd, [r])} |`,
    ),
  ];
}

/** The body of one task's section (also the whole of the task's own report.md). */
function taskBody(t: TaskReport, base: string): string[] {
  const lines = [
    `- Status: **${t.status}**`,
    `- Started: ${when(t.startedAt)}`,
    `- Completed: ${when(t.completedAt)}`,
    `- Changes: ${t.diff.filesChanged} file(s), +${t.diff.insertions} −${t.diff.deletions}`,
    `- Tokens: ${tokens(t.tokens)}; cost: ${money(t.costUsd, t.runs)}`,
    "",
    "### Summary",
    "",
    t.summary ?? "(no summary yet)",
  ];
  if (t.diff.files.length)
    lines.push(
      "",
      "### Files",
      "",
      "| file | change | + | − |",
      "| --- | --- | --- | --- |",
      ...t.diff.files.map((f) => `| ${cell(f.path)} | ${f.change} | ${f.insertions} | ${f.deletions} |`),
    );
  if (t.question)
    lines.push(
      "",
      "### Question and answer",
      "",
      quote(t.question),
      "",
      t.answer ? `Answer${t.answeredBy ? ` (${t.answeredBy})` : ""}: ${t.answer}` : "(not answered yet)",
    );
  if (t.commits.length)
    lines.push(
      "",
      "### Commits",
      "",
      ...t.commits.map(
        (c) =>
          `- ${c.url ? `[${c.sha.slice(0, 12)}](${c.url})` : `\`${c.sha.slice(0, 12)}\``}${c.message ? ` ${cell(c.message.split("\n")[0]!)}` : ""}`,
      ),
    );
  lines.push("", "### Runs", "", ...runLines(t.runs, base));
  return lines;
}

/**
 * One task's report.md: status, times, summary, diff stats and files, the question and its answer,
 * commits, runs with links to their traces, tokens and cost. `base` prefixes links (the server's URL).
 */
export function taskReportMarkdown(feature: { name: string; title: string }, t: TaskReport, base = ""): string {
  return [
    `# Task ${t.number}: ${t.name}`,
    "",
    `Feature: ${feature.title} (${feature.name}) · key \`${t.key}\``,
    "",
    ...taskBody(t, base),
    "",
  ].join("\n");
}

/**
 * The feature's report.md (the seed's report, extended): feature, completion time, status, totals
 * (diff stats, files, runs, tokens and cost including the planner's), then each task's section.
 * @example
 * featureReportMarkdown(report).startsWith("# Report: Login page") // true
 */
export function featureReportMarkdown(r: FeatureReport, base = ""): string {
  const lines = [
    `# Report: ${r.title}`,
    "",
    `- Feature: ${r.feature}`,
    `- Status: **${r.status}**`,
    `- Started: ${when(r.createdAt)}`,
    `- Completed: ${when(r.completedAt)}`,
    `- Tasks: ${r.tasks.length} (${
      Object.entries(r.byStatus)
        .map(([s, n]) => `${n} ${s}`)
        .join(", ") || "none"
    })`,
    `- Changes: ${r.diff.filesChanged} file(s), +${r.diff.insertions} −${r.diff.deletions}`,
    `- Runs: ${r.runs}; tokens: ${tokens(r.tokens)}; cost: ${money(r.costUsd, [...r.tasks.flatMap((t) => t.runs), ...r.planner.runs])}`,
    "",
    "## Tasks",
    "",
    "| # | task | status | changes | cost |",
    "| --- | --- | --- | --- | --- |",
    ...r.tasks.map(
      (t) =>
        `| ${t.number} | ${cell(t.name)} | ${t.status} | ${t.diff.filesChanged} file(s) +${t.diff.insertions} −${t.diff.deletions} | ${money(t.costUsd, t.runs)} |`,
    ),
    "",
    "## Files",
    "",
    ...(r.diff.files.length ? r.diff.files.map((f) => `- ${f}`) : ["(no files changed)"]),
  ];
  for (const t of r.tasks)
    lines.push("", `## Task ${t.number}: ${t.name}`, "", ...taskBody(t, base).map((l) => l.replace(/^### /, "#### ")));
  if (r.removed.length) {
    lines.push("", "## Removed from the plan (their files stay in the tree)", "");
    for (const t of r.removed)
      lines.push(`- ${t.name} (\`${t.key}\`): ${t.status}, ${t.diff.files.map((f) => f.path).join(", ")}`);
  }
  lines.push(
    "",
    "## Planning",
    "",
    `Tokens: ${tokens(r.planner.tokens)}; cost: ${money(r.planner.costUsd, r.planner.runs)}`,
    "",
    ...runLines(r.planner.runs, base),
    "",
  );
  return lines.join("\n");
}

import type { FeatureReport } from "./report";

/** A pull request's body from the feature's report: each task's status, summary and diff, the totals. */
export function pullRequestBody(report: FeatureReport, title: string): string {
  const money = (usd: number | null) => (usd === null ? "not priced" : `$${usd.toFixed(4)}`);
  const lines = [
    `# ${title}`,
    "",
    `Feature \`${report.feature}\` (${report.status}) — ${report.tasks.length} tasks, ${report.diff.filesChanged} files changed (+${report.diff.insertions} −${report.diff.deletions}), ${report.runs} runs, ${report.tokens.input + report.tokens.output} tokens, ${money(report.costUsd)}.`,
    "",
    "## Tasks",
    "",
  ];
  for (const t of report.tasks) {
    lines.push(`### ${t.number}. ${t.name} — ${t.status}`, "", t.summary ?? "(no summary)", "");
    if (t.diff.files.length)
      lines.push(...t.diff.files.map((f) => `- \`${f.path}\` ${f.change} (+${f.insertions} −${f.deletions})`), "");
  }
  lines.push("---", "Opened by Pantheon.");
  return lines.join("\n");
}

import { css, html, nothing } from "lit";
import type { PlanComment } from "../api";
import { authorName, type PlanComparison } from "../plan-compare";
import { timeAgo } from "./shared";

/** One comment as the plan views show it: who (by name), when, and on which version. */
export function commentCard(c: PlanComment, line: number, from?: number) {
  return html`<article class="comment ${from ? "earlier" : ""}" aria-label="Comment on line ${line}${from ? ` of v${from}` : ""}">
    <div class="who">${authorName(c.author)} · ${timeAgo(c.createdAt)}${from ? html` · <span class="badge">on v${from}</span>` : nothing}</div><p>${c.body}</p></article>`;
}

/**
 * Two plan versions line by line, as a diff: removed lines (the older version's numbers), added
 * lines (the newer's), kept lines with both, and each of the older version's comments under the
 * line it was made on, so a reviewer sees which comments the new version answered.
 */
export function planChanges(comparison: PlanComparison<PlanComment>, from: number, to: number) {
  return html`
    <p class="small" role="status">v${from} → v${to}: <span class="plus">+${comparison.added}</span> <span class="minus">−${comparison.removed}</span> lines ·
      ${comparison.addressed.length} comment${comparison.addressed.length === 1 ? "" : "s"} on changed lines · ${comparison.unaddressed.length} on lines v${to} kept as they were</p>
    <section class="card plan changes" aria-label="Changes from v${from} to v${to}">
      <ol>${comparison.lines.map(
        (l) => html`<li class="change ${l.kind}" data-old=${l.oldLine ?? ""} data-new=${l.newLine ?? ""}>
        <div class="cline"><span class="num">${l.oldLine ?? ""}</span><span class="num">${l.newLine ?? ""}</span>
          <span class="sign" aria-hidden="true">${l.kind === "added" ? "+" : l.kind === "removed" ? "−" : " "}</span>
          <span class="md"><span class="sr-only">${l.kind === "added" ? "Added: " : l.kind === "removed" ? "Removed: " : ""}</span>${l.text || " "}</span></div>
        ${l.comments.length ? html`<div class="thread">${l.comments.map((c) => commentCard(c, l.oldLine!, from))}</div>` : nothing}
      </li>`,
      )}</ol>
    </section>`;
}

/** Plan ⇄ tasks consistency as the server analyses a plan (issue 28, flow); absent on older servers. */
export interface PlanAnalysisView {
  tasks: { task: number; key?: string; name: string; tracedTo: string[] }[];
  untraced: string[];
  ok: boolean;
  findings?: string[];
}

/**
 * The plan's analysis beside its text (Spec Kit's `analyze`): each task and the plan sections it
 * carries out, and what the plan asks for that no task does. Nothing when the server gives none.
 */
export function planAnalysis(analysis: PlanAnalysisView | undefined) {
  if (!analysis) return nothing;
  const findings = analysis.findings ?? [
    ...analysis.tasks
      .filter((t) => t.tracedTo.length === 0)
      .map((t) => `task ${t.task} '${t.name}' is not traced to any section of the plan`),
    ...analysis.untraced.map((s) => `section '${s}' has no task`),
  ];
  return html`<section class="card analysis" aria-labelledby="analysis-h">
    <div class="row"><h3 id="analysis-h" style="margin:0">Plan ⇄ tasks</h3><span class=${analysis.ok ? "badge ok" : "badge warn"}>${analysis.ok ? "consistent" : `${findings.length} finding${findings.length === 1 ? "" : "s"}`}</span></div>
    ${findings.length ? html`<ul class="small findings">${findings.map((f) => html`<li>${f}</li>`)}</ul>` : nothing}
    ${
      analysis.tasks.length
        ? html`<details><summary class="small">Each task and what it carries out</summary>
      <ul class="small">${analysis.tasks.map((t) => html`<li>Task ${t.task} ${t.name}: ${t.tracedTo.length ? t.tracedTo.join(", ") : html`<em>nothing in the plan</em>`}</li>`)}</ul></details>`
        : nothing
    }
  </section>`;
}

export const planChangesStyles = css`
  .analysis { margin: .5rem 0 .75rem; }
  .analysis .findings { margin: .4rem 0; padding-left: 1.2rem; }
  .changes .cline { display: grid; grid-template-columns: 2rem 2rem 1rem 1fr; gap: .25rem; padding: .1rem .6rem .1rem 0; font-size: .92rem; }
  .changes .change.added { background: color-mix(in srgb, var(--ok) 16%, transparent); }
  .changes .change.removed { background: color-mix(in srgb, var(--danger) 14%, transparent); }
  .changes .change.removed .md { text-decoration: line-through; text-decoration-color: color-mix(in srgb, var(--danger) 60%, transparent); }
  .changes .sign { font-weight: 800; color: var(--muted); }
  .plus { color: var(--ok); font-weight: 700; } .minus { color: var(--danger); font-weight: 700; }
  .comment.earlier { border-left-color: var(--muted); }
`;

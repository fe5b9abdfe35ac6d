import { LitElement, css, html, nothing } from "lit";
import type { WorkState } from "../state";
import { base, emit } from "./shared";
import { boardColumns, diffLabel, featureBadge, statusText, taskBadge, taskCounts, when } from "./work-shared";

/**
 * A feature's page: its summary and the live task board, one column per status (stacked on a
 * phone). The controller polls the tasks every few seconds while the page is visible.
 *
 * Events: `reload`.
 */
export class PantheonTaskBoard extends LitElement {
  static override properties = { work: { attribute: false }, name: { type: String } };
  declare work: WorkState;
  declare name: string;

  static override styles = [base, css`
    .board { display: grid; gap: .75rem; }
    @media (min-width: 900px) { .board { grid-template-columns: repeat(5, minmax(0, 1fr)); align-items: start; } }
    .column { background: var(--surface-2); border-radius: 14px; padding: .6rem; }
    .column h3 { font-size: .9rem; display: flex; gap: .4rem; align-items: center; margin: 0 0 .5rem; }
    .column ul { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; }
    .task { display: grid; gap: .2rem; padding: .7rem; }
    .task a { font-weight: 700; }
    .empty { color: var(--muted); font-size: .85rem; margin: 0; }
    .live { font-size: .8rem; color: var(--muted); }
    .question { font-size: .85rem; border-left: 3px solid var(--warn); padding-left: .5rem; }
    dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 0; }
    dt { color: var(--muted); font-size: .85rem; } dd { margin: 0; }
  `];

  override render() {
    const w = this.work;
    const f = w.feature.status === "ready" || w.feature.status === "loading" ? w.feature.data : undefined;
    const tasks = "data" in w.tasks && w.tasks.data ? w.tasks.data : [];
    const enc = encodeURIComponent(this.name);
    return html`
      <p><a href="#/features">← All features</a></p>
      <div class="row"><h2>${f?.title ?? this.name}</h2>${f ? html`<span class=${featureBadge(f.status)}>${statusText(f.status)}</span>` : nothing}</div>
      ${w.feature.status === "error" ? html`<div class="alert error" role="alert">${w.feature.error}</div>` : nothing}
      ${f ? html`
        <section class="card" aria-label="About this feature">
          <dl>
            <dt>Name</dt><dd><code>${f.name}</code></dd>
            <dt>Planned by</dt><dd><a href="#/agents/${encodeURIComponent(f.orchestrator)}">${f.orchestrator}</a></dd>
            <dt>Plan</dt><dd>${f.plan ? html`v${f.plan.version}, ${f.plan.approved ? "approved" : "waiting for review"} · <a href="#/features/${enc}/plan">Review the plan</a>` : "not written yet"}</dd>
            <dt>Created</dt><dd>${when(f.createdAt)}</dd>
            ${f.tasks.total ? html`<dt>Tasks</dt><dd class="row">${taskCounts(f.tasks)}</dd>` : nothing}
          </dl>
        </section>` : nothing}
      <div class="row" style="margin-top:1rem"><h3 style="margin:0">Task board</h3><span class="spacer"></span>
        <span class="live" role="status">Live · refreshed ${w.refreshedAt ? new Date(w.refreshedAt).toLocaleTimeString() : "…"}</span>
        <button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh the board">↻</button></div>
      ${w.tasks.status === "error" ? html`<div class="alert error" role="alert">${w.tasks.error}</div>` : nothing}
      ${w.tasks.status === "ready" && tasks.length === 0 ? html`<p class="muted">No tasks yet: they appear once the plan is approved and its tasks are synced.</p>` : nothing}
      ${tasks.length ? html`<div class="board">
        ${boardColumns.map((col) => {
          const mine = tasks.filter((t) => (col.statuses as readonly string[]).includes(t.status));
          return html`<section class="column" aria-labelledby="col-${col.id}" data-column=${col.id}>
            <h3 id="col-${col.id}">${col.title} <span class="badge">${mine.length}</span></h3>
            ${mine.length === 0 ? html`<p class="empty">None</p>` : html`<ul>${mine.map((t) => html`
              <li class="card task" aria-label="Task ${t.number}: ${t.name}, ${statusText(t.status)}">
                <a href="#/features/${enc}/tasks/${t.number}">#${t.number} ${t.name}</a>
                <span><span class=${taskBadge(t.status)}>${statusText(t.status)}</span></span>
                ${t.worker ? html`<span class="small muted">Worker <a href="#/agents/${encodeURIComponent(t.worker)}">${t.worker}</a></span>` : nothing}
                <span class="small">${diffLabel(t.diff)}${t.overlayFiles ? html` · <span class="muted">${t.overlayFiles} uncommitted</span>` : nothing}</span>
                ${t.status === "blocked" && t.question ? html`<span class="question">${t.question} <a href="#/features/${enc}/tasks/${t.number}" aria-label="Answer task ${t.number}'s question">Answer</a></span>` : nothing}
              </li>`)}</ul>`}
          </section>`;
        })}
      </div>` : nothing}`;
  }
}

customElements.define("pantheon-task-board", PantheonTaskBoard);

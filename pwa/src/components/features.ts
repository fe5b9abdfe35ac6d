import { LitElement, css, html, nothing } from "lit";
import type { FeatureSummary } from "../api";
import type { Loadable } from "../types";
import { base, emit, timeAgo } from "./shared";
import { featureBadge, taskCounts } from "./work-shared";

/**
 * Every feature of the project: name, title, status, plan and task counts; each opens its page.
 *
 * Events: `reload`.
 */
export class PantheonFeatures extends LitElement {
  static override properties = { features: { attribute: false } };
  declare features: Loadable<FeatureSummary[]>;

  constructor() {
    super();
    this.features = { status: "idle" };
  }

  static override styles = [base, css`
    .list { display: grid; gap: .75rem; list-style: none; padding: 0; margin: 0; }
    .feature { display: grid; gap: .25rem; }
    .feature a.title { font-weight: 700; font-size: 1.05rem; }
    .counts { display: flex; gap: .35rem; flex-wrap: wrap; }
  `];

  override render() {
    const f = this.features;
    const list = "data" in f && f.data ? f.data : [];
    return html`
      <div class="row"><h2>Work</h2><span class="spacer"></span><button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh features">↻ Refresh</button></div>
      <p class="muted small">Features: larger work an agent plans, a person approves, and workers carry out task by task.</p>
      ${f.status === "error" ? html`<div class="alert error" role="alert">${f.error}</div>` : nothing}
      ${f.status === "loading" && list.length === 0 ? html`<p class="muted">Loading features…</p>` : nothing}
      ${f.status === "ready" && list.length === 0 ? html`<div class="card"><h3>No features yet</h3><p class="muted">Ask an agent with the feature tools to plan one (<code>feature.create</code>, <code>plan.write</code>).</p></div>` : nothing}
      <ul class="list">
        ${list.map((x) => html`
          <li class="card feature">
            <div class="row"><a class="title" href="#/features/${encodeURIComponent(x.name)}">${x.title}</a><span class="spacer"></span><span class=${featureBadge(x.status)}>${x.status.replace(/_/g, " ")}</span></div>
            <span class="muted small"><code>${x.name}</code> · planned by ${x.orchestrator} · updated ${timeAgo(x.updatedAt)}</span>
            <span class="small">${x.plan ? html`Plan v${x.plan.version} ${x.plan.approved ? "approved" : "in review"} · <a href="#/features/${encodeURIComponent(x.name)}/plan">review</a>` : "No plan yet"}</span>
            ${x.tasks.total ? html`<span class="counts" aria-label="Tasks">${taskCounts(x.tasks)}</span>` : html`<span class="muted small">No tasks yet</span>`}
          </li>`)}
      </ul>`;
  }
}

customElements.define("pantheon-features", PantheonFeatures);

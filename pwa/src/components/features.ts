import { LitElement, css, html, nothing } from "lit";
import type { FeatureSummary } from "../api";
import type { Loadable } from "../types";
import { base, emit } from "./shared";
import { endedAt, needsOf, orderFeatures, type Feature } from "../work-attention";
import { featureBadge, taskCounts, when } from "./work-shared";
import type { WorkState } from "../state";
import "./feature-import";

/**
 * Every feature of the project: what needs a person first (a plan to review, blocked tasks,
 * questions), then the newest first; each with its title, status, start and end, plan and task
 * counts, and a link to its page.
 *
 * Events: `reload`.
 */
export class PantheonFeatures extends LitElement {
  static override properties = { features: { attribute: false }, work: { attribute: false } };
  declare features: Loadable<FeatureSummary[]>;
  /** For the import form (an admin's); absent, no form. */
  declare work: WorkState | undefined;

  constructor() {
    super();
    this.features = { status: "idle" };
  }

  static override styles = [
    base,
    css`
    .list { display: grid; gap: .75rem; list-style: none; padding: 0; margin: 0; }
    .feature { display: grid; gap: .25rem; }
    .feature a.title { font-weight: 700; font-size: 1.05rem; }
    .counts { display: flex; gap: .35rem; flex-wrap: wrap; }
    .feature.needs { border-color: var(--warn); border-width: 2px; }
    .needs-list { margin: 0; padding: 0; list-style: none; display: flex; gap: .35rem; flex-wrap: wrap; }
    .needs-list li { font-size: .85rem; font-weight: 700; color: var(--text); background: var(--warn-soft); border: 1px solid var(--warn); border-radius: 999px; padding: .1rem .55rem; }
    h3.group { font-size: .9rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 1rem 0 .5rem; }
  `,
  ];

  private card(x: Feature) {
    const enc = encodeURIComponent(x.name);
    const needs = needsOf(x);
    const ended = endedAt(x);
    return html`
      <li class="card feature ${needs.length ? "needs" : ""}" aria-label="${x.title}${needs.length ? `: ${needs.join(", ")}` : ""}">
        <div class="row"><a class="title" href="#/features/${enc}">${x.title}</a><span class="spacer"></span>
          ${x.paused ? html`<span class="badge warn">paused</span>` : nothing}<span class=${featureBadge(x.status)}>${x.status.replace(/_/g, " ")}</span></div>
        ${needs.length ? html`<ul class="needs-list" aria-label="Needs a person">${needs.map((n) => html`<li>${n}</li>`)}</ul>` : nothing}
        <span class="muted small"><code>${x.name}</code> · planned by ${x.orchestrator}</span>
        <span class="small">Started ${when(x.createdAt)} · ${ended ? html`ended ${when(ended)}` : html`<span class="muted">not ended</span>`}</span>
        <span class="small">${x.plan ? html`Plan v${x.plan.version} ${x.plan.approved ? "approved" : "in review"} · <a href="#/features/${enc}/plan">review</a>` : "No plan yet"}</span>
        ${x.tasks.total ? html`<span class="counts" aria-label="Tasks">${taskCounts(x.tasks)}</span>` : html`<span class="muted small">No tasks yet</span>`}
      </li>`;
  }

  override render() {
    const f = this.features;
    const list = orderFeatures(("data" in f && f.data ? f.data : []) as Feature[]);
    const waiting = list.filter((x) => needsOf(x).length > 0);
    const rest = list.filter((x) => needsOf(x).length === 0);
    return html`
      <div class="row"><h2>Work</h2><span class="spacer"></span><button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh features">↻ Refresh</button></div>
      <p class="muted small">Features: larger work an agent plans, a person approves, and workers carry out task by task.</p>
      ${this.work ? html`<pantheon-feature-import .work=${this.work}></pantheon-feature-import>` : nothing}
      ${f.status === "error" ? html`<div class="alert error" role="alert">${f.error}</div>` : nothing}
      ${f.status === "loading" && list.length === 0 ? html`<p class="muted">Loading features…</p>` : nothing}
      ${f.status === "ready" && list.length === 0 ? html`<div class="card"><h3>No features yet</h3><p class="muted">Ask an agent with the feature tools to plan one (<code>feature.create</code>, <code>plan.write</code>).</p></div>` : nothing}
      ${waiting.length ? html`<h3 class="group" id="needs-h">Needs a person</h3><ul class="list" aria-labelledby="needs-h">${waiting.map((x) => this.card(x))}</ul>` : nothing}
      ${rest.length ? html`${waiting.length ? html`<h3 class="group" id="rest-h">Newest first</h3>` : nothing}<ul class="list" aria-label="Features, newest first">${rest.map((x) => this.card(x))}</ul>` : nothing}`;
  }
}

customElements.define("pantheon-features", PantheonFeatures);

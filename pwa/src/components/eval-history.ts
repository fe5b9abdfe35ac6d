import { LitElement, css, html, nothing } from "lit";
import type { EvalRunSummary } from "../api";
import type { Loadable } from "../types";
import { costLabel } from "../../../core/models/cost-label";
import { base, timeAgo } from "./shared";

const ms = (n: number) => (n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`);
const percent = (share: number) => `${Math.round(share * 1000) / 10}%`;

/**
 * An agent's eval runs (`pantheon eval run`), newest first: each suite's pass rate against its
 * threshold, cost and latency, the cases that failed with their reasons, and how the pass rate moved
 * since the previous run of the same suite.
 */
export class PantheonEvalHistory extends LitElement {
  static override properties = { runs: { attribute: false }, agent: {} };
  declare runs: Loadable<EvalRunSummary[]>;
  declare agent: string;

  static override styles = [
    base,
    css`
    ul { list-style: none; padding: 0; margin: 0; }
    li.run { padding: .6rem 0; border-bottom: 1px solid var(--border); }
    li.run:last-child { border-bottom: 0; }
    .line { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
    .failing { margin: .35rem 0 0 .75rem; }
    .failing li { padding: .15rem 0; }
  `,
  ];

  override render() {
    const runs = this.runs;
    if (!runs || runs.status === "loading" || runs.status === "idle") return html`<p class="muted">Loading…</p>`;
    if (runs.status === "error") return html`<div class="alert error" role="alert">${runs.error}</div>`;
    if (runs.data.length === 0)
      return html`<p class="muted">No eval runs yet. Run a suite with <code>pantheon eval run suite.yaml --agent ${this.agent}</code>.</p>`;
    return html`<ul aria-label="Eval runs of ${this.agent}">${runs.data.map((run, i) =>
      this.run(
        run,
        runs.data.slice(i + 1).find((r) => r.suite === run.suite),
      ),
    )}</ul>`;
  }

  private run(run: EvalRunSummary, previous: EvalRunSummary | undefined) {
    const delta = previous ? run.passRate - previous.passRate : null;
    return html`<li class="run" data-suite=${run.suite}>
      <div class="line">
        <strong>${run.suite}</strong>
        <span class=${run.pass ? "badge ok" : "badge bad"}>${run.passed}/${run.cases} passed</span>
        <span class="small muted">${percent(run.passRate)} (needs ${percent(run.threshold)})</span>
        ${delta !== null && delta !== 0 ? html`<span class=${delta > 0 ? "badge ok" : "badge bad"}>${delta > 0 ? "+" : ""}${percent(delta)} since the last run</span>` : nothing}
      </div>
      <div class="small muted">${timeAgo(run.startedAt)} · ${run.tokens} tokens · ${costLabel(run.costUsd)} · p50 ${ms(run.latencyMs.p50)} · p95 ${ms(run.latencyMs.p95)}</div>
      ${run.failing.length ? html`<ul class="failing" aria-label="Failed cases">${run.failing.map((f) => html`<li class="small"><strong>${f.name}</strong>: ${f.reason}</li>`)}</ul>` : nothing}
    </li>`;
  }
}

customElements.define("pantheon-eval-history", PantheonEvalHistory);

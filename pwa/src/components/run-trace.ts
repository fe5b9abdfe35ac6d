import { LitElement, css, html, nothing } from "lit";
import { toTime } from "../chat-state";
import { askerOf } from "../delegation";
import type { RunDetail } from "../api";
import type { Loadable } from "../types";
import { base, emit, pretty, statusBadge, statusLabel } from "./shared";

/** Every step of one run, in order, with its duration drawn on a shared time axis. */
export class PantheonRunTrace extends LitElement {
  static override properties = { agent: { type: String }, trace: { attribute: false }, deciding: { attribute: false } };
  declare agent: string;
  declare trace: Loadable<RunDetail & { conversation?: string | null }>;
  declare deciding: string[];

  constructor() {
    super();
    this.agent = "";
    this.trace = { status: "idle" };
    this.deciding = [];
  }

  static override styles = [
    base,
    css`
    ol { list-style: none; padding: 0; margin: 0; }
    li { border-bottom: 1px solid var(--border); padding: .6rem 0; }
    li:last-child { border-bottom: 0; }
    .step { display: grid; grid-template-columns: 2.2rem 1fr auto; gap: .5rem; align-items: center; }
    .seq { color: var(--muted); font-variant-numeric: tabular-nums; font-size: .85rem; }
    .ms { font-variant-numeric: tabular-nums; font-size: .85rem; color: var(--muted); }
    .axis { grid-column: 2 / -1; height: 6px; background: var(--surface-2); border-radius: 3px; position: relative; }
    .bar { position: absolute; top: 0; bottom: 0; border-radius: 3px; background: var(--accent); min-width: 3px; }
    .bar.gate { background: var(--warn); } .bar.tool { background: var(--ok); } .bar.error { background: var(--danger); }
    details { grid-column: 2 / -1; }
    .kind { text-transform: uppercase; font-size: .7rem; letter-spacing: .05em; }
    dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 0 0 1rem; }
    dt { color: var(--muted); font-size: .85rem; } dd { margin: 0; }
  `,
  ];

  override render() {
    const t = this.trace;
    if (t.status === "error") return html`<div class="alert error" role="alert">${t.error}</div>`;
    if (t.status !== "ready") return html`<p class="muted">Loading the trace…</p>`;
    const { run, trace, conversation } = t.data;
    const asker = askerOf(run);
    const steps = [...trace].sort((a, b) => a.seq - b.seq);
    const start = Math.min(...steps.map((s) => toTime(s.startedAt)), toTime(run.startedAt) || Infinity);
    const end = Math.max(...steps.map((s) => toTime(s.startedAt) + (s.durationMs ?? 0)), start + 1);
    const span = end - start || 1;
    const total = run.finishedAt ? toTime(run.finishedAt) - toTime(run.startedAt) : null;
    return html`
      <p><a href="#/agents/${encodeURIComponent(this.agent)}">← ${this.agent}</a></p>
      <h2>Run trace <span class=${statusBadge(run.status)}>${statusLabel(run.status)}</span></h2>
      <dl class="card">
        <dt>Run</dt><dd><code>${run.id}</code></dd>
        <dt>Trigger</dt><dd>${run.trigger ?? "message"}</dd>
        <dt>Started</dt><dd>${run.startedAt ? new Date(toTime(run.startedAt)).toLocaleString() : "—"}</dd>
        <dt>Duration</dt><dd>${total !== null ? `${total} ms` : "still running"}</dd>
        <dt>Steps · tokens</dt><dd>${run.steps ?? steps.length} · ${run.tokens ?? 0}</dd>
        ${asker ? html`<dt>Asked by</dt><dd><a href="#/agents/${encodeURIComponent(asker)}">${asker}</a></dd>` : nothing}
        ${conversation ? html`<dt>Delegation</dt><dd><a href="#/conversations/${encodeURIComponent(conversation)}">See the whole chain</a></dd>` : nothing}
        ${run.error ? html`<dt>Error</dt><dd>${run.error}</dd>` : nothing}
      </dl>
      ${(run.pending ?? []).map(
        (p) => html`
        <div class="alert info row" role="group" aria-label="Approval for ${p.tool}">
          <span><strong>${p.tool}</strong> waits for a person.</span><span class="spacer"></span>
          <button class="primary" ?disabled=${this.deciding.includes(p.callId)} @click=${() => emit(this, "decide", { agent: this.agent, runId: run.id, callId: p.callId, decision: "approve" })}>Approve</button>
          <button class="danger" ?disabled=${this.deciding.includes(p.callId)} @click=${() => emit(this, "decide", { agent: this.agent, runId: run.id, callId: p.callId, decision: "reject" })}>Reject</button>
        </div>`,
      )}
      <section class="card" aria-label="Steps">
        ${
          steps.length === 0
            ? html`<p class="muted">No steps recorded.</p>`
            : html`<ol>${steps.map((s) => {
                const left = ((toTime(s.startedAt) - start) / span) * 100;
                const width = ((s.durationMs ?? 0) / span) * 100;
                return html`<li class="step-row" data-kind=${s.kind}>
            <div class="step">
              <span class="seq">#${s.seq}</span>
              <span><span class="badge kind">${s.kind}</span> <strong>${s.name}</strong></span>
              <span class="ms">${s.durationMs ?? 0} ms</span>
              <div class="axis" aria-hidden="true"><div class="bar ${s.kind}" style="left:${left.toFixed(2)}%;width:${width.toFixed(2)}%"></div></div>
              <details><summary class="small">Details</summary><pre>${pretty(s.data)}</pre></details>
            </div>
          </li>`;
              })}</ol>`
        }
      </section>`;
  }
}

customElements.define("pantheon-run-trace", PantheonRunTrace);

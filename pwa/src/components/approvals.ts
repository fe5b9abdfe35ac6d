import { LitElement, css, html, nothing } from "lit";
import type { Approval } from "../api";
import type { Loadable } from "../types";
import { base, emit, pretty, timeAgo } from "./shared";

/**
 * Every run waiting for a person, with approve and reject one tap away.
 *
 * Events: `decide` {agent, runId, callId, decision}, `reload`.
 */
export class PantheonApprovals extends LitElement {
  static override properties = { approvals: { attribute: false }, deciding: { attribute: false }, error: { type: String } };
  declare approvals: Loadable<Approval[]>;
  declare deciding: string[];
  declare error: string | null;

  constructor() {
    super();
    this.approvals = { status: "idle" };
    this.deciding = [];
    this.error = null;
  }

  static override styles = [base, css`
    .list { display: grid; gap: .75rem; }
    .actions { display: grid; grid-template-columns: 1fr 1fr; gap: .5rem; margin-top: .5rem; }
    .actions button { width: 100%; }
  `];

  override render() {
    const a = this.approvals;
    const list = "data" in a && a.data ? a.data : [];
    return html`
      <div class="row"><h2>Approvals</h2><span class="spacer"></span><button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh approvals">↻ Refresh</button></div>
      ${this.error ? html`<div class="alert error" role="alert">${this.error}</div>` : nothing}
      ${a.status === "error" ? html`<div class="alert error" role="alert">${a.error}</div>` : nothing}
      ${a.status === "loading" && list.length === 0 ? html`<p class="muted">Loading…</p>` : nothing}
      ${a.status === "ready" && list.length === 0 ? html`<div class="card"><h3>Nothing waiting</h3><p class="muted">When an agent asks to use a tool that needs a person, it appears here.</p></div>` : nothing}
      <div class="list">
        ${list.map((x) => html`
          <article class="card" aria-label="${x.agent} wants to run ${x.tool}">
            <div class="row"><strong>${x.agent}</strong><span class="muted">wants to run</span><code>${x.tool}</code><span class="spacer"></span>
              <span class="muted small">${timeAgo(x.requestedAt)}</span></div>
            <pre>${pretty(x.arguments)}</pre>
            <a class="small" href="#/agents/${encodeURIComponent(x.agent)}/runs/${encodeURIComponent(x.runId)}">Open the run</a>
            <div class="actions">
              <button class="primary" ?disabled=${this.deciding.includes(x.callId)} @click=${() => emit(this, "decide", { ...x, decision: "approve" })}>Approve</button>
              <button class="danger" ?disabled=${this.deciding.includes(x.callId)} @click=${() => emit(this, "decide", { ...x, decision: "reject" })}>Reject</button>
            </div>
          </article>`)}
      </div>`;
  }
}

customElements.define("pantheon-approvals", PantheonApprovals);

import { LitElement, css, html, nothing } from "lit";
import type { ContextResult, Loadable } from "../types";
import { base, emit } from "./shared";

/**
 * What the model saw for a turn: the compiled messages and every candidate item with its
 * scores, whether it made the budget, and why.
 *
 * Events: `context-query` {agent, q}.
 */
export class PantheonContextView extends LitElement {
  static override properties = { agent: { type: String }, q: { type: String }, context: { attribute: false } };
  declare agent: string;
  declare q: string;
  declare context: Loadable<ContextResult>;

  constructor() {
    super();
    this.agent = "";
    this.q = "";
    this.context = { status: "idle" };
  }

  static override styles = [base, css`
    form { display: flex; gap: .5rem; align-items: flex-end; margin-bottom: 1rem; }
    form .field { flex: 1; margin: 0; }
    meter { width: 100%; height: 1rem; }
    .item { border-left: 4px solid var(--border); padding: .5rem .75rem; margin: .5rem 0; background: var(--surface); border-radius: 0 10px 10px 0; }
    .item.in { border-left-color: var(--ok); }
    .scores { display: flex; gap: .35rem; flex-wrap: wrap; margin-top: .3rem; }
    .msg { margin: .35rem 0; }
  `];

  private submit(e: Event) {
    e.preventDefault();
    const q = String(new FormData(e.target as HTMLFormElement).get("q") ?? "").trim();
    if (q) emit(this, "context-query", { agent: this.agent, q });
  }

  override render() {
    const c = this.context;
    return html`
      <p><a href="#/agents/${encodeURIComponent(this.agent)}">← ${this.agent}</a></p>
      <h2>What ${this.agent} sees</h2>
      <p class="muted">Type a message to see the context the agent would compile for it.</p>
      <form @submit=${this.submit}>
        <div class="field"><label for="q">Message</label><input id="q" name="q" .value=${this.q ?? ""} required></div>
        <button class="primary" type="submit">Show context</button>
      </form>
      ${c.status === "loading" ? html`<p class="muted">Compiling context…</p>` : nothing}
      ${c.status === "error" ? html`<div class="alert error" role="alert">${c.error}</div>` : nothing}
      ${c.status === "ready" ? this.renderResult(c.data) : nothing}`;
  }

  private renderResult(r: ContextResult) {
    const items = [...r.items].sort((a, b) => Number(b.included) - Number(a.included));
    return html`
      <section class="card stack" aria-label="Token budget">
        <label for="budget">Tokens used: ${r.tokens.used} of ${r.tokens.budget}</label>
        <meter id="budget" min="0" max=${r.tokens.budget} value=${r.tokens.used}></meter>
      </section>
      <h3 style="margin-top:1rem">Candidates (${items.filter((i) => i.included).length} of ${items.length} included)</h3>
      ${items.map((i) => html`
        <div class="item ${i.included ? "in" : ""}">
          <div class="row"><span class=${i.included ? "badge ok" : "badge"}>${i.included ? "included" : "left out"}</span>
            <span class="small muted">${i.source} · ${i.kind}</span></div>
          <div>${i.text}</div>
          <div class="scores">${Object.entries(i.scores ?? {}).map(([k, v]) => html`<span class="badge">${k} ${typeof v === "number" ? v.toFixed(2) : v}</span>`)}</div>
          ${i.reason ? html`<div class="small muted">${i.reason}</div>` : nothing}
        </div>`)}
      <h3 style="margin-top:1rem">Messages sent to the model</h3>
      <div class="card">${r.messages.map((m) => html`<div class="msg"><span class="badge">${m.role}</span> <span>${m.content}</span></div>`)}</div>`;
  }
}

customElements.define("pantheon-context-view", PantheonContextView);

import { LitElement, css, html, nothing } from "lit";
import type { ContextItem, ContextResult } from "../api";
import type { Loadable } from "../types";
import { base, emit } from "./shared";

/**
 * What the model saw for a turn: the compiled messages and every candidate item with its
 * scores, whether it made the budget, and why.
 *
 * Events: `context-query` {agent, q}.
 */
export class PantheonContextView extends LitElement {
  static override properties = {
    agent: { type: String },
    q: { type: String },
    max: { type: Number },
    context: { attribute: false },
  };
  declare agent: string;
  declare q: string;
  /** A token budget smaller than the agent's, to see what would be left out (0: the agent's own). */
  declare max: number;
  declare context: Loadable<ContextResult>;

  constructor() {
    super();
    this.agent = "";
    this.q = "";
    this.max = 0;
    this.context = { status: "idle" };
  }

  static override styles = [
    base,
    css`
    form { display: flex; gap: .5rem; align-items: flex-end; margin-bottom: 1rem; flex-wrap: wrap; }
    form .field { flex: 1; margin: 0; min-width: 12rem; }
    form .field.budget { flex: 0 1 9rem; min-width: 7rem; }
    meter { width: 100%; height: 1rem; }
    .item { border-left: 4px solid var(--border-strong); padding: .6rem .8rem; margin: .5rem 0; background: var(--surface); border-radius: 0 10px 10px 0; border-top: 1px solid var(--border); border-right: 1px solid var(--border); border-bottom: 1px solid var(--border); }
    .item.in { border-left-color: var(--ok); }
    .item .text { margin: .35rem 0; white-space: pre-wrap; word-break: break-word; }
    .meta { display: flex; gap: .4rem; flex-wrap: wrap; align-items: center; }
    .id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .78rem; color: var(--muted); word-break: break-all; }
    dl.scores { display: grid; grid-template-columns: repeat(auto-fill, minmax(6.5rem, 1fr)); gap: .25rem .5rem; margin: .35rem 0; }
    dl.scores div { background: var(--surface-2); border-radius: 8px; padding: .2rem .45rem; display: flex; justify-content: space-between; gap: .4rem; }
    dl.scores dt { font-size: .75rem; color: var(--muted); }
    dl.scores dd { margin: 0; font-size: .8rem; font-variant-numeric: tabular-nums; font-weight: 600; }
    dl.scores div.final { background: var(--accent-soft); }
    .msg { margin: .35rem 0; white-space: pre-wrap; word-break: break-word; }
    h3 { margin-top: 1.25rem; }
    ul.sources { list-style: none; padding: 0; margin: 0; }
    ul.sources li { padding: .3rem 0; }
    ul.warnings { margin: 0; padding: .5rem .75rem .5rem 1.75rem; border: 1px solid var(--warn); background: var(--warn-soft); border-radius: 10px; font-size: .9rem; }
  `,
  ];

  private submit(e: Event) {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const q = String(data.get("q") ?? "").trim();
    const max = Number(data.get("max") ?? 0);
    if (q) emit(this, "context-query", { agent: this.agent, q, max: max > 0 ? Math.round(max) : 0 });
  }

  override render() {
    const c = this.context;
    return html`
      <p><a href="#/agents/${encodeURIComponent(this.agent)}">← ${this.agent}</a></p>
      <h2>What ${this.agent} sees</h2>
      <p class="muted">Type a message to see the context the agent would compile for it. <span id="max-hint">A smaller token budget shows what it would leave out.</span></p>
      <form @submit=${this.submit}>
        <div class="field"><label for="q">Message</label><input id="q" name="q" .value=${this.q ?? ""} required></div>
        <div class="field budget"><label for="max">Token budget</label><input id="max" name="max" type="number" min="1" step="1" inputmode="numeric"
          placeholder="agent's" .value=${this.max ? String(this.max) : ""} aria-describedby="max-hint"></div>
        <button class="primary" type="submit">Show context</button>
      </form>
      ${c.status === "loading" ? html`<p class="muted">Compiling context…</p>` : nothing}
      ${c.status === "error" ? html`<div class="alert error" role="alert">${c.error}</div>` : nothing}
      ${c.status === "ready" ? this.renderResult(c.data) : nothing}`;
  }

  private renderResult(r: ContextResult) {
    const included = r.items.filter((i) => i.included);
    const dropped = r.items.filter((i) => !i.included);
    return html`
      <section class="card stack" aria-label="Budget use">
        <label for="budget">Tokens used: ${r.tokens.used} of ${r.tokens.budget}</label>
        <meter id="budget" min="0" max=${r.tokens.budget} value=${r.tokens.used}></meter>
        <p class="small muted">${r.sources?.length ? `Sources: ${r.sources.join(", ")}. ` : ""}${r.embedder ? `Embedder ${r.embedder.model} (${r.embedder.dimensions} dimensions) on the ${r.embedder.index} index.` : ""}</p>
        ${(r.warnings ?? []).length ? html`<ul class="warnings" aria-label="Context warnings">${r.warnings!.map((w) => html`<li>${w}</li>`)}</ul>` : nothing}
      </section>
      ${this.sources(r)}
      ${r.items.length === 0 ? html`<p class="muted" style="margin-top:1rem">No memory matched this message: the model sees only the instructions and recent turns.</p>` : nothing}
      ${included.length ? html`<h3>Included (${included.length})</h3>${included.map((i) => this.item(i))}` : nothing}
      ${dropped.length ? html`<h3>Left out (${dropped.length})</h3>${dropped.map((i) => this.item(i))}` : nothing}
      ${r.summary ? html`<h3>Conversation summary</h3><div class="card msg">${r.summary}</div>` : nothing}
      <h3>Messages sent to the model</h3>
      <div class="card">${r.messages.map((m) => html`<div class="msg"><span class="badge">${m.role}</span> <span>${m.content}</span></div>`)}</div>`;
  }

  /**
   * Each source the agent lists, and why it was or was not used for this message: items included,
   * matched but left out (budget, ranking), nothing matched, or refused by its owner (with the
   * owner's reason: a grant that does not name this agent, no connection).
   */
  private sources(r: ContextResult) {
    const listed = r.sources ?? [];
    const refused = new Map((r.refused ?? []).map((x) => [x.source, x.reason]));
    const names = [...new Set([...listed, ...refused.keys()])];
    if (!names.length) return nothing;
    const sourceOf = (i: ContextItem) =>
      i.source === "memory" || listed.includes(i.source)
        ? i.source
        : (listed.find((s) => s.endsWith(`/${i.source}`)) ?? i.source);
    const why = (source: string) => {
      const reason = refused.get(source);
      if (reason !== undefined) return { used: false, text: `Refused: ${reason}` };
      const items = r.items.filter((i) => sourceOf(i) === source);
      const inCount = items.filter((i) => i.included).length;
      if (inCount)
        return {
          used: true,
          text: `Used: ${inCount} of ${items.length} matching item${items.length === 1 ? "" : "s"} included${items.length > inCount ? ", the rest left out (below)" : ""}`,
        };
      if (items.length)
        return {
          used: false,
          text: `Not used: ${items.length} item${items.length === 1 ? "" : "s"} matched but ranked below what the budget holds`,
        };
      return { used: false, text: "Not used: nothing in it matched this message" };
    };
    return html`<section class="card" aria-labelledby="sources-h">
      <h3 id="sources-h" style="margin-top:0">Sources, and why each was or was not used</h3>
      <ul class="sources" aria-label="Sources and why">${names.map((source) => {
        const w = why(source);
        return html`<li data-source=${source}><span class=${w.used ? "badge ok" : refused.has(source) ? "badge bad" : "badge"}>${source}</span> <span class="small">${w.text}</span></li>`;
      })}</ul>
    </section>`;
  }

  private item(i: ContextItem) {
    const reason = typeof i.reason === "string" ? i.reason : i.reason?.detail;
    const scores = Object.entries(i.scores ?? {}).sort(([a], [b]) => (a === "final" ? -1 : b === "final" ? 1 : 0));
    return html`
      <article class="item ${i.included ? "in" : ""}" aria-label="${i.included ? "Included" : "Left out"}: ${i.kind} from ${i.source}">
        <div class="meta"><span class=${i.included ? "badge ok" : "badge"}>${i.included ? "included" : "left out"}</span>
          <span class="badge">${i.source}</span><span class="small muted">${i.kind}${i.origin === "graph" ? " · via the graph" : i.origin === "adjacent" ? " · the turn next to a hit" : ""}${i.tokens ? ` · ${i.tokens} tokens` : ""}</span></div>
        <div class="text">${i.text}</div>
        <dl class="scores" aria-label="Scores">${scores.map(([k, v]) => html`<div class=${k === "final" ? "final" : ""}><dt>${k}</dt><dd>${typeof v === "number" ? v.toFixed(2) : v}</dd></div>`)}</dl>
        ${reason ? html`<div class="small">${reason}</div>` : nothing}
        <div class="id">id ${i.id}</div>
      </article>`;
  }
}

customElements.define("pantheon-context-view", PantheonContextView);

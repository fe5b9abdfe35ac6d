import { LitElement, css, html, nothing } from "lit";
import type { AppState } from "../state";
import type { Loadable } from "../types";
import { base, pretty, statusBadge, statusLabel, timeAgo } from "./shared";

/** One agent: its script, schedules, connections and recent runs (each run links to its trace). */
export class PantheonActorDetail extends LitElement {
  static override properties = { detail: { attribute: false } };
  declare detail: AppState["detail"];

  static override styles = [base, css`
    .grid { display: grid; gap: 1rem; }
    @media (min-width: 900px) { .grid { grid-template-columns: 1fr 1fr; } .wide { grid-column: 1 / -1; } }
    nav.actions { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: 1rem; }
    ul { list-style: none; padding: 0; margin: 0; }
    li { padding: .5rem 0; border-bottom: 1px solid var(--border); display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
    li:last-child { border-bottom: 0; }
    pre.script { max-height: 24rem; }
  `];

  override render() {
    const d = this.detail;
    if (!d) return nothing;
    const a = encodeURIComponent(d.agent);
    const info = d.info.status === "ready" ? d.info.data : null;
    const connections = info?.connections ?? connectionsOf(d.script);
    return html`
      <h2>${d.agent} ${info?.status ? html`<span class=${statusBadge(info.status)}>${statusLabel(info.status)}</span>` : nothing}</h2>
      ${info?.description ? html`<p class="muted">${info.description}</p>` : nothing}
      <nav class="actions" aria-label="Agent actions">
        <a class="button primary" href="#/agents/${a}/chat">Chat</a>
        <a class="button" href="#/agents/${a}/tools">Run a tool</a>
        <a class="button" href="#/agents/${a}/context">What it sees</a>
      </nav>
      <div class="grid">
        <section class="card" aria-labelledby="runs-h">
          <h3 id="runs-h">Recent runs</h3>
          ${this.section(d.runs, (runs) => runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`<ul>${runs.map((r) => html`
            <li><a href="#/agents/${a}/runs/${encodeURIComponent(r.id)}">${r.trigger ?? "run"} · ${timeAgo(r.startedAt)}</a>
              <span class=${statusBadge(r.status)}>${statusLabel(r.status)}</span>
              <span class="muted small">${r.steps ?? 0} steps · ${r.tokens ?? 0} tokens</span></li>`)}</ul>`)}
        </section>
        <section class="card" aria-labelledby="sched-h">
          <h3 id="sched-h">Schedules</h3>
          ${this.section(d.schedules, (list) => list.length === 0 ? html`<p class="muted">Nothing scheduled.</p>` : html`<ul>${list.map((s) => html`
            <li><strong>${s.name ?? s.behavior ?? s.id ?? "schedule"}</strong><span class="muted small">${s.cron ?? (s.every ? `every ${s.every}` : "")}${s.nextRunAt ? ` · next ${new Date(s.nextRunAt).toLocaleString()}` : ""}</span></li>`)}</ul>`)}
        </section>
        <section class="card" aria-labelledby="conn-h">
          <h3 id="conn-h">Connections</h3>
          ${connections === null ? html`<p class="muted">Shown once the script is available.</p>`
            : connections.length === 0 ? html`<p class="muted">Not connected to other agents.</p>`
            : html`<ul>${connections.map((c) => html`<li><a href="#/agents/${encodeURIComponent(c)}">${c}</a></li>`)}</ul>`}
        </section>
        <section class="card wide" aria-labelledby="script-h">
          <h3 id="script-h">Script</h3>
          ${this.section(d.script, (text) => text.trim() ? html`<pre class="script" tabindex="0" aria-label="Agent script">${text}</pre>` : html`<p class="muted">No script yet: this agent only chats.</p>`)}
          ${info?.systemPrompt ? html`<h3>Instructions</h3><pre>${info.systemPrompt}</pre>` : nothing}
          ${info?.model ? html`<p class="small muted">Model: ${info.model.provider} · ${info.model.name}</p>` : nothing}
        </section>
      </div>`;
  }

  private section<T>(value: Loadable<T>, ready: (data: T) => unknown) {
    if (value.status === "ready") return ready(value.data);
    if (value.status === "error") return html`<p class="muted" role="status">${value.error}</p>`;
    return html`<p class="muted">Loading…</p>`;
  }
}

function connectionsOf(script: Loadable<string>): string[] | null {
  if (script.status !== "ready") return null;
  try {
    const parsed = JSON.parse(script.data) as { connections?: unknown };
    return Array.isArray(parsed.connections) ? parsed.connections.map((c) => (typeof c === "string" ? c : pretty(c))) : [];
  } catch {
    // The Lisp DSL: (connections a b c)
    const m = /\(connections\s+([^)]*)\)/.exec(script.data);
    return m?.[1] ? m[1].split(/\s+/).filter(Boolean).map((s) => s.replace(/^["']|["']$/g, "")) : [];
  }
}

customElements.define("pantheon-actor-detail", PantheonActorDetail);

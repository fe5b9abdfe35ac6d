import { LitElement, css, html, nothing, type PropertyValues } from "lit";
import type { AppState } from "../state";
import type { Agent } from "../api";
import type { Loadable } from "../types";
import { base, emit, statusBadge, statusLabel, timeAgo } from "./shared";
import { projectSpend } from "./spend";

/**
 * Every agent with its status and last activity, and a form to create one.
 *
 * Events: `create-agent` {name, description?, systemPrompt?, model?}, `reload`.
 */
export class PantheonActorsTable extends LitElement {
  static override properties = {
    agents: { attribute: false },
    create: { attribute: false },
    showForm: { state: true },
  };
  declare agents: Loadable<Agent[]>;
  declare create: AppState["createAgent"];
  declare showForm: boolean;

  constructor() {
    super();
    this.agents = { status: "idle" };
    this.create = { busy: false, error: null, created: null };
    this.showForm = false;
  }

  static override styles = [
    base,
    css`
    .head { display: flex; align-items: center; gap: .5rem; margin-bottom: 1rem; flex-wrap: wrap; }
    .head h2 { margin: 0; }
    .list { display: grid; gap: .75rem; }
    .agent { display: grid; grid-template-columns: 1fr auto; gap: .25rem .75rem; align-items: center; text-decoration: none; color: var(--text); }
    .agent .name { font-weight: 700; font-size: 1.05rem; color: var(--text); text-decoration: none; }
    .agent .desc { grid-column: 1 / -1; color: var(--muted); font-size: .9rem; }
    .agent .actions { grid-column: 1 / -1; display: flex; gap: .5rem; flex-wrap: wrap; }
    table { display: none; }
    @media (min-width: 760px) {
      .list { display: none; }
      table { display: table; }
    }
    form, .alert { margin-bottom: 1rem; }
    .grid2 { display: grid; gap: 0 1rem; }
    @media (min-width: 640px) { .grid2 { grid-template-columns: 1fr 1fr; } }
  `,
  ];

  private submit(e: Event) {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const get = (k: string) => String(data.get(k) ?? "").trim();
    const provider = get("provider");
    const model = get("model");
    emit(this, "create-agent", {
      name: get("name"),
      ...(get("description") ? { description: get("description") } : {}),
      ...(get("systemPrompt") ? { systemPrompt: get("systemPrompt") } : {}),
      ...(provider || model ? { model: { provider: provider || "offline", name: model || "offline" } } : {}),
    });
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has("create") && this.create.created) this.showForm = false;
  }

  override render() {
    const a = this.agents;
    const list = "data" in a && a.data ? a.data : [];
    return html`
      <div class="head">
        <h2>Agents</h2><span class="spacer"></span>
        <button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh the list">↻ Refresh</button>
        <button class="primary" @click=${() => (this.showForm = !this.showForm)} aria-expanded=${this.showForm ? "true" : "false"}>${this.showForm ? "Close" : "+ New agent"}</button>
      </div>
      ${projectSpend(list)}
      ${this.showForm ? this.renderForm() : nothing}
      ${this.create.created && !this.showForm ? html`<div class="alert info" role="status">Created <a href="#/agents/${encodeURIComponent(this.create.created)}/chat">${this.create.created}</a>. Start chatting.</div>` : nothing}
      ${a.status === "error" ? html`<div class="alert error" role="alert">${a.error}</div>` : nothing}
      ${a.status === "loading" && list.length === 0 ? html`<p class="muted">Loading agents…</p>` : nothing}
      ${a.status === "ready" && list.length === 0 ? html`<div class="card"><h3>No agents yet</h3><p class="muted">Create your first agent to start a conversation.</p></div>` : nothing}
      <div class="list">
        ${list.map(
          (agent) => html`
          <div class="card agent">
            <a class="name" href="#/agents/${encodeURIComponent(agent.name)}/chat">${agent.name}</a>
            <span class=${statusBadge(agent.status)}>${statusLabel(agent.status ?? "idle")}</span>
            ${agent.description ? html`<span class="desc">${agent.description}</span>` : nothing}
            <span class="desc small">Last active ${timeAgo(agent.lastActivityAt ?? agent.updatedAt)}</span>
            <span class="actions"><a class="button primary" href="#/agents/${encodeURIComponent(agent.name)}/chat">Chat</a><a class="button" href="#/agents/${encodeURIComponent(agent.name)}">Details</a></span>
          </div>`,
        )}
      </div>
      ${
        list.length
          ? html`
        <table class="card">
          <caption class="sr-only">Agents</caption>
          <thead><tr><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Model</th><th scope="col">Last activity</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${list.map(
              (agent) => html`<tr>
              <td><a href="#/agents/${encodeURIComponent(agent.name)}"><strong>${agent.name}</strong></a><div class="muted small">${agent.description ?? ""}</div></td>
              <td><span class=${statusBadge(agent.status)}>${statusLabel(agent.status ?? "idle")}</span></td>
              <td class="small">${agent.model ? `${agent.model.provider} · ${agent.model.name}` : "default"}</td>
              <td class="small">${timeAgo(agent.lastActivityAt ?? agent.updatedAt)}</td>
              <td><a class="button primary" href="#/agents/${encodeURIComponent(agent.name)}/chat">Chat</a></td>
            </tr>`,
            )}
          </tbody>
        </table>`
          : nothing
      }
    `;
  }

  private renderForm() {
    return html`
      <form class="card" @submit=${this.submit} aria-label="Create an agent">
        <h3>New agent</h3>
        <div class="grid2">
          <div class="field"><label for="name">Name</label>
            <input id="name" name="name" required pattern="[a-z][a-z0-9\\-]{0,62}" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="name-hint">
            <div class="hint" id="name-hint">Starts with a letter; then lowercase letters, digits or -.</div></div>
          <div class="field"><label for="description">Description</label><input id="description" name="description" autocomplete="off"></div>
        </div>
        <div class="field"><label for="systemPrompt">Instructions (system prompt)</label><textarea id="systemPrompt" name="systemPrompt" rows="3"></textarea></div>
        <div class="grid2">
          <div class="field"><label for="provider">Model provider</label><input id="provider" name="provider" placeholder="offline" autocomplete="off"></div>
          <div class="field"><label for="model">Model name</label><input id="model" name="model" placeholder="offline" autocomplete="off"></div>
        </div>
        ${this.create.error ? html`<div class="alert error" role="alert">${this.create.error}</div>` : nothing}
        <div class="row"><button class="primary" type="submit" ?disabled=${this.create.busy}>${this.create.busy ? "Creating…" : "Create agent"}</button></div>
      </form>`;
  }
}

customElements.define("pantheon-actors-table", PantheonActorsTable);

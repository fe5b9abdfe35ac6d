import { LitElement, html, nothing } from "lit";
import type { Agent } from "../api";
import type { Loadable } from "../types";
import { base, emit } from "./shared";

/**
 * Something was shared into Pantheon from another app (Web Share Target): the person picks the
 * agent it goes to; that agent's chat opens with it in the composer, unsent.
 *
 * Events: `share-to` {agent}.
 */
export class PantheonShare extends LitElement {
  static override properties = { agents: { attribute: false } };
  declare agents: Loadable<Agent[]>;
  static override styles = [base];

  constructor() {
    super();
    this.agents = { status: "idle" };
  }

  override render() {
    const list = this.agents.status === "ready" ? (this.agents.data ?? []) : [];
    return html`<section class="card" aria-labelledby="share-h">
      <h1 id="share-h" style="font-size:1.3rem">Share to which agent?</h1>
      <p class="muted small">Its chat opens with what you shared in the message box; nothing is sent until you send it.</p>
      ${this.agents.status === "loading" ? html`<p class="muted">Loading agents…</p>` : nothing}
      <ul style="list-style:none;margin:0;padding:0">${list.map(
        (a) => html`<li style="padding:.3rem 0"><button class="ghost" style="width:100%;text-align:left"
          @click=${() => emit(this, "share-to", { agent: a.name })}>${a.name}</button></li>`,
      )}</ul>
    </section>`;
  }
}

customElements.define("pantheon-share", PantheonShare);

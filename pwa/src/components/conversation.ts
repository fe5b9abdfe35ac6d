import { LitElement, css, html, nothing } from "lit";
import type { BusHop, Conversation } from "../api";
import type { Loadable } from "../types";
import { base, statusBadge, statusLabel, timeAgo } from "./shared";

const runLink = (agent: string, runId: string) =>
  `#/agents/${encodeURIComponent(agent)}/runs/${encodeURIComponent(runId)}`;
const agentLink = (agent: string) => `#/agents/${encodeURIComponent(agent)}`;

function stateBadge(state: string): string {
  if (state === "answered" || state === "applied") return "badge ok";
  if (state === "refused" || state === "timeout" || state === "dead") return "badge bad";
  return "badge run";
}

/** A delegation chain across agents, hop by hop: who asked whom, what, and what came back. */
export class PantheonConversation extends LitElement {
  static override properties = { conversation: { attribute: false } };
  declare conversation: Loadable<Conversation>;

  constructor() {
    super();
    this.conversation = { status: "idle" };
  }

  static override styles = [
    base,
    css`
    ol { list-style: none; padding: 0; margin: 0; }
    .node { position: relative; padding: 0 0 1rem 1.6rem; margin-left: calc(var(--depth, 0) * min(1.25rem, 4vw)); }
    .node::before { content: ""; position: absolute; left: .45rem; top: 1.4rem; bottom: 0; border-left: 2px solid var(--border); }
    .node:last-child::before { display: none; }
    .dot { position: absolute; left: 0; top: .35rem; width: 1rem; height: 1rem; border-radius: 50%; background: var(--accent); border: 3px solid var(--surface); box-shadow: 0 0 0 1px var(--border); }
    .dot.bad { background: var(--danger); }
    .line { display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
    .q, .reply { margin: .35rem 0 0; padding: .5rem .7rem; border-radius: 10px; white-space: pre-wrap; word-break: break-word; }
    .q { background: var(--surface-2); }
    .reply { border: 1px solid var(--border); background: var(--surface); }
    .reply.bad { border-color: var(--danger); background: var(--danger-soft); }
    .arrow { color: var(--muted); }
  `,
  ];

  override render() {
    const c = this.conversation;
    if (c.status === "error")
      return html`<h2>Delegation chain</h2><div class="alert error" role="alert">${c.error}</div>`;
    if (c.status !== "ready") return html`<h2>Delegation chain</h2><p class="muted">Loading the chain…</p>`;
    const { root, hops } = c.data;
    return html`
      <p><a href=${agentLink(root.agent)}>← ${root.agent}</a></p>
      <h2>Delegation chain</h2>
      <p class="muted">${hops.length === 1 ? "1 hop" : `${hops.length} hops`}, deepest ${Math.max(...hops.map((h) => h.depth))}, started ${timeAgo(hops[0]?.createdAt)}.</p>
      <section class="card" aria-label="Hops of the chain">
        <ol>
          <li class="node" style="--depth:0">
            <span class="dot" aria-hidden="true"></span>
            <div class="line"><a href=${agentLink(root.agent)}><strong>${root.agent}</strong></a><span class="muted small">asked first</span>
              ${root.status ? html`<span class=${statusBadge(root.status)}>${statusLabel(root.status)}</span>` : nothing}
              <a class="small" href=${runLink(root.agent, root.runId)}>Trace of its run</a></div>
          </li>
          ${hops.map((h) => this.hop(h))}
        </ol>
      </section>`;
  }

  private hop(h: BusHop) {
    const failed = h.reply?.type === "error" || ["refused", "timeout", "dead"].includes(h.state);
    return html`<li class="node hop" style="--depth:${h.depth}" data-depth=${h.depth}>
      <span class="dot ${failed ? "bad" : ""}" aria-hidden="true"></span>
      <div class="line">
        <a href=${agentLink(h.from)}>${h.from}</a><span class="arrow" aria-label="asked">→</span><a href=${agentLink(h.to)}><strong>${h.to}</strong></a>
        <span class="badge">depth ${h.depth}</span><span class=${stateBadge(h.state)}>${h.state}</span>
      </div>
      <div class="q"><span class="sr-only">Question: </span>${h.question}</div>
      ${
        h.runId
          ? html`<div class="line small" style="margin-top:.35rem"><a href=${runLink(h.to, h.runId)}>Trace of ${h.to}'s run</a>
        ${h.runStatus ? html`<span class=${statusBadge(h.runStatus)}>${statusLabel(h.runStatus)}</span>` : nothing}</div>`
          : nothing
      }
      ${h.reply ? html`<div class="reply ${h.reply.type === "error" ? "bad" : ""}"><span class="small muted">${h.reply.type === "error" ? `Error${h.reply.code ? ` (${h.reply.code})` : ""}` : "Answer"}:</span> ${h.reply.text}</div>` : nothing}
      ${h.note ? html`<div class="small muted">${h.note}</div>` : nothing}
    </li>`;
  }
}

customElements.define("pantheon-conversation", PantheonConversation);

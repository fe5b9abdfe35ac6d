import { LitElement, css, html, nothing, type PropertyValues } from "lit";
import { repeat } from "lit/directives/repeat.js";
import type { ChatItem, ChatToolItem } from "../chat-state";
import { makeDraftPictures } from "../draft-pictures";
import { MAX_PICTURES, type Picture } from "../pictures";
import type { ChatState } from "../state";
import "./picture-picker";
import { composerTray, messagePictures, pictureStyles } from "./picture-views";
import { base, emit, pretty, prettyOutput, statusBadge, statusLabel } from "./shared";

/**
 * The conversation with one agent: streamed replies, tool calls and gate decisions inline,
 * a retry after a failure and a session picker.
 *
 * Events: `send` {content, pictures}, `retry`, `dismiss`, `new-session`, `select-session` {id},
 * `decide` {agent, runId, callId, decision}.
 */
export class PantheonChat extends LitElement {
  static override properties = {
    chat: { attribute: false },
    online: { type: Boolean },
    deciding: { attribute: false },
    draft: { state: true },
    pictures: { state: true },
    pictureProblem: { state: true },
    enlarged: { state: true },
  };
  declare chat: ChatState;
  declare online: boolean;
  declare deciding: string[];
  declare draft: string;
  /** Pictures attached to the draft, each with a blob URL for its thumbnail. */
  declare pictures: (Picture & { url: string })[];
  declare pictureProblem: string;
  declare enlarged: { url: string; label: string } | null;
  private drafts = makeDraftPictures(globalThis.indexedDB);

  constructor() {
    super();
    this.online = true;
    this.deciding = [];
    this.draft = "";
    this.pictures = [];
    this.pictureProblem = "";
    this.enlarged = null;
  }

  static override styles = [
    base,
    pictureStyles,
    css`
    :host { display: flex; flex-direction: column; min-height: 0; }
    .bar { display: flex; gap: .5rem; align-items: center; padding: .5rem 0 .75rem; flex-wrap: wrap; }
    .bar select { width: auto; flex: 1; min-width: 10rem; max-width: 22rem; }
    .live { display: inline-flex; align-items: center; gap: .35rem; font-size: .8rem; color: var(--muted); }
    .dot { width: .6rem; height: .6rem; border-radius: 50%; background: var(--muted); }
    .dot.open { background: var(--ok); }
    .dot.reconnecting { background: var(--warn); }
    .log { flex: 1; overflow-y: auto; padding: .25rem 0 1rem; display: flex; flex-direction: column; gap: .6rem; min-height: 0; }
    .msg { max-width: min(44rem, 88%); padding: .65rem .85rem; border-radius: 16px; white-space: pre-wrap; word-break: break-word; line-height: 1.45; }
    .msg.user { align-self: flex-end; background: var(--bubble-user); color: var(--bubble-user-text); border-bottom-right-radius: 4px; }
    .msg.assistant, .msg.system { align-self: flex-start; background: var(--surface); border: 1px solid var(--border); border-bottom-left-radius: 4px; }
    .msg .meta { display: block; font-size: .75rem; margin-top: .3rem; opacity: .85; }
    .cursor { display: inline-block; width: .5ch; animation: blink 1s steps(2) infinite; }
    @keyframes blink { 50% { opacity: 0; } }
    @media (prefers-reduced-motion: reduce) { .cursor { animation: none; } }
    details.tool { align-self: flex-start; max-width: min(44rem, 92%); width: 100%; background: var(--surface-2); border: 1px solid var(--border); border-radius: 12px; padding: .5rem .75rem; }
    details.tool summary { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; font-size: .9rem; min-height: 32px; }
    .gate { font-size: .85rem; margin: .25rem 0; }
    details.tool.blocked { border-color: var(--danger); background: var(--danger-soft); }
    .why { flex-basis: 100%; color: var(--text); }
    .mark { display: inline-grid; place-items: center; width: 1.15rem; height: 1.15rem; border-radius: 50%; font-size: .7rem; font-weight: 800; color: var(--surface); margin-right: .25rem; vertical-align: -.15rem; }
    .mark.ok { background: var(--ok); } .mark.bad { background: var(--danger); } .mark.warn { background: var(--warn); }
    .approval { align-self: stretch; border: 1px solid var(--warn); background: var(--warn-soft); border-radius: 12px; padding: .75rem; }
    .composer { padding-top: .5rem; border-top: 1px solid var(--border); background: var(--bg); position: sticky; bottom: 0; padding-bottom: max(.5rem, env(safe-area-inset-bottom)); }
    .composer .line { display: flex; gap: .35rem; align-items: flex-end; }
    .composer textarea { flex: 1; min-height: 48px; max-height: 10rem; resize: none; }
    .typing { font-size: .85rem; color: var(--muted); }
    .empty { margin: auto; text-align: center; color: var(--muted); max-width: 22rem; }
  `,
  ];

  /** An unsent draft survives a reload: nothing typed is lost. */
  protected override willUpdate(changed: PropertyValues<this>): void {
    const before = changed.get("chat") as ChatState | undefined;
    if (changed.has("chat") && before?.agent !== this.chat?.agent) {
      this.draft = this.chat?.agent ? (localStorage.getItem(`pantheon.draft.${this.chat.agent}`) ?? "") : "";
      this.clearPictures();
      if (this.chat?.agent) void this.restorePictures(this.chat.agent);
    }
    // A message whose pictures the server refused comes back whole: the text and every picture.
    const returned = this.chat?.returned;
    if (returned && returned.key !== (before?.returned?.key ?? null) && changed.has("chat")) {
      this.draft = this.draft.trim() ? `${returned.content}\n${this.draft}` : returned.content;
      if (this.chat.agent) localStorage.setItem(`pantheon.draft.${this.chat.agent}`, this.draft);
      this.clearPictures();
      this.setPictures(returned.pictures);
    }
  }

  /** Pictures attached before a reload (or before the phone dropped the tab) come back with the text. */
  private async restorePictures(agent: string): Promise<void> {
    const kept = await this.drafts.load(agent);
    if (kept.length && this.chat?.agent === agent && this.pictures.length === 0) this.setPictures(kept, false);
  }

  /** The composer's pictures, each with a thumbnail URL; kept for the agent unless just loaded from there. */
  private setPictures(pictures: Picture[], keep = true): void {
    this.pictures = pictures
      .slice(0, MAX_PICTURES)
      .map((p) => ("url" in p ? (p as Picture & { url: string }) : { ...p, url: URL.createObjectURL(p.blob) }));
    if (keep && this.chat?.agent) void this.drafts.save(this.chat.agent, this.pictures);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.clearPictures();
  }

  private clearPictures(): void {
    for (const p of this.pictures) URL.revokeObjectURL(p.url);
    this.pictures = [];
  }

  private addPictures(added: Picture[]): void {
    this.setPictures([...this.pictures, ...added]);
  }

  private removePicture(key: string): void {
    const gone = this.pictures.find((p) => p.key === key);
    if (gone) URL.revokeObjectURL(gone.url);
    this.setPictures(this.pictures.filter((p) => p.key !== key));
  }

  private async enlarge(url: string, label: string): Promise<void> {
    this.enlarged = { url, label };
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLDialogElement>("dialog.viewer")?.showModal();
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has("chat")) {
      const log = this.renderRoot.querySelector(".log");
      if (log) log.scrollTop = log.scrollHeight;
    }
  }

  private onInput(e: Event) {
    this.draft = (e.target as HTMLTextAreaElement).value;
    if (this.chat.agent) localStorage.setItem(`pantheon.draft.${this.chat.agent}`, this.draft);
  }

  private submit(e?: Event) {
    e?.preventDefault();
    const content = this.draft.trim();
    if (!content && this.pictures.length === 0) return;
    const pictures: Picture[] = this.pictures.map(({ url, ...p }) => {
      URL.revokeObjectURL(url);
      return p;
    });
    emit(this, "send", { content, pictures });
    this.draft = "";
    this.setPictures([]);
    this.pictureProblem = "";
    if (this.chat.agent) localStorage.removeItem(`pantheon.draft.${this.chat.agent}`);
  }

  private onKey(e: KeyboardEvent) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) this.submit(e);
  }

  override render() {
    const c = this.chat;
    if (!c?.agent) return nothing;
    const sessions = c.sessions.status === "ready" ? c.sessions.data : [];
    const typing = c.busy || c.agentState?.typing;
    return html`
      <div class="bar">
        <label class="sr-only" for="session">Conversation</label>
        <select id="session" @change=${(e: Event) => emit(this, "select-session", { id: (e.target as HTMLSelectElement).value })}>
          ${sessions.length === 0 ? html`<option value="">Main conversation</option>` : nothing}
          ${sessions.map((s) => html`<option value=${s.id} ?selected=${s.id === c.sessionId}>${s.title || "Untitled"}${s.isDefault ? " (main)" : ""}</option>`)}
        </select>
        <button class="ghost" @click=${() => emit(this, "new-session")} aria-label="Start a new conversation">+ New</button>
        <span class="spacer"></span>
        <span class="live" role="status" aria-live="polite">
          <span class="dot ${this.online ? c.live : "reconnecting"}"></span>${this.online ? liveLabel(c.live) : "Offline"}
        </span>
        ${c.agentState?.status && c.agentState.status !== "idle" ? html`<span class=${statusBadge(c.agentState.status)}>${statusLabel(c.agentState.status)}</span>` : nothing}
      </div>
      ${c.notice ? html`<div class="alert info" role="status">${c.notice}</div>` : nothing}
      <div class="log" role="log" aria-label="Messages" aria-live="polite">
        ${c.history.status === "loading" && c.items.length === 0 ? html`<p class="empty">Loading the conversation…</p>` : nothing}
        ${c.history.status === "error" ? html`<div class="alert error" role="alert">${c.history.error}</div>` : nothing}
        ${c.history.status === "ready" && c.items.length === 0 ? html`<p class="empty">Say hello to <strong>${c.agent}</strong>. Tip: <code>/tool clock.now {}</code> asks it to call a tool.</p>` : nothing}
        ${repeat(
          c.items,
          (i) => i.key,
          (i) => this.renderItem(i),
        )}
        ${c.approvals.map(
          (a) => html`
          <div class="approval" role="group" aria-label="Approval needed for ${a.tool}">
            <strong>${a.tool}</strong> is waiting for your approval.
            <pre>${pretty(a.arguments)}</pre>
            <div class="row">
              <button class="primary" ?disabled=${this.deciding.includes(a.callId)} @click=${() => emit(this, "decide", { ...a, decision: "approve" })}>Approve</button>
              <button class="danger" ?disabled=${this.deciding.includes(a.callId)} @click=${() => emit(this, "decide", { ...a, decision: "reject" })}>Reject</button>
            </div>
          </div>`,
        )}
        ${typing ? html`<p class="typing" aria-live="polite">${c.agent} is thinking…</p>` : nothing}
      </div>
      ${
        c.error
          ? html`
        <div class="alert error row" role="alert">
          <span>${c.error.text}</span><span class="spacer"></span>
          ${c.error.retryContent !== undefined ? html`<button class="primary" @click=${() => emit(this, "retry")}>Retry</button>` : nothing}
          <button class="ghost" @click=${() => emit(this, "dismiss")} aria-label="Dismiss this message">✕</button>
        </div>`
          : nothing
      }
      ${this.pictureProblem ? html`<div class="alert error" role="alert">${this.pictureProblem}</div>` : nothing}
      <form class="composer" @submit=${this.submit}>
        ${composerTray(this.pictures, (key) => this.removePicture(key))}
        <div class="line">
          <pantheon-picture-picker .room=${MAX_PICTURES - this.pictures.length}
            @pictures=${(e: CustomEvent<{ pictures: Picture[] }>) => this.addPictures(e.detail.pictures)}
            @picture-problem=${(e: CustomEvent<{ text: string }>) => {
              this.pictureProblem = e.detail.text;
            }}></pantheon-picture-picker>
          <label class="sr-only" for="composer">Message ${c.agent}</label>
          <textarea id="composer" rows="1" .value=${this.draft} @input=${this.onInput} @keydown=${this.onKey}
            placeholder=${this.online ? `Message ${c.agent}` : "Offline: sends when back"} enterkeyhint="send"></textarea>
          <button class="primary" type="submit" ?disabled=${!this.draft.trim() && this.pictures.length === 0}>Send</button>
        </div>
      </form>
      ${
        this.enlarged
          ? html`
        <dialog class="viewer" aria-label=${this.enlarged.label} @close=${() => {
          this.enlarged = null;
        }}>
          <img src=${this.enlarged.url} alt=${this.enlarged.label}>
          <div class="row"><span class="spacer"></span><button type="button" class="primary" @click=${() => this.renderRoot.querySelector<HTMLDialogElement>("dialog.viewer")?.close()}>Close</button></div>
        </dialog>`
          : nothing
      }
    `;
  }

  private renderItem(item: ChatItem) {
    if (item.kind === "tool") return this.renderTool(item);
    return html`<div class="msg ${item.role}" data-key=${item.key} aria-busy=${item.streaming ? "true" : "false"}>${messagePictures(item.images, this.chat.imageUrls, (url, label) => void this.enlarge(url, label))}${item.content}${item.streaming ? html`<span class="cursor" aria-hidden="true">▍</span>` : nothing}${item.name ? html`<span class="meta who">${item.name}</span>` : nothing}${item.queued ? html`<span class="meta">Queued — will send when you're back online</span>` : nothing}${item.runId && !item.streaming && item.role === "assistant" && this.chat.agent ? html`<span class="meta"><a href="#/agents/${encodeURIComponent(this.chat.agent)}/runs/${encodeURIComponent(item.runId)}">View trace</a></span>` : nothing}</div>`;
  }

  private renderTool(t: ChatToolItem) {
    const refused = t.gates.find((g) => !g.allow && g.gate !== "approval");
    const held = t.gates.find((g) => !g.allow && g.gate === "approval");
    const [state, cls] = refused
      ? ["blocked", "badge bad"]
      : t.result
        ? t.result.ok
          ? ["done", "badge ok"]
          : ["failed", "badge bad"]
        : t.approval
          ? t.approval.approved
            ? ["approved", "badge run"]
            : ["rejected", "badge bad"]
          : held
            ? ["needs approval", "badge warn"]
            : ["running", "badge run"];
    const name = t.name || this.chat.approvals.find((a) => a.callId === t.callId)?.tool || "tool call";
    const passed = t.gates.filter((g) => g.allow).map((g) => g.gate);
    return html`
      <details class="tool ${refused || t.approval?.approved === false ? "blocked" : ""}" data-key=${t.key}>
        <summary><svg class="wrench" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path fill="currentColor" d="M22.7 19 13.6 9.9c.9-2.3.4-5-1.5-6.9-2-2-5-2.4-7.4-1.3L9 6 6 9 1.6 4.7C.4 7.1.9 10.1 2.9 12.1c1.9 1.9 4.6 2.4 6.9 1.5l9.1 9.1c.4.4 1 .4 1.4 0l2.3-2.3c.5-.4.5-1.1.1-1.4z"/></svg><strong>${name}</strong><span class=${cls}>${state}</span>
          ${refused ? html`<span class="small">by gate <strong>${refused.gate}</strong></span>` : nothing}
          ${t.approval && !t.approval.approved && t.approval.by ? html`<span class="small">by ${t.approval.by}</span>` : nothing}
          ${t.result?.ms !== undefined ? html`<span class="muted small">${t.result.ms} ms</span>` : nothing}
          ${refused?.reason ? html`<span class="why small" role="note">${refused.reason}</span>` : nothing}</summary>
        ${t.arguments !== undefined ? html`<div class="small muted">Arguments</div><pre>${pretty(t.arguments)}</pre>` : nothing}
        ${passed.length ? html`<div class="gate"><span class="mark ok" aria-hidden="true">✓</span> Passed ${passed.length === 1 ? "gate" : "gates"} ${passed.join(", ")}</div>` : nothing}
        ${t.gates
          .filter((g) => !g.allow)
          .map(
            (
              g,
            ) => html`<div class="gate"><span class="mark ${g.gate === "approval" ? "warn" : "bad"}" aria-hidden="true">${g.gate === "approval" ? "!" : "✕"}</span>
          ${g.gate === "approval" ? html`Held for a person's approval${t.approval ? html`: ${t.approval.approved ? "approved" : "rejected"}${t.approval.by ? ` by ${t.approval.by}` : ""}` : ""}` : html`Gate <strong>${g.gate}</strong> refused it${g.reason && g !== refused ? `: ${g.reason}` : ""}`}</div>`,
          )}
        ${t.result ? html`<div class="small muted">${t.result.ok ? "Result" : "Error"}</div><pre>${prettyOutput(t.result.ok ? t.result.output : (t.result.error ?? t.result.output))}</pre>` : nothing}
      </details>`;
  }
}

function liveLabel(live: ChatState["live"]): string {
  switch (live) {
    case "open":
      return "Live";
    case "connecting":
      return "Connecting…";
    case "reconnecting":
      return "Reconnecting…";
    default:
      return "Not live";
  }
}

customElements.define("pantheon-chat", PantheonChat);

import { LitElement, css, html, nothing } from "lit";
import type { PlanComment } from "../api";
import type { WorkState } from "../state";
import { markdownLines, markdownStyles } from "./markdown-lines";
import { base, emit, timeAgo } from "./shared";
import { when } from "./work-shared";

/**
 * A plan under review, like a pull request: the markdown line by line with line numbers, people's
 * comments under the lines they are about, a tap on a line to comment on it, a version picker
 * (older versions are read-only, with their own comments) and Approve for the latest version.
 *
 * Events: `plan-comment` {feature, version, line, body}, `plan-approve` {feature, version},
 * `plan-version` {feature, version}.
 */
export class PantheonPlanReview extends LitElement {
  static override properties = { work: { attribute: false }, name: { type: String }, commenting: { state: true } };
  declare work: WorkState;
  declare name: string;
  /** The line with its comment box open. */
  declare commenting: number | null;

  constructor() {
    super();
    this.commenting = null;
  }

  static override styles = [base, markdownStyles, css`
    .plan { padding: 0; overflow: hidden; }
    ol { list-style: none; margin: 0; padding: 0; }
    .line { display: grid; grid-template-columns: 2.6rem 1fr; width: 100%; text-align: left; border: 0; border-radius: 0; background: transparent;
      padding: .1rem .6rem .1rem 0; min-height: 32px; font-weight: 400; gap: .5rem; align-items: start; }
    .line:hover, .line[aria-expanded="true"] { background: var(--accent-soft); }
    .num { color: var(--muted); font-variant-numeric: tabular-nums; text-align: right; font-size: .8rem; padding-top: .15rem; user-select: none; }
    .line.commented .num { color: var(--accent); font-weight: 800; }
    .thread { margin: .25rem .6rem .5rem 3.1rem; display: grid; gap: .4rem; }
    .comment { background: var(--surface-2); border-radius: 10px; padding: .5rem .7rem; border-left: 3px solid var(--accent); }
    .comment p { margin: .2rem 0 0; white-space: pre-wrap; }
    .who { font-size: .8rem; color: var(--muted); }
    .bar { display: flex; gap: .5rem; align-items: end; flex-wrap: wrap; margin: .75rem 0; }
    .bar .field { margin: 0; min-width: 10rem; }
    form textarea { min-height: 5rem; }
  `];

  private submit(e: Event, version: number, line: number) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const body = String(new FormData(form).get("body") ?? "").trim();
    if (!body) return;
    emit(this, "plan-comment", { feature: this.name, version, line, body });
  }

  protected override updated(): void {
    // A comment that was sent shows under its line: close the box once it is in the list.
    const plan = this.work.plan.status === "ready" ? this.work.plan.data : null;
    if (this.commenting !== null && this.work.busy === null && !this.work.error && plan && this.sentTo === this.commenting) {
      this.sentTo = null;
      this.commenting = null;
    }
  }

  private sentTo: number | null = null;

  override render() {
    const w = this.work;
    const p = w.plan;
    const enc = encodeURIComponent(this.name);
    const head = html`<p><a href="#/features/${enc}">← ${this.name}</a></p>`;
    if (p.status === "error") return html`${head}<div class="alert error" role="alert">${p.error}</div>`;
    if (!("data" in p) || !p.data) return html`${head}<p class="muted">Loading the plan…</p>`;
    const plan = p.data;
    const byLine = new Map<number, PlanComment[]>();
    for (const c of plan.comments) byLine.set(c.line, [...(byLine.get(c.line) ?? []), c]);
    const mayApprove = w.scope !== "chat";
    const lines = markdownLines(plan.markdown);
    return html`
      ${head}
      <div class="row"><h2>Plan v${plan.version}</h2>
        ${plan.approved ? html`<span class="badge ok">approved</span>` : plan.latest ? html`<span class="badge warn">in review</span>` : html`<span class="badge">older version</span>`}</div>
      <p class="small muted">Written by ${plan.author} · ${when(plan.createdAt)}${plan.approvedBy ? ` · approved by ${plan.approvedBy} ${timeAgo(plan.approvedAt)}` : ""}</p>
      <div class="bar">
        <div class="field"><label for="version">Version</label>
          <select id="version" @change=${(e: Event) => emit(this, "plan-version", { feature: this.name, version: Number((e.target as HTMLSelectElement).value) })}>
            ${[...plan.versions].sort((a, b) => b.version - a.version).map((v, i) => html`<option value=${v.version} ?selected=${v.version === plan.version}>v${v.version}${i === 0 ? " (latest)" : ""}${v.approvedAt ? " · approved" : ""} · ${v.author}</option>`)}
          </select></div>
        <span class="spacer"></span>
        ${plan.latest && !plan.approved && mayApprove ? html`<button class="primary" ?disabled=${w.busy === "approve"} @click=${() => emit(this, "plan-approve", { feature: this.name, version: plan.version })}>${w.busy === "approve" ? "Approving…" : `Approve v${plan.version}`}</button>` : nothing}
      </div>
      ${plan.latest ? nothing : html`<div class="alert info" role="note">An older version: read-only, with the comments made on it. <a href="#/features/${enc}/plan">Go to the latest</a>.</div>`}
      ${plan.latest && !plan.approved && !mayApprove ? html`<p class="small muted">Approving needs a token with the 'approve' scope.</p>` : nothing}
      ${w.error ? html`<div class="alert error" role="alert">${w.error}</div>` : nothing}
      <p class="small muted">${plan.latest ? "Tap a line to comment on it." : ""} ${plan.comments.length} comment${plan.comments.length === 1 ? "" : "s"} · ${plan.tasks.length} task${plan.tasks.length === 1 ? "" : "s"} in the plan.</p>
      <section class="card plan" aria-label="Plan v${plan.version}, line by line">
        <ol>${lines.map((l, i) => {
          const n = i + 1;
          const comments = byLine.get(n) ?? [];
          const open = this.commenting === n && plan.latest;
          const text = html`<span class="num">${n}</span><span class="md ${l.kind}">${l.content}</span>`;
          return html`<li data-line=${n}>
            ${plan.latest
              ? html`<button class="line ${comments.length ? "commented" : ""}" aria-expanded=${open ? "true" : "false"} @click=${() => (this.commenting = open ? null : n)}><span class="sr-only">Comment on line</span>${text}</button>`
              : html`<div class="line ${comments.length ? "commented" : ""}">${text}</div>`}
            ${comments.length || open ? html`<div class="thread">
              ${comments.map((c) => html`<article class="comment" aria-label="Comment on line ${n}"><div class="who">${c.author} · ${timeAgo(c.createdAt)}</div><p>${c.body}</p></article>`)}
              ${open ? html`<form @submit=${(e: Event) => { this.sentTo = n; this.submit(e, plan.version, n); }}>
                <label for="c-${n}">Comment on line ${n}</label>
                <textarea id="c-${n}" name="body" required maxlength="10000"></textarea>
                <div class="row" style="margin-top:.5rem"><button class="primary" type="submit" ?disabled=${w.busy === "comment"}>${w.busy === "comment" ? "Sending…" : "Comment"}</button>
                  <button type="button" class="ghost" @click=${() => (this.commenting = null)}>Cancel</button></div>
              </form>` : nothing}
            </div>` : nothing}
          </li>`;
        })}</ol>
      </section>`;
  }
}

customElements.define("pantheon-plan-review", PantheonPlanReview);

import { LitElement, css, html, nothing } from "lit";
import type { Plan, PlanComment } from "../api";
import { authorName, comparePlans, openComments } from "../plan-compare";
import type { WorkState } from "../state";
import { markdownLines, markdownStyles } from "./markdown-lines";
import { commentCard, planAnalysis, planChanges, planChangesStyles, type PlanAnalysisView } from "./plan-changes";
import { base, emit, timeAgo } from "./shared";
import { when } from "./work-shared";

/**
 * A plan under review, like a pull request: the markdown line by line with line numbers, people's
 * comments under the lines they are about (the previous version's too, beside the lines it kept),
 * a tap on a line to comment on it, a version picker (older versions are read-only, with their own
 * comments), the changes since an earlier version as a diff, and Approve for the latest version,
 * which asks to confirm while comments are open.
 *
 * Events: `plan-comment` {feature, version, line, body}, `plan-approve` {feature, version, confirmed?},
 * `plan-approve-cancel`, `plan-version` {feature, version}, `plan-compare` {feature, version, compare?}.
 */
export class PantheonPlanReview extends LitElement {
  static override properties = {
    work: { attribute: false },
    name: { type: String },
    compareTo: { attribute: false },
    commenting: { state: true },
  };
  declare work: WorkState;
  declare name: string;
  /** The earlier version whose changes are shown (the route's `compare`); the plain plan when unset. */
  declare compareTo: number | undefined;
  /** The line with its comment box open. */
  declare commenting: number | null;

  constructor() {
    super();
    this.commenting = null;
  }

  static override styles = [
    base,
    markdownStyles,
    planChangesStyles,
    css`
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
    .tabs { display: flex; gap: .25rem; margin: .5rem 0; }
    .tabs a { padding: .5rem .8rem; border-radius: 10px; min-height: 44px; display: inline-flex; align-items: center; font-weight: 600; text-decoration: none; border: 1px solid var(--border); }
    .tabs a[aria-current="page"] { background: var(--accent-soft); color: var(--text); }
    .confirm { border: 2px solid var(--warn); background: var(--warn-soft); }
    .confirm ul { margin: .25rem 0 .5rem; padding-left: 1.2rem; }
  `,
  ];

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
    if (
      this.commenting !== null &&
      this.work.busy === null &&
      !this.work.error &&
      plan &&
      this.sentTo === this.commenting
    ) {
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
    const earlier = w.compare.status === "ready" && w.compare.data.version !== plan.version ? w.compare.data : null;
    const comparison = earlier ? comparePlans(earlier, plan) : null;
    const showChanges = this.compareTo !== undefined && earlier !== null && earlier.version === this.compareTo;
    const previous = earlier && earlier.version === plan.version - 1 ? earlier : null;
    const open = openComments(plan, previous);
    const confirming = w.confirmApprove === plan.version;
    const older = [...plan.versions]
      .map((v) => v.version)
      .filter((v) => v < plan.version)
      .sort((a, b) => b - a);
    const at = (compare?: number) =>
      `#/features/${enc}/plan?${new URLSearchParams({ ...(plan.latest ? {} : { version: String(plan.version) }), ...(compare ? { compare: String(compare) } : {}) })}`;
    return html`
      ${head}
      <div class="row"><h2>Plan v${plan.version}</h2>
        ${plan.approved ? html`<span class="badge ok">approved</span>` : plan.latest ? html`<span class="badge warn">in review</span>` : html`<span class="badge">older version</span>`}</div>
      <p class="small muted">Written by ${authorName(plan.author)} · ${when(plan.createdAt)}${plan.approvedBy ? ` · approved by ${authorName(plan.approvedBy)} ${timeAgo(plan.approvedAt)}` : ""}</p>
      <div class="bar">
        <div class="field"><label for="version">Version</label>
          <select id="version" @change=${(e: Event) => emit(this, "plan-version", { feature: this.name, version: Number((e.target as HTMLSelectElement).value) })}>
            ${[...plan.versions].sort((a, b) => b.version - a.version).map((v, i) => html`<option value=${v.version} ?selected=${v.version === plan.version}>v${v.version}${i === 0 ? " (latest)" : ""}${v.approvedAt ? " · approved" : ""} · ${authorName(v.author)}</option>`)}
          </select></div>
        ${
          showChanges && older.length > 1
            ? html`<div class="field"><label for="compare">Compared with</label>
          <select id="compare" @change=${(e: Event) => emit(this, "plan-compare", { feature: this.name, ...(plan.latest ? {} : { version: plan.version }), compare: Number((e.target as HTMLSelectElement).value) })}>
            ${older.map((v) => html`<option value=${v} ?selected=${v === this.compareTo}>v${v}</option>`)}
          </select></div>`
            : nothing
        }
        <span class="spacer"></span>
        ${plan.latest && !plan.approved && mayApprove && !confirming ? html`<button class="primary" ?disabled=${w.busy === "approve"} @click=${() => emit(this, "plan-approve", { feature: this.name, version: plan.version })}>${w.busy === "approve" ? "Approving…" : `Approve v${plan.version}`}</button>` : nothing}
      </div>
      ${
        confirming
          ? html`<div class="alert confirm" role="alertdialog" aria-labelledby="confirm-h" aria-describedby="confirm-d">
        <strong id="confirm-h">Approve v${plan.version} with ${open.length} open comment${open.length === 1 ? "" : "s"}?</strong>
        <ul id="confirm-d" class="small">${open.map((c) => html`<li>Line ${c.line}${c.version !== plan.version ? ` of v${c.version}` : ""}, ${authorName(c.author)}: ${c.body.length > 120 ? `${c.body.slice(0, 120)}…` : c.body}</li>`)}</ul>
        <div class="row"><button class="primary" ?disabled=${w.busy === "approve"} @click=${() => emit(this, "plan-approve", { feature: this.name, version: plan.version, confirmed: true })}>Approve anyway</button>
          <button class="ghost" @click=${() => emit(this, "plan-approve-cancel")}>Not yet</button></div>
      </div>`
          : nothing
      }
      ${plan.latest ? nothing : html`<div class="alert info" role="note">An older version: read-only, with the comments made on it. <a href="#/features/${enc}/plan">Go to the latest</a>.</div>`}
      ${plan.latest && !plan.approved && !mayApprove ? html`<p class="small muted">Approving needs a token with the 'approve' scope.</p>` : nothing}
      ${w.error ? html`<div class="alert error" role="alert">${w.error}</div>` : nothing}
      ${planAnalysis((plan as Plan & { analysis?: PlanAnalysisView }).analysis)}
      ${
        older.length
          ? html`<nav class="tabs" aria-label="Plan view">
        <a href=${at()} aria-current=${showChanges ? "false" : "page"}>Plan</a>
        <a href=${at(this.compareTo ?? older[0])} aria-current=${showChanges ? "page" : "false"}>Changes since v${this.compareTo ?? older[0]}</a></nav>`
          : nothing
      }
      ${showChanges && comparison ? planChanges(comparison, earlier!.version, plan.version) : this.lines(plan, lines, byLine, comparison?.carried ?? new Map(), earlier?.version ?? null, comparison ? comparison.addressed.length : 0)}`;
  }

  private lines(
    plan: Plan,
    lines: ReturnType<typeof markdownLines>,
    byLine: Map<number, PlanComment[]>,
    carried: Map<number, PlanComment[]>,
    from: number | null,
    changedComments: number,
  ) {
    const w = this.work;
    const earlierCount = [...carried.values()].reduce((n, c) => n + c.length, 0);
    return html`
      <p class="small muted">${plan.latest ? "Tap a line to comment on it." : ""} ${plan.comments.length} comment${plan.comments.length === 1 ? "" : "s"} on v${plan.version}${from ? html` · ${earlierCount} from v${from} beside the lines they were on${changedComments ? html`, ${changedComments} on lines changed since (<a href="#/features/${encodeURIComponent(this.name)}/plan?${plan.latest ? "" : `version=${plan.version}&`}compare=${from}">see the changes</a>)` : nothing}` : nothing} · ${plan.tasks.length} task${plan.tasks.length === 1 ? "" : "s"} in the plan.</p>
      <section class="card plan" aria-label="Plan v${plan.version}, line by line">
        <ol>${lines.map((l, i) => {
          const n = i + 1;
          const comments = byLine.get(n) ?? [];
          const before = carried.get(n) ?? [];
          const open = this.commenting === n && plan.latest;
          const text = html`<span class="num">${n}</span><span class="md ${l.kind}">${l.content}</span>`;
          return html`<li data-line=${n}>
            ${
              plan.latest
                ? html`<button class="line ${comments.length ? "commented" : ""}" aria-expanded=${open ? "true" : "false"} @click=${() => (this.commenting = open ? null : n)}><span class="sr-only">Comment on line</span>${text}</button>`
                : html`<div class="line ${comments.length ? "commented" : ""}">${text}</div>`
            }
            ${
              comments.length || before.length || open
                ? html`<div class="thread">
              ${before.map((c) => commentCard(c, n, from ?? undefined))}
              ${comments.map((c) => commentCard(c, n))}
              ${
                open
                  ? html`<form @submit=${(e: Event) => {
                      this.sentTo = n;
                      this.submit(e, plan.version, n);
                    }}>
                <label for="c-${n}">Comment on line ${n}</label>
                <textarea id="c-${n}" name="body" required maxlength="10000"></textarea>
                <div class="row" style="margin-top:.5rem"><button class="primary" type="submit" ?disabled=${w.busy === "comment"}>${w.busy === "comment" ? "Sending…" : "Comment"}</button>
                  <button type="button" class="ghost" @click=${() => (this.commenting = null)}>Cancel</button></div>
              </form>`
                  : nothing
              }
            </div>`
                : nothing
            }
          </li>`;
        })}</ol>
      </section>`;
  }
}

customElements.define("pantheon-plan-review", PantheonPlanReview);

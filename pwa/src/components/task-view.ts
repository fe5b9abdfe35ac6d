import { LitElement, css, html, nothing } from "lit";
import type { WorkState } from "../state";
import { markdownLines, markdownStyles } from "./markdown-lines";
import { base, emit } from "./shared";
import { costLabel, shortSha, type TaskLater } from "../work-attention";
import type { ConflictFile } from "./task-conflict";
import "./task-conflict";
import { diffClass, diffLabel, diffStyles, statusText, taskBadge, when } from "./work-shared";

/**
 * One task: its report (status, summary, times, runs with their traces, tokens, cost), its changes
 * (the unified diff of what is not committed yet, and the committed files) and its spec (the
 * worker's prompt and every warning). Admins start, commit and discard it here; a blocked task's
 * question is answered here too (as in the approvals inbox).
 *
 * Events: `task-action` {feature, task, action: "start" | "commit" | "discard"}, `task-answer` {feature, task, answer}.
 */
export class PantheonTaskView extends LitElement {
  static override properties = { work: { attribute: false }, name: { type: String }, number: { attribute: false } };
  declare work: WorkState;
  declare name: string;
  /** The task's number, or its stable key as the route named it. */
  declare number: number | string;

  static override styles = [
    base,
    markdownStyles,
    diffStyles,
    css`
    .grid { display: grid; gap: 1rem; align-items: start; grid-template-columns: minmax(0, 1fr); }
    @media (min-width: 900px) { .grid { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } .wide { grid-column: 1 / -1; } }
    dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 0; }
    dt { color: var(--muted); font-size: .85rem; } dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
    .actions { display: flex; gap: .5rem; flex-wrap: wrap; margin: .75rem 0; }
    ul.plain { list-style: none; padding: 0; margin: 0; }
    ul.plain li { padding: .35rem 0; border-bottom: 1px solid var(--border); }
    ul.plain li:last-child { border-bottom: 0; }
    .prompt { max-height: 32rem; overflow: auto; background: var(--surface-2); border-radius: 10px; padding: .6rem .75rem; }
    .warn-list { border: 1px solid var(--warn); background: var(--warn-soft); border-radius: 10px; padding: .5rem .75rem .5rem 1.75rem; margin: .5rem 0; }
    .question { border-left: 3px solid var(--warn); padding-left: .6rem; margin-bottom: .75rem; }
    .question form { margin-top: .5rem; }
  `,
  ];

  private answer(e: Event) {
    e.preventDefault();
    const answer = String(new FormData(e.target as HTMLFormElement).get("answer") ?? "").trim();
    if (answer) emit(this, "task-answer", { feature: this.name, task: this.number, answer });
  }

  private action(action: "start" | "commit" | "discard") {
    emit(this, "task-action", { feature: this.name, task: this.number, action });
  }

  override render() {
    const w = this.work;
    const back = html`<p><a href="#/features/${encodeURIComponent(this.name)}">← ${this.name}</a></p>`;
    if (w.task.status === "error") return html`${back}<div class="alert error" role="alert">${w.task.error}</div>`;
    if (w.task.status !== "ready") return html`${back}<p class="muted">Loading the task…</p>`;
    const t = w.task.data as typeof w.task.data & TaskLater & { conflict?: { files: ConflictFile[] } | null };
    const enc = encodeURIComponent(this.name);
    const report = t.report;
    const admin = w.scope === "admin" || w.scope === null;
    const canStart = ["pending", "failed", "partial", "cancelled"].includes(t.status);
    const canCommit = ["in_progress", "partial"].includes(t.status) && t.pending.filesChanged > 0;
    const committed = t.diff ?? { filesChanged: 0, insertions: 0, deletions: 0, files: [] };
    const canDiscard = t.status !== "done" && t.status !== "cancelled";
    return html`
      ${back}
      <div class="row"><h2>Task ${t.number}: ${t.name}</h2><span class=${taskBadge(t.status)}>${statusText(t.status)}</span></div>
      ${t.description ? html`<p class="muted">${t.description.split("\n")[0]}</p>` : nothing}
      ${
        admin
          ? html`<div class="actions" role="group" aria-label="Task actions">
        ${canStart ? html`<button class="primary" ?disabled=${w.busy !== null} @click=${() => this.action("start")}>${w.busy === "start" ? "Starting…" : t.status === "pending" ? "Start" : "Start again"}</button>` : nothing}
        ${canCommit ? html`<button class="primary" ?disabled=${w.busy !== null} @click=${() => this.action("commit")}>${w.busy === "commit" ? "Committing…" : "Commit"}</button>` : nothing}
        ${canDiscard ? html`<button class="danger" ?disabled=${w.busy !== null} @click=${() => this.action("discard")}>${w.busy === "discard" ? "Discarding…" : "Discard"}</button>` : nothing}
      </div>`
          : nothing
      }
      ${w.error ? html`<div class="alert error" role="alert">${w.error}</div>` : nothing}
      ${
        t.status === "blocked" && t.question
          ? html`<div class="alert info question" role="note"><strong>Waiting for a person:</strong> ${t.question}
        ${
          t.conflict?.files.length
            ? html`<p class="small">Resolve the conflict below: an answer would unblock the task and leave the conflict.</p>`
            : w.scope !== "chat"
              ? html`<form @submit=${(e: Event) => this.answer(e)}>
          <label for="answer">Your answer</label>
          <textarea id="answer" name="answer" required maxlength="20000"></textarea>
          <div class="row" style="margin-top:.5rem"><span class="spacer"></span><button class="primary" type="submit" ?disabled=${w.busy !== null}>${w.busy === "answer" ? "Sending…" : "Send answer"}</button></div>
        </form>`
              : html`<p class="small">Answering needs a token with the 'approve' scope.</p>`
        }</div>`
          : nothing
      }
      ${t.conflict?.files.length ? html`<pantheon-task-conflict .files=${t.conflict.files} .feature=${this.name} .task=${t.number} .busy=${w.busy === "resolve"} style="margin-bottom:1rem"></pantheon-task-conflict>` : nothing}
      ${t.answer ? html`<p class="small"><strong>Answered${t.answeredBy ? ` by ${t.answeredBy}` : ""}:</strong> ${t.answer}</p>` : nothing}
      <div class="grid">
        <section class="card" aria-labelledby="report-h">
          <h3 id="report-h">Report</h3>
          <dl>
            <dt>Status</dt><dd>${statusText(t.status)}</dd>
            <dt>Summary</dt><dd>${t.summary ?? html`<span class="muted">none yet</span>`}</dd>
            <dt>Started</dt><dd>${when(t.startedAt)}</dd>
            <dt>Completed</dt><dd>${when(t.completedAt)}</dd>
            <dt>Origin</dt><dd>${t.origin ?? "the plan"}${t.planVersion ? html`, <a href="#/features/${enc}/plan?version=${t.planVersion}">plan v${t.planVersion}</a>` : nothing}</dd>
            ${t.baseCommit ? html`<dt>Base commit</dt><dd>${w.has.repo ? html`<a href="#/features/${enc}/commits/${encodeURIComponent(t.baseCommit)}"><code>${shortSha(t.baseCommit)}</code></a>` : html`<code>${shortSha(t.baseCommit)}</code>`}</dd>` : nothing}
            ${t.dependsOn?.length ? html`<dt>After</dt><dd>${t.dependsOn.map((n, i) => html`${i ? ", " : ""}<a href="#/features/${enc}/tasks/${n}">task ${n}</a>`)}</dd>` : nothing}
            ${t.key ? html`<dt>Key</dt><dd><code>${t.key}</code></dd>` : nothing}
            <dt>Worker</dt><dd>${t.worker ? html`<a href="#/agents/${encodeURIComponent(t.worker)}">${t.worker}</a>` : "not started"}</dd>
            <dt>Tokens</dt><dd>${report ? `${report.tokens.input} in · ${report.tokens.output} out` : "—"}</dd>
            <dt>Cost</dt><dd>${report?.runs.length ? costLabel(report.costUsd) : html`<span class="muted">no runs yet</span>`}</dd>
          </dl>
          <h3 style="margin-top:.75rem">Runs</h3>
          ${
            report?.runs.length
              ? html`<ul class="plain">${report.runs.map(
                  (r) => html`<li class="row">
            <a href="#/agents/${encodeURIComponent(t.worker ?? "")}/runs/${encodeURIComponent(r.runId)}">Trace of run ${r.runId.slice(0, 8)}</a>
            <span class="badge">${statusText(r.status)}</span><span class="small muted">${r.inputTokens + r.outputTokens} tokens · ${costLabel(r.costUsd)}</span></li>`,
                )}</ul>`
              : html`<p class="muted small">No runs yet.</p>`
          }
        </section>
        <section class="card" aria-labelledby="diff-h">
          <h3 id="diff-h">Changes</h3>
          <p class="small"><strong>Not committed:</strong> ${diffLabel(t.pending)}</p>
          ${t.patch ? html`<pre class="diff" tabindex="0" aria-label="Uncommitted changes as a unified diff">${t.patch.split("\n").map((l) => html`<span class=${diffClass(l)}>${l || " "}</span>`)}</pre>` : nothing}
          <p class="small"><strong>Committed:</strong> ${diffLabel(committed)}</p>
          ${committed.files.length ? html`<ul class="plain small" aria-label="Committed files">${committed.files.map((f) => html`<li class="row"><a href="#/features/${enc}/files?path=${encodeURIComponent(f.path)}"><code>${f.path}</code></a><span class="spacer"></span><span class="muted">${f.change}</span> <span>+${f.insertions} −${f.deletions}</span></li>`)}</ul>` : nothing}
        </section>
        <section class="card wide" aria-labelledby="spec-h">
          <h3 id="spec-h">Spec</h3>
          ${
            t.spec
              ? html`
            <p class="small muted">The worker's prompt: ${t.spec.sizes.promptBytes.toLocaleString()} bytes, of which context files ${t.spec.sizes.contextBytes.toLocaleString()}.</p>
            ${t.spec.warnings.length ? html`<ul class="warn-list small" aria-label="Spec warnings">${t.spec.warnings.map((x) => html`<li>${x}</li>`)}</ul>` : html`<p class="small muted">Nothing was cut.</p>`}
            <div class="prompt" tabindex="0" role="region" aria-label="The worker's prompt">${markdownLines(t.spec.prompt).map((l) => html`<div class="md ${l.kind}">${l.content}</div>`)}</div>`
              : html`<p class="muted small">The spec is written when the task starts.</p>`
          }
        </section>
      </div>`;
  }
}

customElements.define("pantheon-task-view", PantheonTaskView);

import { LitElement, css, html, nothing } from "lit";
import type { FeatureTask } from "../api";
import type { WorkState } from "../state";
import { changesLabel, costLabel, endedAt, needsOf, type Feature, type TaskLater } from "../work-attention";
import { base, emit } from "./shared";
import { boardColumns, featureBadge, statusText, taskBadge, taskCounts, when } from "./work-shared";
import "./feature-ship";

/** A task may be started (again) from these states. */
const STARTABLE = ["pending", "failed", "partial", "cancelled"];

/**
 * A feature's page: its summary (start, end, cost, sessions), the controls for whoever may use them
 * (Run all, Pause, Start on a card) and the live task board: Blocked first, empty columns folded
 * into one line, one column per status (stacked on a phone). The controller polls the tasks every
 * few seconds while the page is visible.
 *
 * Events: `reload`, `board-start` {feature, task}, `run-all` {feature}, `feature-pause` {feature, paused}.
 */
export class PantheonTaskBoard extends LitElement {
  static override properties = { work: { attribute: false }, name: { type: String } };
  declare work: WorkState;
  declare name: string;

  static override styles = [
    base,
    css`
    .board { display: grid; gap: .75rem; }
    @media (min-width: 900px) { .board { grid-template-columns: repeat(var(--columns, 1), minmax(0, 1fr)); align-items: start; } }
    .column { background: var(--surface-2); border-radius: 14px; padding: .6rem; }
    .column[data-column="blocked"] { outline: 2px solid var(--warn); }
    .column h3 { font-size: .9rem; display: flex; gap: .4rem; align-items: center; margin: 0 0 .5rem; }
    .column ul { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; }
    .task { display: grid; gap: .2rem; padding: .7rem; }
    .task a.name { font-weight: 700; }
    .folded { color: var(--muted); font-size: .85rem; margin: .25rem 0 0; }
    .live { font-size: .8rem; color: var(--muted); }
    .question { font-size: .85rem; border-left: 3px solid var(--warn); padding-left: .5rem; }
    .controls { display: flex; gap: .5rem; flex-wrap: wrap; margin: .75rem 0; }
    dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; margin: 0; }
    dt { color: var(--muted); font-size: .85rem; } dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
    .needs { margin: .5rem 0 0; }
  `,
  ];

  private card(t: FeatureTask & TaskLater, enc: string, mayStart: boolean) {
    const w = this.work;
    const changes = changesLabel(t);
    const startable = mayStart && STARTABLE.includes(t.status);
    const busy = w.busy === `start:${t.number}`;
    return html`
      <li class="card task" aria-label="Task ${t.number}: ${t.name}, ${statusText(t.status)}">
        <a class="name" href="#/features/${enc}/tasks/${t.number}">#${t.number} ${t.name}</a>
        <span><span class=${taskBadge(t.status)}>${statusText(t.status)}</span></span>
        ${t.worker ? html`<span class="small muted">Worker <a href="#/agents/${encodeURIComponent(t.worker)}">${t.worker}</a></span>` : nothing}
        ${changes ? html`<span class="small">${changes}</span>` : nothing}
        ${t.planVersion || t.origin ? html`<span class="small muted">${t.origin ? `From ${t.origin}` : "From the plan"}${t.planVersion ? ` v${t.planVersion}` : ""}${t.dependsOn?.length ? ` · after ${t.dependsOn.map((n) => `#${n}`).join(", ")}` : ""}</span>` : nothing}
        ${t.status === "blocked" && t.question ? html`<span class="question">${t.question} <a href="#/features/${enc}/tasks/${t.number}" aria-label="Answer task ${t.number}'s question">Answer</a></span>` : nothing}
        ${
          startable
            ? html`<span><button class=${t.status === "pending" ? "primary" : ""} ?disabled=${w.busy !== null} aria-label="${t.status === "pending" ? "Start" : "Start again"} task ${t.number}"
          @click=${() => emit(this, "board-start", { feature: this.name, task: t.number })}>${busy ? "Starting…" : t.status === "pending" ? "Start" : "Start again"}</button></span>`
            : nothing
        }
      </li>`;
  }

  override render() {
    const w = this.work;
    const f = (w.feature.status === "ready" || w.feature.status === "loading" ? w.feature.data : undefined) as
      | Feature
      | undefined;
    const tasks = ("data" in w.tasks && w.tasks.data ? w.tasks.data : []) as (FeatureTask & TaskLater)[];
    const enc = encodeURIComponent(this.name);
    // Start and Run all are the operator's (admin routes: their `scope("admin")` in workers/api/features.ts): offered once the
    // token is known to be an admin's, so a reader's board never flashes them.
    const admin = w.scope === "admin";
    const columns = boardColumns.map((col) => ({
      ...col,
      tasks: tasks.filter((t) => (col.statuses as readonly string[]).includes(t.status)),
    }));
    const shown = columns.filter((c) => c.tasks.length > 0);
    const folded = columns.filter((c) => c.tasks.length === 0);
    const ended = f ? endedAt(f) : null;
    const needs = f ? needsOf(f) : [];
    const pending = tasks.some((t) => t.status === "pending");
    const runAll = w.has.flow === true && admin && f?.plan?.approved && pending && !f.paused && !f.runAll;
    // The pause switch is a person's brake: the approve scope may pull and release it.
    const brake = w.has.flow === true && (w.scope === "admin" || w.scope === "approve");
    return html`
      <p><a href="#/features">← All features</a></p>
      <div class="row"><h2>${f?.title ?? this.name}</h2>${f ? html`<span class=${featureBadge(f.status)}>${statusText(f.status)}</span>` : nothing}${f?.paused ? html`<span class="badge warn">paused</span>` : nothing}</div>
      ${w.feature.status === "error" ? html`<div class="alert error" role="alert">${w.feature.error}</div>` : nothing}
      ${needs.length ? html`<div class="alert info needs" role="note" aria-label="Needs a person"><strong>Needs a person:</strong> ${needs.join(" · ")}</div>` : nothing}
      ${
        f
          ? html`
        <section class="card" aria-label="About this feature" style="margin-top:.5rem">
          <dl>
            <dt>Name</dt><dd><code>${f.name}</code></dd>
            <dt>Planned by</dt><dd><a href="#/agents/${encodeURIComponent(f.orchestrator)}">${f.orchestrator}</a></dd>
            <dt>Plan</dt><dd>${f.plan ? html`v${f.plan.version}, ${f.plan.approved ? "approved" : "waiting for review"} · <a href="#/features/${enc}/plan">Review the plan</a>` : "not written yet"}</dd>
            <dt>Started</dt><dd>${when(f.createdAt)}</dd>
            <dt>Ended</dt><dd>${ended ? when(ended) : html`<span class="muted">not yet</span>`}</dd>
            ${w.report ? html`<dt>Cost</dt><dd>${costLabel(w.report.costUsd)}${w.report.runs ? html` <span class="muted small">· ${w.report.runs} run${w.report.runs === 1 ? "" : "s"}, ${(w.report.tokens.input + w.report.tokens.output).toLocaleString()} tokens</span>` : nothing}</dd>` : nothing}
            ${f.tasks.total ? html`<dt>Tasks</dt><dd class="row">${taskCounts(f.tasks)}</dd>` : nothing}
            <dt>Code</dt><dd><a href="#/features/${enc}/files">Files</a>${w.has.repo ? html` · <a href="#/features/${enc}/commits">Commits</a>` : nothing}</dd>
          </dl>
          ${
            f.sessions.length
              ? html`<details style="margin-top:.5rem"><summary class="small">Sessions (${f.sessions.length})</summary>
            <ul class="small">${f.sessions.map((x: { agent: string; sessionId: string; at: number }) => html`<li><a href="#/agents/${encodeURIComponent(x.agent)}/chat?session=${encodeURIComponent(x.sessionId)}">${x.agent}</a> · ${when(x.at)}</li>`)}</ul></details>`
              : nothing
          }
        </section>`
          : nothing
      }
      ${f?.runAll ? html`<p class="small" role="status">Running all tasks one after another, started by ${f.runAll.by} ${when(f.runAll.at)}.</p>` : nothing}
      ${f?.stopped && !f.runAll ? html`<div class="alert info" role="note">Run all stopped${f.stopped.task ? html` at <a href="#/features/${enc}/tasks/${encodeURIComponent(f.stopped.task)}">task ${f.stopped.task}</a>` : nothing}: ${f.stopped.reason}</div>` : nothing}
      ${
        f && (runAll || brake)
          ? html`<div class="controls" role="group" aria-label="Feature actions">
        ${runAll ? html`<button class="primary" ?disabled=${w.busy !== null} @click=${() => emit(this, "run-all", { feature: this.name })}>${w.busy === "run-all" ? "Starting…" : "Run all"}</button>` : nothing}
        ${brake ? html`<button ?disabled=${w.busy !== null} @click=${() => emit(this, "feature-pause", { feature: this.name, paused: !f.paused })}>${f.paused ? "Resume" : "Pause"}</button>` : nothing}
      </div>`
          : nothing
      }
      ${w.error ? html`<div class="alert error" role="alert">${w.error}</div>` : nothing}
      <div class="row" style="margin-top:1rem"><h3 style="margin:0">Task board</h3><span class="spacer"></span>
        <span class="live" role="status">Live · refreshed ${w.refreshedAt ? new Date(w.refreshedAt).toLocaleTimeString() : "…"}</span>
        <button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh the board">↻</button></div>
      ${w.tasks.status === "error" ? html`<div class="alert error" role="alert">${w.tasks.error}</div>` : nothing}
      ${w.tasks.status === "ready" && tasks.length === 0 ? html`<p class="muted">No tasks yet: they appear once the plan is approved and its tasks are synced.</p>` : nothing}
      ${
        tasks.length
          ? html`<div class="board" style="--columns:${shown.length}">
        ${shown.map(
          (col) => html`<section class="column" aria-labelledby="col-${col.id}" data-column=${col.id}>
            <h3 id="col-${col.id}">${col.title} <span class="badge">${col.tasks.length}</span></h3>
            <ul>${col.tasks.map((t) => this.card(t, enc, admin))}</ul>
          </section>`,
        )}
      </div>
      ${folded.length ? html`<p class="folded" data-folded>Nothing ${folded.map((c) => c.title.toLowerCase()).join(", ")}.</p>` : nothing}`
          : nothing
      }
      ${f ? html`<pantheon-feature-ship .work=${w} .name=${this.name} .cloneUrl=${(f as { cloneUrl?: string }).cloneUrl ?? ""}></pantheon-feature-ship>` : nothing}`;
  }
}

customElements.define("pantheon-task-board", PantheonTaskBoard);

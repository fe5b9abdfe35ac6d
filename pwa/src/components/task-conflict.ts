import { LitElement, css, html, nothing } from "lit";
import { base, emit } from "./shared";

/** A file the merge could not join, as the task detail gives it (issue 28, repo). */
export interface ConflictFile {
  path: string;
  /** The feature branch's version (null: deleted there). */
  ours: string | null;
  /** The task's version (null: the task deleted it). */
  theirs: string | null;
  base: string | null;
  /** The file with `<<<<<<<`/`=======`/`>>>>>>>` markers around each conflicting hunk. */
  marked: string;
}

const MARKER = /^(<{7}|={7}|>{7})( |$)/m;

/**
 * Resolving a task's merge conflict by hand: each file starts as the merge marked it; a person
 * edits it, or takes one side whole, and commits the resolution. A file still holding conflict
 * markers is not sent (the server would commit them as content).
 *
 * Events: `task-resolve` {feature, task, files: [{path, content}]}.
 */
export class PantheonTaskConflict extends LitElement {
  static override properties = {
    files: { attribute: false },
    feature: { type: String },
    task: { attribute: false },
    busy: { type: Boolean },
    drafts: { state: true },
  };
  declare files: ConflictFile[];
  declare feature: string;
  declare task: number | string;
  declare busy: boolean;
  declare drafts: Record<string, string>;

  constructor() {
    super();
    this.files = [];
    this.busy = false;
    this.drafts = {};
  }

  static override styles = [
    base,
    css`
    .file { border-top: 1px solid var(--border); padding-top: .6rem; margin-top: .6rem; }
    textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; min-height: 10rem; white-space: pre; }
    .sides { display: flex; gap: .5rem; flex-wrap: wrap; margin: .4rem 0; }
  `,
  ];

  private draft(f: ConflictFile): string {
    return this.drafts[f.path] ?? f.marked;
  }

  private set(path: string, content: string) {
    this.drafts = { ...this.drafts, [path]: content };
  }

  private submit(e: Event) {
    e.preventDefault();
    const files = this.files.map((f) => ({ path: f.path, content: this.draft(f) }));
    if (files.some((f) => MARKER.test(f.content))) return;
    emit(this, "task-resolve", { feature: this.feature, task: this.task, files });
  }

  override render() {
    const unresolved = this.files.filter((f) => MARKER.test(this.draft(f))).map((f) => f.path);
    return html`
      <form class="card" aria-labelledby="conflict-h" @submit=${(e: Event) => this.submit(e)}>
        <h3 id="conflict-h">Merge conflict in ${this.files.length} file${this.files.length === 1 ? "" : "s"}</h3>
        <p class="small muted">Keep the work: edit each file until no conflict markers are left, or take one side whole, then commit the resolution.</p>
        ${this.files.map(
          (f, i) => html`<div class="file">
          <label for="conflict-${i}"><code>${f.path}</code></label>
          <div class="sides" role="group" aria-label="Take one side of ${f.path}">
            ${f.ours !== null ? html`<button type="button" @click=${() => this.set(f.path, f.ours!)}>Keep the feature's</button>` : nothing}
            ${f.theirs !== null ? html`<button type="button" @click=${() => this.set(f.path, f.theirs!)}>Keep this task's</button>` : nothing}
            <button type="button" class="ghost" @click=${() => this.set(f.path, f.marked)}>Start over</button>
          </div>
          <textarea id="conflict-${i}" spellcheck="false" .value=${this.draft(f)} @input=${(e: Event) => this.set(f.path, (e.target as HTMLTextAreaElement).value)}></textarea>
        </div>`,
        )}
        ${unresolved.length ? html`<p class="small" role="status">Conflict markers left in ${unresolved.join(", ")}.</p>` : nothing}
        <div class="row" style="margin-top:.5rem"><span class="spacer"></span>
          <button class="primary" type="submit" ?disabled=${this.busy || unresolved.length > 0}>${this.busy ? "Committing…" : "Commit the resolution"}</button></div>
      </form>`;
  }
}

customElements.define("pantheon-task-conflict", PantheonTaskConflict);

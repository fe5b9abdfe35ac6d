import { LitElement, css, html, nothing } from "lit";
import type { CommitInfo } from "../api-work";
import type { WorkState } from "../state";
import { shortSha } from "../work-attention";
import { base, emit, timeAgo } from "./shared";
import { diffClass, diffStyles } from "./work-shared";

/** A commit's time (ISO or epoch ms) as "5 min ago". */
const ago = (date: string | number) => timeAgo(typeof date === "number" ? date : Date.parse(date));
const firstLine = (message: string) => message.split("\n")[0] ?? "";

const codeStyles = css`
  ul.plain { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; }
  .commit { display: grid; gap: .15rem; padding: .7rem; }
  .commit a.msg { font-weight: 700; overflow-wrap: anywhere; }
  .file-row { display: flex; gap: .5rem; align-items: center; padding: .35rem 0; border-bottom: 1px solid var(--border); min-height: 44px; }
  .file-row:last-child { border-bottom: 0; }
  .file-row a { overflow-wrap: anywhere; }
  .content { padding: 0; overflow-x: auto; }
  .content ol { margin: 0; padding: .5rem 0 .5rem 3.2rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
  .content li { white-space: pre; padding-right: .6rem; }
  .content li::marker { color: var(--muted); }
  .plus { color: var(--ok); font-weight: 700; } .minus { color: var(--danger); font-weight: 700; }
`;

const back = (feature: string) => html`<p><a href="#/features/${encodeURIComponent(feature)}">← ${feature}</a></p>`;

/**
 * The feature's commits on a branch (the feature branch by default), newest first: message,
 * author, time, the task and run that made it; each opens its diff. A branch picker lists the
 * task branches.
 *
 * Events: `commits-ref` {feature, ref}.
 */
export class PantheonCommits extends LitElement {
  static override properties = { work: { attribute: false }, name: { type: String }, ref: { attribute: false } };
  declare work: WorkState;
  declare name: string;
  declare ref: string | undefined;
  static override styles = [base, codeStyles];

  private item(c: CommitInfo) {
    const enc = encodeURIComponent(this.name);
    return html`<li class="card commit">
      <a class="msg" href="#/features/${enc}/commits/${encodeURIComponent(c.sha)}">${firstLine(c.message)}</a>
      <span class="small muted"><code>${shortSha(c.sha)}</code> · ${c.author.name} · ${ago(c.date)}</span>
      ${c.task !== undefined ? html`<span class="small">Task <a href="#/features/${enc}/tasks/${c.task}">#${c.task}</a>${c.run ? html` · <span class="muted">run ${c.run.slice(0, 8)}</span>` : nothing}</span>` : nothing}
    </li>`;
  }

  override render() {
    const w = this.work;
    const c = w.commits;
    const data = "data" in c && c.data ? c.data : null;
    const branches = data?.branches;
    return html`
      ${back(this.name)}
      <div class="row"><h2>Commits</h2><span class="spacer"></span><a class="button ghost" href="#/features/${encodeURIComponent(this.name)}/files${this.ref ? `?ref=${encodeURIComponent(this.ref)}` : ""}">Files</a></div>
      ${
        branches
          ? html`<p class="small muted">Base <code>${shortSha(branches.base.sha)}</code>${branches.base.remote ? html` from ${branches.base.remote}${branches.base.ref ? ` (${branches.base.ref})` : ""}` : nothing}</p>
        <div class="field"><label for="ref">Branch</label>
          <select id="ref" @change=${(e: Event) => emit(this, "commits-ref", { feature: this.name, ref: (e.target as HTMLSelectElement).value })}>
            <option value="" ?selected=${!this.ref}>the feature branch</option>
            ${branches.branches.map((b) => html`<option value=${b.name} ?selected=${b.name === this.ref}>${b.name}${b.task !== undefined ? ` (task ${b.task})` : ""}</option>`)}
          </select></div>`
          : nothing
      }
      ${c.status === "error" ? html`<div class="alert error" role="alert">${c.error}</div>` : nothing}
      ${c.status === "loading" && !data ? html`<p class="muted">Loading commits…</p>` : nothing}
      ${data && data.commits.length === 0 ? html`<p class="muted">No commits yet.</p>` : nothing}
      ${data ? html`<ul class="plain" aria-label="Commits, newest first">${data.commits.map((x) => this.item(x))}</ul>` : nothing}`;
  }
}

/** One commit: its message, author and parents, and the diff of every file it changed. */
export class PantheonCommitView extends LitElement {
  static override properties = { work: { attribute: false }, name: { type: String }, sha: { type: String } };
  declare work: WorkState;
  declare name: string;
  declare sha: string;
  static override styles = [base, codeStyles, diffStyles];

  override render() {
    const c = this.work.commit;
    const enc = encodeURIComponent(this.name);
    const head = html`<p><a href="#/features/${enc}/commits">← Commits</a></p>`;
    if (c.status === "error") return html`${head}<div class="alert error" role="alert">${c.error}</div>`;
    if (c.status !== "ready") return html`${head}<p class="muted">Loading the commit…</p>`;
    const { files, info } = c.data;
    return html`
      ${head}
      <h2>${info ? firstLine(info.message) : html`Commit <code>${shortSha(this.sha)}</code>`}</h2>
      ${
        info
          ? html`<p class="small muted"><code>${shortSha(info.sha)}</code> · ${info.author.name} · ${ago(info.date)}${info.parents.length > 1 ? " · a merge" : ""}</p>
        ${info.message.includes("\n") ? html`<pre>${info.message.split("\n").slice(1).join("\n").trim()}</pre>` : nothing}`
          : nothing
      }
      <p class="small">${files.length} file${files.length === 1 ? "" : "s"} changed · <span class="plus">+${files.reduce((n, f) => n + f.additions, 0)}</span> <span class="minus">−${files.reduce((n, f) => n + f.deletions, 0)}</span></p>
      ${files.map(
        (f) => html`<section class="card" style="padding:0;margin-bottom:.75rem" aria-label="${f.path}, ${f.status}">
        <div class="row" style="padding:.6rem .75rem"><a href="#/features/${enc}/files?${new URLSearchParams({ ref: this.sha, path: f.path })}"><code>${f.path}</code></a><span class="spacer"></span>
          <span class="badge">${f.status}</span><span class="small"><span class="plus">+${f.additions}</span> <span class="minus">−${f.deletions}</span></span></div>
        ${f.patch ? html`<pre class="diff" tabindex="0" aria-label="Changes to ${f.path}">${f.patch.split("\n").map((l) => html`<span class=${diffClass(l)}>${l || " "}</span>`)}</pre>` : nothing}
      </section>`,
      )}`;
  }
}

/** The committed files of the feature (at a ref), and one file's content with line numbers. */
export class PantheonFeatureFiles extends LitElement {
  static override properties = {
    work: { attribute: false },
    name: { type: String },
    ref: { attribute: false },
    path: { attribute: false },
  };
  declare work: WorkState;
  declare name: string;
  declare ref: string | undefined;
  declare path: string | undefined;
  static override styles = [base, codeStyles];

  private link(path?: string) {
    const q = new URLSearchParams({ ...(this.ref ? { ref: this.ref } : {}), ...(path ? { path } : {}) }).toString();
    return `#/features/${encodeURIComponent(this.name)}/files${q ? `?${q}` : ""}`;
  }

  override render() {
    const w = this.work;
    const files = "data" in w.files && w.files.data ? w.files.data : [];
    const at = this.ref ? html` at <code>${this.ref.length === 40 ? shortSha(this.ref) : this.ref}</code>` : nothing;
    if (this.path) {
      const f = w.file;
      return html`
        <p><a href=${this.link()}>← Files</a></p>
        <h2 style="overflow-wrap:anywhere"><code>${this.path}</code></h2>
        <p class="small muted">As committed${at}${w.has.repo ? html` · <a href="#/features/${encodeURIComponent(this.name)}/commits">commits</a>` : nothing}</p>
        ${f.status === "error" ? html`<div class="alert error" role="alert">${f.error}</div>` : nothing}
        ${f.status === "loading" ? html`<p class="muted">Loading the file…</p>` : nothing}
        ${f.status === "ready" ? html`<section class="card content" tabindex="0" aria-label="Content of ${this.path}"><ol>${f.data.content.split("\n").map((l) => html`<li>${l || " "}</li>`)}</ol></section>` : nothing}`;
    }
    return html`
      ${back(this.name)}
      <div class="row"><h2>Files</h2>${w.has.repo ? html`<span class="spacer"></span><a class="button ghost" href="#/features/${encodeURIComponent(this.name)}/commits">Commits</a>` : nothing}</div>
      <p class="small muted">The committed files${at}.</p>
      ${w.files.status === "error" ? html`<div class="alert error" role="alert">${w.files.error}</div>` : nothing}
      ${w.files.status === "loading" && files.length === 0 ? html`<p class="muted">Loading files…</p>` : nothing}
      ${w.files.status === "ready" && files.length === 0 ? html`<p class="muted">Nothing committed yet.</p>` : nothing}
      ${
        files.length
          ? html`<section class="card" aria-label="Committed files"><ul class="plain" style="gap:0">${files.map(
              (f) => html`<li class="file-row">
        <a href=${this.link(f.path)}><code>${f.path}</code></a><span class="spacer"></span>${f.bytes !== undefined ? html`<span class="small muted">${f.bytes.toLocaleString()} B</span>` : nothing}</li>`,
            )}</ul></section>`
          : nothing
      }`;
  }
}

customElements.define("pantheon-commits", PantheonCommits);
customElements.define("pantheon-commit-view", PantheonCommitView);
customElements.define("pantheon-feature-files", PantheonFeatureFiles);

import { LitElement, css, html, nothing } from "lit";
import type { WorkState } from "../state";
import { base, emit } from "./shared";

/** A feature name from a repository URL: https://github.com/acme/Web-App.git → web-app. */
const nameFrom = (url: string) =>
  (/([^/]+?)(?:\.git)?\/?$/.exec(url)?.[1] ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+|-+$/g, "")
    .slice(0, 40);

/**
 * The Work page's import form (an admin's: the project's secrets are listed by name, never by value,
 * and only this project's): a repository URL, its branch, the secret holding its token, the feature's
 * name and title, and the agent that plans it. The server refuses a secret of another project.
 *
 * Events: `feature-import` {name, title, orchestrator, url, ref, tokenSecret}.
 */
export class PantheonFeatureImport extends LitElement {
  static override properties = { work: { attribute: false } };
  declare work: WorkState;

  static override styles = [
    base,
    css`
    form { display: grid; gap: .1rem; grid-template-columns: minmax(0, 1fr); }
    .pair { display: grid; gap: .5rem; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
    .alert { overflow-wrap: anywhere; }
  `,
  ];

  private submit(e: SubmitEvent): void {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    const value = (key: string) => String(data.get(key) ?? "").trim();
    emit(this, "feature-import", {
      url: value("url"),
      ref: value("ref"),
      tokenSecret: value("tokenSecret"),
      name: value("name") || nameFrom(value("url")),
      title: value("title"),
      orchestrator: value("orchestrator"),
    });
  }

  override render() {
    const options = this.work.importOptions;
    if (!options) return nothing;
    const busy = this.work.busy === "import";
    return html`
      <details class="card" ?open=${options.planners.length > 0}>
        <summary><strong>Import a repository</strong></summary>
        ${
          options.planners.length === 0
            ? html`<p class="small muted">No agent here can plan (it needs the <code>plan.write</code> tool); give one the feature tools first.</p>`
            : html`
        <form @submit=${(e: SubmitEvent) => this.submit(e)} aria-label="Import a repository" style="margin-top:.75rem">
          <div class="field"><label for="url">Repository URL</label>
            <input id="url" name="url" type="url" required placeholder="https://github.com/acme/app.git" autocomplete="off" /></div>
          <div class="pair">
            <div class="field"><label for="ref">Branch</label><input id="ref" name="ref" placeholder="main" autocomplete="off" /></div>
            <div class="field"><label for="secret">Token secret</label>
              <select id="secret" name="tokenSecret">
                <option value="">None (a public repository)</option>
                ${options.secrets.map((name) => html`<option value=${name}>${name}</option>`)}
              </select></div>
          </div>
          <div class="pair">
            <div class="field"><label for="fname">Feature name</label><input id="fname" name="name" placeholder="from the URL" pattern="[a-z][a-z0-9-]{0,39}" autocomplete="off" /></div>
            <div class="field"><label for="planner">Planned by</label>
              <select id="planner" name="orchestrator">${options.planners.map((name) => html`<option value=${name}>${name}</option>`)}</select></div>
          </div>
          <div class="field"><label for="title">Title</label><input id="title" name="title" placeholder="What the work is" autocomplete="off" /></div>
          <div class="row"><button class="primary" type="submit" ?disabled=${this.work.busy !== null}>${busy ? "Importing…" : "Import"}</button>
            ${options.secrets.length === 0 ? html`<span class="small muted">This project has no secrets yet: a private repository needs one (Settings → secrets, or <code>pantheon secrets set</code>).</span>` : nothing}</div>
          ${this.work.error && !busy ? html`<div class="alert error" role="alert" style="margin-top:.5rem">${this.work.error}</div>` : nothing}
        </form>`
        }
      </details>`;
  }
}

customElements.define("pantheon-feature-import", PantheonFeatureImport);

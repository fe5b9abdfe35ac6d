import { LitElement, css, html, nothing } from "lit";
import type { WorkState } from "../state";
import { base, emit } from "./shared";

const formats = [
  ["bundle", "git bundle"],
  ["zip", "zip"],
  ["tar", "tar"],
] as const;

/**
 * How a feature's work leaves, on its page: the clone URL with a copy button (anyone who reads the
 * feature), Push and Open pull request (an admin's: the routes are `scope("admin")`, so a reader
 * never sees them), and Download as a git bundle, zip or tar. Each button says when it is busy; what
 * went through is said beside them, and so is a refusal, in the server's words (a remote's 401 names
 * the secret). It sits below the task board, which a phone shows first.
 *
 * Events: `feature-push` {feature}, `feature-pr` {feature}, `feature-download` {feature, format}.
 */
export class PantheonFeatureShip extends LitElement {
  static override properties = {
    work: { attribute: false },
    name: { type: String },
    cloneUrl: { type: String },
    copied: { state: true },
    format: { state: true },
  };
  declare work: WorkState;
  declare name: string;
  declare cloneUrl: string;
  declare copied: string;
  declare format: "bundle" | "zip" | "tar";

  constructor() {
    super();
    this.copied = "";
    this.format = "bundle";
  }

  static override styles = [
    base,
    css`
    .clone { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
    .clone code { flex: 1 1 14rem; min-width: 0; overflow-wrap: anywhere; background: var(--surface-2); border-radius: 8px; padding: .45rem .6rem; font-size: .85rem; }
    .controls { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; margin-top: .75rem; }
    .download { display: flex; gap: .5rem; align-items: end; }
    .download select { width: auto; }
    .done { margin: .5rem 0 0; overflow-wrap: anywhere; }
  `,
  ];

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.cloneUrl);
      this.copied = "Copied";
    } catch {
      // No clipboard (an insecure origin, a denied permission): the URL is selected for a long-press copy.
      const code = this.renderRoot.querySelector("code");
      if (code) getSelection()?.selectAllChildren(code);
      this.copied = "Selected: copy it from the menu";
    }
  }

  override render() {
    const w = this.work;
    const admin = w.scope === "admin";
    const busy = w.busy;
    const label = (action: string, idle: string, going: string) => (busy === action ? going : idle);
    return html`
      <section class="card" aria-labelledby="ship-h" style="margin-top:.75rem">
        <h3 id="ship-h">Take the work</h3>
        ${
          this.cloneUrl
            ? html`<p class="small muted">Clone it with git, a token of this project as the password.</p>
        <div class="clone"><code aria-label="Clone URL">${this.cloneUrl}</code>
          <button @click=${() => this.copy()} aria-label="Copy the clone URL">${this.copied ? "✓ Copy" : "Copy"}</button></div>
        ${this.copied ? html`<p class="small" role="status">${this.copied}</p>` : nothing}`
            : nothing
        }
        <div class="controls" role="group" aria-label="Send the work">
          ${
            admin
              ? html`<button class="primary" ?disabled=${busy !== null} @click=${() => emit(this, "feature-push", { feature: this.name })}>${label("push", "Push", "Pushing…")}</button>
          <button ?disabled=${busy !== null} @click=${() => emit(this, "feature-pr", { feature: this.name })}>${label("pr", "Open pull request", "Opening…")}</button>`
              : nothing
          }
          <span class="download"><span><label for="format">Format</label>
            <select id="format" .value=${this.format} @change=${(e: Event) => {
              this.format = (e.target as HTMLSelectElement).value as typeof this.format;
            }}>${formats.map(([value, text]) => html`<option value=${value} ?selected=${value === this.format}>${text}</option>`)}</select></span>
            <button ?disabled=${busy !== null} @click=${() => emit(this, "feature-download", { feature: this.name, format: this.format })}>${label("download", "Download", "Downloading…")}</button></span>
        </div>
        ${
          w.shipped?.failed
            ? html`<div class="alert error done" role="alert">${w.shipped.message}</div>`
            : w.shipped
              ? html`<p class="done small" role="status">${w.shipped.message}${w.shipped.url ? html` <a href=${w.shipped.url} target="_blank" rel="noopener">Open it</a>` : nothing}</p>`
              : nothing
        }
      </section>`;
  }
}

customElements.define("pantheon-feature-ship", PantheonFeatureShip);

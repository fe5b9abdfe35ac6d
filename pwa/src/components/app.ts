import { LitElement, css, html, nothing } from "lit";
import type { AppState, Theme } from "../state";
import { base, emit } from "./shared";
import "./actor-detail";
import "./actors-table";
import "./approvals";
import "./chat";
import "./context-view";
import "./conversation";
import "./workflow-graph";
import "./run-trace";
import "./tool-runner";
import "./features";
import "./plan-review";
import "./task-board";
import "./task-view";
import "./feature-code";
import "./people";
import "./notifications";
import "./share";

/**
 * The shell: header, navigation, sign-in, the offline banner and whichever view the hash
 * route names. It renders `state` and re-emits nothing itself: child events bubble through.
 *
 * Events: `sign-in` {token, project}, `sign-out`, `theme` {theme}, `join` {code, project} (a sign-in link,
 * on a device that is signed in already).
 */
export class PantheonApp extends LitElement {
  static override properties = { state: { attribute: false } };
  declare state: AppState | undefined;

  static override styles = [
    base,
    css`
    :host { min-height: 100dvh; display: flex; flex-direction: column; }
    header { position: sticky; top: 0; z-index: 2; background: var(--header); color: var(--header-text); border-bottom: 1px solid var(--border);
      padding: max(.5rem, env(safe-area-inset-top)) max(1rem, env(safe-area-inset-right)) .5rem max(1rem, env(safe-area-inset-left)); }
    .top { display: flex; align-items: center; gap: .5rem; max-width: 72rem; margin: 0 auto; }
    .brand { font-weight: 800; font-size: 1.1rem; letter-spacing: .01em; display: flex; align-items: center; gap: .5rem; color: inherit; text-decoration: none; }
    .logo { width: 28px; height: 28px; border-radius: 8px; background: var(--accent); color: var(--accent-contrast); display: grid; place-items: center; font-weight: 900; }
    nav { display: flex; gap: .25rem; }
    nav a { color: var(--header-text); text-decoration: none; padding: .5rem .7rem; border-radius: 10px; font-weight: 600; min-height: 44px; display: inline-flex; align-items: center; }
    nav a[aria-current="page"] { background: var(--accent-soft); color: var(--text); }
    .count { background: var(--warn); color: #111; border-radius: 999px; font-size: .7rem; padding: .05rem .4rem; margin-left: .3rem; }
    main { flex: 1; width: 100%; max-width: 72rem; margin: 0 auto; padding: 1rem max(1rem, env(safe-area-inset-right)) 1rem max(1rem, env(safe-area-inset-left)); display: flex; flex-direction: column; min-height: 0; }
    :host([chat-view]) { height: 100dvh; }
    main.chat { flex: 1; min-height: 0; padding-bottom: 0; overflow: hidden; }
    main.chat pantheon-chat { flex: 1; min-height: 0; }
    .offline { background: var(--warn-soft); border-bottom: 1px solid var(--warn); text-align: center; padding: .4rem 1rem; font-size: .9rem; }
    .signin { max-width: 26rem; margin: 8vh auto 0; width: 100%; }
    .chat-head { display: flex; align-items: center; gap: .5rem; }
    .chat-head h2 { margin: 0; font-size: 1.15rem; }
    .icon { min-width: 44px; padding: .4rem; color: var(--header-text); white-space: nowrap; }
    .show-narrow { display: none; }
    @media (max-width: 520px) { .hide-narrow { display: none; } .show-narrow { display: inline; } .top { gap: .2rem; } nav { gap: 0; } nav a { padding: .5rem .2rem; font-size: .95rem; } .icon { min-width: 34px; padding: .4rem .1rem; } .count { margin-left: .15rem; padding: .05rem .3rem; } header { padding-left: max(.6rem, env(safe-area-inset-left)); padding-right: max(.6rem, env(safe-area-inset-right)); } }
  `,
  ];

  override firstUpdated(): void {
    performance.mark("pantheon:first-render");
  }

  override updated(): void {
    // The chat fills exactly one screen so its composer stays put; other views scroll the page.
    this.toggleAttribute("chat-view", Boolean(this.state?.signedIn && this.state.route.view === "chat"));
  }

  private signIn(e: Event) {
    e.preventDefault();
    const data = new FormData(e.target as HTMLFormElement);
    emit(this, "sign-in", {
      token: String(data.get("token") ?? "").trim(),
      project: String(data.get("project") ?? "").trim() || "default",
    });
  }

  override render() {
    const s = this.state;
    if (!s) return html`<main><p class="muted">Loading…</p></main>`;
    const view = s.route.view;
    const work =
      view === "features" ||
      view === "feature" ||
      view === "plan" ||
      view === "task" ||
      view === "commits" ||
      view === "commit" ||
      view === "files";
    const waiting = s.approvals.status === "ready" ? s.approvals.data.length : 0;
    const next: Theme = s.theme === "system" ? "dark" : s.theme === "dark" ? "light" : "system";
    return html`
      <header>
        <div class="top">
          <a class="brand" href="#/agents" aria-label="Pantheon: all agents"><span class="logo" aria-hidden="true">P</span><span class="hide-narrow">Pantheon</span></a>
          ${
            s.signedIn
              ? html`<nav aria-label="Main">
            <a href="#/agents" aria-current=${view === "agents" ? "page" : "false"}>Agents</a>
            <a href="#/features" aria-current=${work ? "page" : "false"}>Work</a>
            <a href="#/approvals" aria-current=${view === "approvals" ? "page" : "false"}>Approvals${waiting ? html`<span class="count">${waiting}</span>` : nothing}</a>
          </nav>`
              : nothing
          }
          <span class="spacer"></span>
          <button class="ghost icon" @click=${() => emit(this, "theme", { theme: next })} aria-label="Theme: ${s.theme}. Switch to ${next}" title="Theme: ${s.theme}">
            ${s.theme === "dark" ? "☾" : s.theme === "light" ? "☀" : "◐"}</button>
          ${s.signedIn ? html`<a class="button ghost icon" href="#/people" aria-label="People and devices" title="People and devices" aria-current=${view === "people" ? "page" : "false"}><svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8M22 21v-2a4 4 0 0 0-3-3.87M16 3.13a4 4 0 0 1 0 7.75"/></svg></a>` : nothing}
          ${s.signedIn ? html`<button class="ghost icon" @click=${() => emit(this, "sign-out")} aria-label=${s.person ? `Sign out (${s.person})` : "Sign out"} title="Sign out"><span class="hide-narrow">Sign out</span><svg class="show-narrow" aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9"/></svg></button>` : nothing}
        </div>
      </header>
      ${s.online ? nothing : html`<div class="offline" role="status">You're offline. Messages you send are kept and go out when the connection returns.</div>`}
      <main class=${s.signedIn && view === "chat" ? "chat" : ""} id="main">${view === "join" ? this.renderJoin(s) : s.signedIn ? this.renderView(s) : this.renderSignIn(s)}</main>`;
  }

  private renderSignIn(s: AppState) {
    return html`
      <form class="card signin" @submit=${this.signIn} aria-labelledby="signin-h">
        <h1 id="signin-h" style="font-size:1.4rem">Sign in to Pantheon</h1>
        <p class="muted">Paste an API token. It stays on this device until you sign out.</p>
        <div class="field"><label for="token">API token</label>
          <input id="token" name="token" type="password" required autocomplete="current-password" spellcheck="false"></div>
        <details class="field"><summary class="small">Project</summary>
          <label for="project" class="sr-only">Project</label>
          <input id="project" name="project" value=${s.project} autocomplete="off" autocapitalize="none"></details>
        ${s.signIn.error ? html`<div class="alert error" role="alert">${s.signIn.error}</div>` : nothing}
        <p><button class="primary" type="submit" style="width:100%" ?disabled=${s.signIn.busy}>${s.signIn.busy ? "Checking…" : "Sign in"}</button></p>
      </form>`;
  }

  /** A sign-in link opened on this device: signing in as the invited person (at once unless signed in already). */
  private renderJoin(s: AppState) {
    const r = s.route;
    if (r.view !== "join") return nothing;
    return html`
      <section class="card signin" aria-labelledby="join-h" aria-busy=${s.join.busy ? "true" : "false"}>
        <h1 id="join-h" style="font-size:1.4rem">Sign in by invitation</h1>
        ${s.join.busy ? html`<p role="status">Signing this device in…</p>` : nothing}
        ${
          s.join.error
            ? html`<div class="alert error" role="alert">${s.join.error}</div>
          <p class="small muted">${s.signedIn ? html`<a href="#/agents">Back to your agents</a>` : html`<a href="#/agents">Sign in with an API token instead</a>`}</p>`
            : nothing
        }
        ${
          s.signedIn && !s.join.busy && !s.join.error
            ? html`
          <p>This device is signed in already${s.person ? html` as <strong>${s.person}</strong>` : nothing}. Use this link to sign it in as the invited person instead? The link works only once.</p>
          <p><button class="primary" style="width:100%" @click=${() => emit(this, "join", { code: r.code, project: r.project })}>Sign in as the invited person</button></p>
          <p><a class="button ghost" style="width:100%" href="#/agents">Stay signed in as I am</a></p>`
            : nothing
        }
      </section>`;
  }

  private renderView(s: AppState) {
    const r = s.route;
    switch (r.view) {
      case "agents":
        return html`<pantheon-actors-table .agents=${s.agents} .create=${s.createAgent}></pantheon-actors-table>`;
      case "approvals":
        return html`<pantheon-approvals .approvals=${s.approvals} .deciding=${s.deciding} .error=${s.decideError}></pantheon-approvals>`;
      case "agent":
        return html`<pantheon-actor-detail .detail=${s.detail}></pantheon-actor-detail>`;
      case "chat":
        return html`
          <div class="chat-head">
            <a class="button ghost" href="#/agents" aria-label="Back to agents">←</a>
            <h2>${r.agent}</h2><span class="spacer"></span>
            <a class="button ghost" href="#/agents/${encodeURIComponent(r.agent)}">Details</a>
          </div>
          <pantheon-chat .chat=${s.chat} .online=${s.online} .deciding=${s.deciding}></pantheon-chat>`;
      case "conversation":
        return html`<pantheon-conversation .conversation=${s.conversation}></pantheon-conversation>`;
      case "workflow":
        return html`<pantheon-workflow-graph .agent=${r.agent} .workflow=${s.workflow}></pantheon-workflow-graph>`;
      case "trace":
        return html`<pantheon-run-trace .agent=${r.agent} .trace=${s.trace} .deciding=${s.deciding}></pantheon-run-trace>`;
      case "context":
        return html`<pantheon-context-view .agent=${r.agent} .q=${r.q ?? ""} .max=${r.max ?? 0} .context=${s.context}></pantheon-context-view>`;
      case "tools":
        return html`<pantheon-tool-runner .agent=${r.agent} .selected=${r.tool ?? ""} .tools=${s.tools} .run=${s.toolRun}></pantheon-tool-runner>`;
      case "features":
        return html`<pantheon-features .features=${s.work.features} .work=${s.work}></pantheon-features>`;
      case "feature":
        return html`<pantheon-task-board .work=${s.work} .name=${r.feature}></pantheon-task-board>`;
      case "plan":
        return html`<pantheon-plan-review .work=${s.work} .name=${r.feature} .compareTo=${r.compare}></pantheon-plan-review>`;
      case "task":
        return html`<pantheon-task-view .work=${s.work} .name=${r.feature} .number=${r.task}></pantheon-task-view>`;
      case "commits":
        return html`<pantheon-commits .work=${s.work} .name=${r.feature} .ref=${r.ref}></pantheon-commits>`;
      case "commit":
        return html`<pantheon-commit-view .work=${s.work} .name=${r.feature} .sha=${r.sha}></pantheon-commit-view>`;
      case "files":
        return html`<pantheon-feature-files .work=${s.work} .name=${r.feature} .ref=${r.ref} .path=${r.path}></pantheon-feature-files>`;
      case "people":
        return html`<pantheon-notifications .project=${s.project} .person=${s.person}></pantheon-notifications>
          <pantheon-people .people=${s.people} .person=${s.person}></pantheon-people>`;
      case "share":
        return html`<pantheon-share .agents=${s.agents}></pantheon-share>`;
      case "join":
        return nothing;
    }
  }
}

customElements.define("pantheon-app", PantheonApp);

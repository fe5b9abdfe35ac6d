import { LitElement, css, html, nothing } from "lit";
import { unsafeSVG } from "lit/directives/unsafe-svg.js";
import type { CreatedInvite } from "../api";
import type { PeopleState } from "../state";
import { base, emit, timeAgo, timeUntil } from "./shared";

type QrModule = typeof import("../qr-code");
/** The QR encoder is its own file (pwa/build.mjs), fetched the first time an invite is shown. */
const qrUrl = "/qr.js";
let qrLoading: Promise<QrModule> | null = null;
const loadQr = () =>
  (qrLoading ??= (import(/* a URL, not bundled */ qrUrl as string) as Promise<QrModule>).catch((error: unknown) => {
    // Offline or a failed fetch: the next invite tries again.
    qrLoading = null;
    throw error;
  }));

const expiries = [
  { label: "1 hour", seconds: 3600 },
  { label: "24 hours", seconds: 86400 },
  { label: "7 days", seconds: 7 * 86400 },
] as const;

/**
 * People and devices (an admin's settings): invite a person by name with a scope, which shows a
 * one-time sign-in link and its QR code; every token with whose device it is, each revocable
 * (that device is signed out and its sockets close); invites still waiting, each withdrawable.
 *
 * Events: `invite` {name, scope, expiresIn}, `invite-dismiss`, `revoke-token` {id}, `withdraw-invite` {id}, `reload`.
 */
export class PantheonPeople extends LitElement {
  static override properties = { people: { attribute: false }, person: { type: String }, qr: { state: true } };
  declare people: PeopleState;
  declare person: string | null;
  declare qr: { link: string; svg: string } | null;

  constructor() {
    super();
    this.people = { tokens: { status: "idle" }, invites: { status: "idle" }, created: null, busy: null, error: null };
    this.person = null;
    this.qr = null;
  }

  static override styles = [
    base,
    css`
    .grid { display: grid; gap: 1rem; }
    .qr { width: min(100%, 18rem); aspect-ratio: 1; margin: .5rem auto; display: block; background: #fff; border-radius: 8px; }
    .qr svg { width: 100%; height: 100%; display: block; }
    .link { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .8rem; word-break: break-all; }
    ul { list-style: none; margin: 0; padding: 0; }
    li { display: flex; gap: .5rem; align-items: center; padding: .6rem 0; border-bottom: 1px solid var(--border); flex-wrap: wrap; }
    li .who { flex: 1; min-width: 10rem; }
    .two { display: grid; grid-template-columns: 1fr 1fr; gap: .5rem; }
  `,
  ];

  override updated(): void {
    const created = this.people.created;
    if (created && this.qr?.link !== created.link) void this.drawQr(created);
    if (!created && this.qr) this.qr = null;
  }

  private async drawQr(created: CreatedInvite) {
    const loaded = await loadQr().catch(() => null);
    if (!loaded) return;
    const { qrSvgOf } = loaded;
    if (this.people.created?.link === created.link) this.qr = { link: created.link, svg: qrSvgOf(created.link) };
  }

  private submit(e: Event) {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get("name") ?? "").trim();
    if (!name) return;
    emit(this, "invite", {
      name,
      scope: String(data.get("scope") ?? "chat"),
      expiresIn: Number(data.get("expiresIn") ?? 86400),
    });
    form.reset();
  }

  override render() {
    const p = this.people;
    return html`
      <div class="grid">
        <div class="row"><h2 style="margin:0">People and devices</h2><span class="spacer"></span>
          <button class="ghost" @click=${() => emit(this, "reload")} aria-label="Refresh">↻</button></div>
        ${this.person ? html`<p class="muted small">This device is signed in as <strong>${this.person}</strong>.</p>` : nothing}
        ${p.error ? html`<div class="alert error" role="alert">${p.error}</div>` : nothing}
        ${p.created ? this.renderCreated(p.created) : this.renderForm(p)}
        ${this.renderTokens(p)}
        ${this.renderInvites(p)}
      </div>`;
  }

  private renderForm(p: PeopleState) {
    return html`
      <form class="card" @submit=${this.submit} aria-labelledby="invite-h">
        <h3 id="invite-h">Invite a person</h3>
        <p class="muted small">They get a one-time sign-in link: opening it on their phone signs that phone in as them, and what they do shows their name.</p>
        <div class="field"><label for="invite-name">Name</label>
          <input id="invite-name" name="name" required maxlength="64" autocomplete="off" autocapitalize="none" placeholder="ana"></div>
        <div class="two">
          <div class="field"><label for="invite-scope">May</label>
            <select id="invite-scope" name="scope">
              <option value="chat">chat and comment</option>
              <option value="approve">also approve</option>
              <option value="admin">do everything (admin)</option>
            </select></div>
          <div class="field"><label for="invite-expiry">Link works for</label>
            <select id="invite-expiry" name="expiresIn">${expiries.map((x) => html`<option value=${x.seconds} ?selected=${x.seconds === 86400}>${x.label}</option>`)}</select></div>
        </div>
        <button class="primary" type="submit" style="width:100%" ?disabled=${p.busy === "invite"}>${p.busy === "invite" ? "Inviting…" : "Invite"}</button>
      </form>`;
  }

  private renderCreated(created: CreatedInvite) {
    const share = async () => {
      const nav = navigator as Navigator & { share?: (data: { title: string; url: string }) => Promise<void> };
      if (nav.share) await nav.share({ title: "Sign in to Pantheon", url: created.link }).catch(() => {});
      else await navigator.clipboard?.writeText(created.link).catch(() => {});
    };
    return html`
      <section class="card" aria-labelledby="created-h">
        <h3 id="created-h">Sign-in link for ${created.name}</h3>
        <p class="small muted">Scope ${created.scope}. Works once, until ${new Date(created.expiresAt).toLocaleString()}. It is shown only now.</p>
        <div class="qr" role="img" aria-label="QR code of the sign-in link for ${created.name}">${this.qr ? unsafeSVG(this.qr.svg) : html`<span class="muted small">Drawing the QR code…</span>`}</div>
        <p class="link" data-testid="invite-link">${created.link}</p>
        <div class="two">
          <button @click=${share}>Share link</button>
          <button class="primary" @click=${() => emit(this, "invite-dismiss")}>Done</button>
        </div>
      </section>`;
  }

  private renderTokens(p: PeopleState) {
    if (p.tokens.status === "error") return html`<div class="alert error" role="alert">${p.tokens.error}</div>`;
    const tokens = "data" in p.tokens ? (p.tokens.data ?? []) : [];
    return html`
      <section class="card" aria-labelledby="tokens-h">
        <h3 id="tokens-h">Devices and tokens</h3>
        ${p.tokens.status === "loading" && !tokens.length ? html`<p class="muted">Loading…</p>` : nothing}
        ${p.tokens.status === "ready" && !tokens.length ? html`<p class="muted">No tokens yet.</p>` : nothing}
        <ul>${tokens.map(
          (t) => html`
          <li aria-label=${t.person ? `${t.person}'s device` : `token ${t.name}`}>
            <span class="who">${t.person ? html`<strong>${t.person}</strong>${t.device ? html` <span class="muted small">· ${t.device}</span>` : nothing}` : html`<span>token <strong>${t.name}</strong></span>`}
              <br><span class="muted small">${t.scope} · last used ${timeAgo(t.lastUsedAt ?? t.createdAt)}</span></span>
            <button class="danger" @click=${() => emit(this, "revoke-token", { id: t.id })} ?disabled=${p.busy === `revoke:${t.id}`}
              aria-label=${`Sign out ${t.person ? `${t.person}'s device` : `token ${t.name}`}`}>Sign out</button>
          </li>`,
        )}</ul>
      </section>`;
  }

  private renderInvites(p: PeopleState) {
    const invites = p.invites.status === "ready" ? p.invites.data : [];
    if (!invites.length) return nothing;
    return html`
      <section class="card" aria-labelledby="invites-h">
        <h3 id="invites-h">Invites waiting</h3>
        <ul>${invites.map(
          (i) => html`
          <li><span class="who"><strong>${i.name}</strong> <span class="muted small">· ${i.scope} · expires ${timeUntil(i.expiresAt)}</span></span>
            <button @click=${() => emit(this, "withdraw-invite", { id: i.id })} ?disabled=${p.busy === `withdraw:${i.id}`} aria-label="Withdraw the invite for ${i.name}">Withdraw</button></li>`,
        )}</ul>
      </section>`;
  }
}

customElements.define("pantheon-people", PantheonPeople);

import { LitElement, css, html, nothing } from "lit";
import { makeApi, type PushSubscriptionInfo } from "../api";
import { disablePush, enablePush, pushEnabled } from "../push";
import { base, timeAgo } from "./shared";

/**
 * A person's notifications (docs/push.md): on or off for this device, the devices that get them
 * (each removable), and the agents muted. Shown to a person's device on the people page.
 */
export class PantheonNotifications extends LitElement {
  static override properties = {
    project: { type: String },
    person: { type: String },
    on: { state: true },
    devices: { state: true },
    muted: { state: true },
    error: { state: true },
    busy: { state: true },
  };
  declare project: string;
  declare person: string | null;
  declare on: boolean;
  declare devices: PushSubscriptionInfo[];
  declare muted: string[];
  declare error: string | null;
  declare busy: boolean;

  private readonly api = makeApi({
    getToken: () => localStorage.getItem("pantheon.token"),
    getProject: () => this.project,
  });

  constructor() {
    super();
    this.project = "default";
    this.person = null;
    this.on = false;
    this.devices = [];
    this.muted = [];
    this.error = null;
    this.busy = false;
  }

  static override styles = [
    base,
    css`
    ul { list-style: none; margin: 0; padding: 0; }
    li { display: flex; gap: .5rem; align-items: center; padding: .5rem 0; border-bottom: 1px solid var(--border); }
    li .who { flex: 1; }
  `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.on = await pushEnabled();
      this.devices = (await this.api.listPushSubscriptions()).subscriptions;
      this.muted = (await this.api.listMutes()).agents;
    } catch (error) {
      this.error = (error as Error).message;
    }
  }

  private async act(work: () => Promise<string | null | void>): Promise<void> {
    this.busy = true;
    this.error = null;
    try {
      this.error = (await work()) ?? null;
    } catch (error) {
      this.error = (error as Error).message;
    } finally {
      this.busy = false;
      await this.load();
    }
  }

  override render() {
    if (!this.person) return nothing;
    return html`<section class="card" aria-labelledby="push-h">
      <h2 id="push-h">Notifications</h2>
      <p class="muted small">Approvals waiting for you and replies to your messages while the app is closed.</p>
      <p><button class="primary" ?disabled=${this.busy}
        @click=${() => this.act(() => (this.on ? disablePush(this.api) : enablePush(this.api)))}>
        ${this.on ? "Turn off on this device" : "Turn on for this device"}</button></p>
      ${this.error ? html`<div class="alert error" role="alert">${this.error}</div>` : nothing}
      ${
        this.devices.length
          ? html`<h3>Devices that get them</h3><ul>${this.devices.map(
              (
                d,
              ) => html`<li><span class="who">${d.device ?? "a device"} <span class="muted small">via ${d.service}, since ${timeAgo(d.createdAt)}</span></span>
          <button class="ghost" ?disabled=${this.busy} @click=${() => this.act(() => this.api.removePushSubscription(d.id))}>Remove</button></li>`,
            )}</ul>`
          : nothing
      }
      <form class="field" @submit=${(e: SubmitEvent) => {
        e.preventDefault();
        const input = (e.target as HTMLFormElement).elements.namedItem("agent") as HTMLInputElement;
        const agent = input.value.trim();
        if (agent) void this.act(() => this.api.mute(agent, true)).then(() => void (input.value = ""));
      }}><label for="mute">Mute an agent (its approvals and replies stop notifying you)</label>
        <input id="mute" name="agent" autocomplete="off" autocapitalize="none" placeholder="agent name">
        <button class="ghost" type="submit" ?disabled=${this.busy}>Mute</button></form>
      ${
        this.muted.length
          ? html`<h3>Muted agents</h3><ul>${this.muted.map(
              (agent) => html`<li><span class="who">${agent}</span>
          <button class="ghost" ?disabled=${this.busy} @click=${() => this.act(() => this.api.mute(agent, false))}>Unmute</button></li>`,
            )}</ul>`
          : nothing
      }
    </section>`;
  }
}

customElements.define("pantheon-notifications", PantheonNotifications);

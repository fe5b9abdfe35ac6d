import { LitElement, css, html, nothing } from "lit";
import { captureFrame, shrinkFile } from "../picture-shrink";
import { cameraProblem, type Picture, type ShrunkPicture } from "../pictures";
import { base, emit } from "./shared";

/**
 * The composer's two ways to a picture: a live camera preview with a shutter, and the phone's
 * picture chooser. Every picture is sized down here, on the device, before anything is sent.
 *
 * Events: `pictures` {pictures: Picture[]} (ready to attach), `picture-problem` {text} (a camera
 * that cannot open, more pictures than there is room for; "" clears it).
 */
export class PantheonPicturePicker extends LitElement {
  static override properties = {
    room: { type: Number },
    busy: { state: true },
    cameraOpen: { state: true },
    ready: { state: true },
    cameraFailed: { state: true },
  };
  /** How many more pictures this message can take. */
  declare room: number;
  declare busy: boolean;
  declare cameraOpen: boolean;
  declare ready: boolean;
  /**
   * After a refused or missing camera the camera button becomes a file input with `capture`:
   * a phone opens its own camera app for it (and a desktop its file chooser).
   */
  declare cameraFailed: boolean;
  private stream: MediaStream | null = null;
  /** Keys the composer's thumbnails with the time (pictures kept from before a reload keep theirs); no crypto.randomUUID: a phone on the LAN over http has none. */
  private taken = 0;

  constructor() {
    super();
    this.room = 4;
    this.busy = false;
    this.cameraOpen = false;
    this.ready = false;
    this.cameraFailed = false;
  }

  static override styles = [
    base,
    css`
    :host { display: contents; }
    .pick { min-width: 44px; padding: .55rem; background: transparent; border-color: transparent; }
    input[type="file"] { position: absolute; width: 1px; height: 1px; opacity: 0; pointer-events: none; }
    dialog { border: 1px solid var(--border); border-radius: 16px; padding: .75rem; background: var(--surface); color: var(--text); width: min(36rem, 96vw); }
    dialog::backdrop { background: rgb(0 0 0 / .6); }
    video { width: 100%; max-height: 65vh; border-radius: 10px; background: #000; display: block; }
    .shutter { width: 64px; height: 64px; border-radius: 50%; border: 4px solid var(--accent); background: var(--surface); padding: 0; }
    .shutter span { display: block; width: 44px; height: 44px; margin: auto; border-radius: 50%; background: var(--accent); }
    .controls { display: flex; align-items: center; justify-content: space-between; gap: .5rem; margin-top: .75rem; }
  `,
  ];

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopCamera();
  }

  private async openCamera(): Promise<void> {
    emit(this, "picture-problem", { text: "" });
    if (!navigator.mediaDevices?.getUserMedia) return this.cameraFailedWith({ name: "NoMediaDevices" });
    this.cameraOpen = true;
    this.ready = false;
    await this.updateComplete;
    this.dialog()?.showModal();
    try {
      // The back camera, at the best resolution it has: the picture is sized down afterwards.
      this.stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: "environment", width: { ideal: 4096 }, height: { ideal: 3072 } },
        audio: false,
      });
    } catch (error) {
      this.closeCamera();
      return this.cameraFailedWith(error);
    }
    if (!this.cameraOpen) return this.stopCamera();
    const video = this.video();
    if (!video) return;
    video.srcObject = this.stream;
    await video.play().catch(() => {});
  }

  private cameraFailedWith(error: unknown): void {
    this.cameraFailed = true;
    emit(this, "picture-problem", { text: cameraProblem(error) });
  }

  private async shoot(): Promise<void> {
    const video = this.video();
    if (!video || !this.ready) return;
    this.busy = true;
    try {
      const picture = await captureFrame(video);
      this.closeCamera();
      this.add([picture]);
    } catch (error) {
      this.closeCamera();
      this.cameraFailedWith(error);
    } finally {
      this.busy = false;
    }
  }

  private closeCamera(): void {
    this.stopCamera();
    this.dialog()?.close();
    this.cameraOpen = false;
  }

  private stopCamera(): void {
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
  }

  private async onFiles(e: Event): Promise<void> {
    const input = e.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = "";
    if (files.length === 0) return;
    emit(this, "picture-problem", { text: "" });
    this.busy = true;
    try {
      this.add(
        await Promise.all(files.slice(0, Math.max(0, this.room)).map((f) => shrinkFile(f, f.name))),
        files.length,
      );
    } finally {
      this.busy = false;
    }
  }

  private add(shrunk: ShrunkPicture[], asked = shrunk.length): void {
    const pictures: Picture[] = shrunk
      .slice(0, Math.max(0, this.room))
      .map((p) => ({ ...p, key: `picture-${Date.now()}-${this.taken++}` }));
    if (asked > pictures.length)
      emit(this, "picture-problem", {
        text: `A message takes up to 4 pictures; ${asked - pictures.length === 1 ? "one was" : `${asked - pictures.length} were`} left out.`,
      });
    if (pictures.length) emit(this, "pictures", { pictures });
  }

  private dialog = () => this.renderRoot.querySelector("dialog");
  private video = () => this.renderRoot.querySelector("video");

  override render() {
    const full = this.room <= 0;
    const camera = html`<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path fill="currentColor" d="M9 3 7.2 5H4a2 2 0 0 0-2 2v11a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2V7a2 2 0 0 0-2-2h-3.2L15 3H9zm3 5a5 5 0 1 1 0 10 5 5 0 0 1 0-10zm0 2a3 3 0 1 0 0 6 3 3 0 0 0 0-6z"/></svg>`;
    return html`
      ${
        this.cameraFailed
          ? html`
        <label class="button pick" title="Take a picture with the camera app">
          ${camera}
          <input type="file" accept="image/*" capture="environment" aria-label="Take a picture with the camera app" ?disabled=${full || this.busy} @change=${this.onFiles}>
        </label>`
          : html`
        <button type="button" class="pick" aria-label="Take a picture" title="Take a picture" ?disabled=${full || this.busy} @click=${() => void this.openCamera()}>${camera}</button>`
      }
      <label class="button pick" title="Choose a picture" aria-disabled=${full || this.busy ? "true" : "false"}>
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path fill="currentColor" d="M19 3H5a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V5a2 2 0 0 0-2-2zm0 16H5v-3.6l3.5-3.4 3 3 5-5 2.5 2.5V19zM8.5 10a2 2 0 1 1 0-4 2 2 0 0 1 0 4z"/></svg>
        <span class="sr-only">Choose a picture</span>
        <input type="file" accept="image/*" multiple ?disabled=${full || this.busy} @change=${this.onFiles}>
      </label>
      ${this.busy ? html`<span class="small muted" role="status">Preparing the picture…</span>` : nothing}
      ${
        this.cameraOpen
          ? html`
        <dialog aria-label="Camera" @close=${() => this.closeCamera()} @cancel=${() => this.closeCamera()}>
          <video autoplay playsinline muted aria-label="Camera preview" @loadeddata=${() => {
            this.ready = true;
          }}></video>
          <div class="controls">
            <button type="button" class="ghost" @click=${() => this.closeCamera()}>Cancel</button>
            <button type="button" class="shutter" aria-label="Shutter: take the picture" ?disabled=${!this.ready || this.busy} @click=${() => void this.shoot()}><span></span></button>
            <span style="width:5rem"></span>
          </div>
        </dialog>`
          : nothing
      }
    `;
  }
}

customElements.define("pantheon-picture-picker", PantheonPicturePicker);

import { css, html, nothing } from "lit";
import type { ChatImage } from "../chat-state";

/** Thumbnails in the conversation and in the composer's tray. */
export const pictureStyles = css`
  .pics { display: flex; flex-wrap: wrap; gap: .35rem; margin-bottom: .35rem; }
  .pics button { padding: 0; min-height: 0; border: 0; border-radius: 10px; overflow: hidden; background: var(--surface-2); }
  .pics img, .tray img { display: block; width: 96px; height: 96px; object-fit: cover; }
  .pics .missing { display: grid; place-items: center; width: 96px; height: 96px; font-size: .75rem; padding: .25rem; text-align: center; border-radius: 10px; background: var(--surface-2); color: var(--muted); white-space: normal; }
  .tray { list-style: none; display: flex; gap: .5rem; margin: 0; padding: .5rem 0 0; flex-wrap: wrap; }
  .tray li { position: relative; }
  .tray .file { display: grid; place-items: center; width: 64px; height: 64px; border-radius: 10px; border: 1px dashed var(--border-strong); font-size: .7rem; overflow: hidden; word-break: break-all; padding: .2rem; text-align: center; }
  .tray img { width: 64px; height: 64px; border-radius: 10px; border: 1px solid var(--border); }
  .tray button { position: absolute; top: -10px; right: -10px; min-height: 0; width: 28px; height: 28px; padding: 0; border-radius: 50%; background: var(--surface); font-size: .8rem; }
  dialog.viewer { border: 0; padding: .5rem; background: var(--surface); border-radius: 14px; max-width: 96vw; max-height: 96vh; }
  dialog.viewer::backdrop { background: rgb(0 0 0 / .75); }
  dialog.viewer img { display: block; max-width: calc(96vw - 1rem); max-height: calc(96vh - 5rem); object-fit: contain; }
`;

/**
 * A message's pictures: the device's own bytes while sending, else the stored picture fetched with
 * the token (`urls` by id: undefined while loading, "" when it could not load). Tapping enlarges.
 */
export function messagePictures(
  images: ChatImage[] | undefined,
  urls: Record<string, string>,
  enlarge: (url: string, label: string) => void,
) {
  if (!images?.length) return nothing;
  return html`<div class="pics">${images.map((img, n) => {
    const url = img.url ?? (img.id ? urls[img.id] : undefined);
    const label = `Picture ${n + 1}${img.width && img.height ? `, ${img.width}×${img.height}` : ""}`;
    if (url === undefined) return html`<span class="missing" role="img" aria-label="${label}, loading">Loading…</span>`;
    if (url === "")
      return html`<span class="missing" role="img" aria-label="${label}, not available">Picture not available</span>`;
    return html`<button type="button" aria-label="Enlarge ${label.toLowerCase()}" @click=${() => enlarge(url, label)}><img src=${url} alt=${label} data-image-id=${img.id ?? ""}></button>`;
  })}</div>`;
}

/**
 * The pictures waiting in the composer, each with a way to take it out again. A file the device
 * could not read as a picture shows its name: the server will say whether it takes it.
 */
export function composerTray(
  pictures: { key: string; url: string; name: string; width?: number }[],
  remove: (key: string) => void,
) {
  if (!pictures.length) return nothing;
  return html`<ul class="tray" aria-label="Pictures to send">${pictures.map(
    (p, n) => html`
    <li>${p.width ? html`<img src=${p.url} alt="Picture ${n + 1} to send">` : html`<span class="file">${p.name}</span>`}<button type="button" aria-label="Remove picture ${n + 1}" @click=${() => remove(p.key)}>✕</button></li>`,
  )}</ul>`;
}

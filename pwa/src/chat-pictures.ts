import type { Api } from "./api";
import type { ChatItem } from "./chat-state";
import { describeError, isApiError } from "./errors";
import type { Store } from "./state";

/** A picture on its way up (from the composer or the outbox): `id` is written on it once the server stored it. */
interface Uploadable {
  blob: Blob;
  type: string;
  name: string;
  id?: string;
}

/**
 * Uploads the pictures that have no id yet, in order, writing each id on its picture, and stops
 * at the first the server refuses. Already-uploaded ones are skipped, so a retry uploads only
 * what is missing. The page and the service worker (outbox) both send pictures this way.
 */
export async function uploadPictures(
  api: Api,
  agent: string,
  pictures: Uploadable[],
): Promise<{ ids: string[]; failed?: { index: number; error: unknown } }> {
  for (const [index, picture] of pictures.entries()) {
    if (picture.id) continue;
    try {
      picture.id = (await api.uploadImage(agent, picture.blob, picture.type)).id;
    } catch (error) {
      return { ids: [], failed: { index, error } };
    }
  }
  return { ids: pictures.map((p) => p.id ?? "") };
}

/** A refused upload in words: the server's own reason for a picture it will not take (413, 415). */
export function describeUploadError(index: number, count: number, name: string, error: unknown): string {
  const which =
    count > 1
      ? `Picture ${index + 1}${name && name !== "camera" ? ` (${name})` : ""}`
      : `The picture${name && name !== "camera" ? ` ${name}` : ""}`;
  const reason =
    isApiError(error) && (error.status === 413 || error.status === 415 || error.status === 400)
      ? error.message
      : describeError(error, "send");
  return `${which} was not sent: ${/[.!?]$/.test(reason) ? reason : `${reason}.`} Your message is back in the box below.`;
}

/**
 * The stored pictures a conversation shows: each fetched once with the token and kept as a blob
 * URL in the chat state (`imageUrls`), released when the chat closes.
 */
export function makePictureViewer(deps: { api: Api; store: Store }) {
  const { api, store } = deps;
  const loading = new Set<string>();

  function known(id: string): boolean {
    return loading.has(id) || id in store.get().chat.imageUrls;
  }

  function keep(id: string, blob: Blob): void {
    const url = URL.createObjectURL(blob);
    store.setChat((c) => ({ ...c, imageUrls: { ...c.imageUrls, [id]: url } }));
  }

  return {
    /** Fetches every stored picture on screen that is not loaded yet. */
    async show(agent: string, items: ChatItem[]): Promise<void> {
      const wanted = items.flatMap((i) =>
        i.kind === "message" ? (i.images ?? []).flatMap((img) => (img.id && !known(img.id) ? [img.id] : [])) : [],
      );
      await Promise.all(
        [...new Set(wanted)].map(async (id) => {
          loading.add(id);
          try {
            const blob = await api.getImage(agent, id);
            if (store.get().chat.agent === agent) keep(id, blob);
          } catch {
            // The message still says a picture was sent; its thumbnail reads "not available".
            store.setChat((c) => (c.agent === agent ? { ...c, imageUrls: { ...c.imageUrls, [id]: "" } } : c));
          } finally {
            loading.delete(id);
          }
        }),
      );
    },
    /** A picture just uploaded from this device: shown from its own bytes, not fetched back. */
    keep(id: string, blob: Blob): void {
      if (!known(id)) keep(id, blob);
    },
    forget(): void {
      for (const url of Object.values(store.get().chat.imageUrls)) if (url) URL.revokeObjectURL(url);
      store.setChat((c) => ({ ...c, imageUrls: {} }));
    },
  };
}

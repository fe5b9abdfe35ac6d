import type { ImageRef, Message } from "../ports";
import { describeImage } from "./limits";

/** One image of a message as an adapter sends it: its ref and its bytes as base64. */
export interface LoadedImage {
  ref: ImageRef;
  base64: string;
}

/**
 * A message's images with their bytes from the request's `imageData`, and a note naming those
 * without bytes (an image deleted from the store): the model is told, nothing is dropped silently.
 * @example
 * const { loaded, note } = imagesOf(message, request.imageData);
 */
export function imagesOf(
  message: Message,
  imageData: Record<string, string> | undefined,
): { loaded: LoadedImage[]; note: string } {
  const loaded: LoadedImage[] = [];
  const missing: ImageRef[] = [];
  for (const ref of message.images ?? []) {
    const base64 = imageData?.[ref.id];
    if (base64) loaded.push({ ref, base64 });
    else missing.push(ref);
  }
  const note = missing.length
    ? `\n[${missing.length === 1 ? "an image" : `${missing.length} images`} sent here could not be loaded: ${missing.map(describeImage).join("; ")}]`
    : "";
  return { loaded, note };
}

/** The text a model that cannot see gets in place of a message's images. */
export function unseenImagesNote(images: readonly ImageRef[], model: string): string {
  return `\n[${images.length === 1 ? "an image was" : `${images.length} images were`} sent with this message (${images.map(describeImage).join("; ")}), but the model '${model}' cannot see images]`;
}

/** The images a model call sends, named for its trace step (never their bytes); nothing when there are none. */
export function imagesShown(messages: readonly Message[]): { images?: ImageRef[] } {
  const images = messages.flatMap((m) => m.images ?? []);
  return images.length
    ? {
        images: images.map(({ id, type, bytes, width, height }) => ({
          id,
          type,
          bytes,
          ...(width ? { width } : {}),
          ...(height ? { height } : {}),
        })),
      }
    : {};
}

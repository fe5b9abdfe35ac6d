import { PantheonError } from "../errors";
import type { ImageRef } from "../ports";
import { imageTypes, sniffImage, type ImageType } from "./sniff";

/** An image's bytes at most: 5 MiB (a phone photo sized down on the device is far below it). */
export const maxImageBytes = 5 * 1024 * 1024;
/** Pixels a side at most: larger is no photo a model is sent (and a decompression bomb's shape). */
export const maxImageSide = 8192;
/** Images one message may carry. */
export const maxImagesPerMessage = 4;
export const allowedImageTypes = Object.keys(imageTypes) as ImageType[];

const allowedText = "image/png, image/jpeg, image/webp or image/gif";

/**
 * Checks bytes as an image by what they are, not what they are called: 413 above 5 MiB, 415 when the
 * magic bytes are not PNG, JPEG, WebP or GIF, 400 for an absurd size. `field` names the input in errors.
 * @example
 * const image = checkImage(bytes, "body"); // { type: "image/png", width: 2, height: 2 }
 */
export function checkImage(bytes: Uint8Array, field: string): { type: ImageType; width?: number; height?: number } {
  if (bytes.length > maxImageBytes) {
    throw new PantheonError(
      "payload_too_large",
      `${field}: the image is ${bytes.length} bytes; at most 5 MiB (${maxImageBytes} bytes) are allowed`,
      { details: { field, limitBytes: maxImageBytes, bytes: bytes.length } },
    );
  }
  if (bytes.length === 0)
    throw new PantheonError("bad_request", `${field}: the image is empty; send the bytes of a ${allowedText}`, {
      details: { field },
    });
  const sniffed = sniffImage(bytes);
  if (!sniffed) {
    throw new PantheonError(
      "unsupported_media_type",
      `${field}: the bytes are not an image Pantheon takes (by their content, whatever the declared type): send ${allowedText}`,
      { details: { field, allowed: allowedImageTypes } },
    );
  }
  const { width, height } = sniffed;
  if (
    width !== undefined &&
    height !== undefined &&
    (width < 1 || height < 1 || width > maxImageSide || height > maxImageSide)
  ) {
    throw new PantheonError(
      "bad_request",
      `${field}: the image is ${width}x${height} pixels; each side must be 1 to ${maxImageSide} pixels`,
      { details: { field, width, height, maxSide: maxImageSide } },
    );
  }
  return sniffed;
}

/** The image's id in its agent's store: its content's SHA-256 and its extension, so a retry stores it once. */
export async function imageIdOf(bytes: Uint8Array, type: ImageType): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return `${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}.${imageTypes[type]}`;
}

/** An image id as {@link imageIdOf} makes them (what routes and message fields accept). */
export const imageIdPattern = /^[0-9a-f]{64}\.(png|jpg|webp|gif)$/;

/** The ref a message carries of checked bytes. */
export async function imageRefOf(bytes: Uint8Array, field: string): Promise<ImageRef> {
  const sniffed = checkImage(bytes, field);
  return {
    id: await imageIdOf(bytes, sniffed.type),
    type: sniffed.type,
    bytes: bytes.length,
    ...(sniffed.width !== undefined ? { width: sniffed.width } : {}),
    ...(sniffed.height !== undefined ? { height: sniffed.height } : {}),
  };
}

/** "image/png 2x2, 68 bytes": how a note or a trace names an image without its bytes. */
export function describeImage(ref: ImageRef): string {
  return `${ref.type}${ref.width && ref.height ? ` ${ref.width}x${ref.height}` : ""}, ${ref.bytes} bytes`;
}

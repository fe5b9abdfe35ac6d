// Bytes coming in as images, from any door: a raw or multipart upload, a data URL, an http(s) URL
// fetched through the outbound guard. Each is read with a cap, checked by its content
// (core/images) and stored in the agent's store, content-addressed.
import { makeR2ImageStore } from "../../adapters/image-r2";
import { PantheonError } from "../../core/errors";
import { imageRefOf, maxImageBytes } from "../../core/images";
import type { ImageOwner, ImageRef, ImageStorePort } from "../../core/ports";
import { makeGuardedFetch, OutboundRefused, outboundSettingsFrom } from "../../core/tools";

export const imageStoreOf = (env: Env): ImageStorePort => makeR2ImageStore(env.IMAGES);

const tooLarge = (field: string) =>
  new PantheonError(
    "payload_too_large",
    `${field}: the image is larger than 5 MiB (${maxImageBytes} bytes); send at most 5 MiB`,
    { details: { field, limitBytes: maxImageBytes } },
  );

/**
 * A body read to its end, refused with 413 as soon as it passes `maxImageBytes` (a Content-Length
 * that says so is refused before a byte is read).
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  field: string,
  declaredLength?: string | null,
  max = maxImageBytes,
): Promise<Uint8Array> {
  if (declaredLength && Number(declaredLength) > max) {
    await body?.cancel().catch(() => undefined);
    throw tooLarge(field);
  }
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(field);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** Checks `bytes` as an image and keeps it in the owner's store; the ref a message carries. */
export async function storeImage(
  store: ImageStorePort,
  owner: ImageOwner,
  bytes: Uint8Array,
  field: string,
): Promise<ImageRef> {
  const ref = await imageRefOf(bytes, field);
  await store.put(owner, ref, bytes);
  return ref;
}

/** The bytes of a `data:<type>;base64,<data>` URL (the declared type is not trusted: the bytes are sniffed). */
export function bytesOfDataUrl(url: string, field: string): Uint8Array {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),/.exec(url.slice(0, 300));
  if (!match || !match[2]!.split(";").includes("base64")) {
    throw new PantheonError("bad_request", `${field}: a data URL must be base64, as 'data:image/png;base64,<bytes>'`, {
      details: { field },
    });
  }
  const data = url.slice(match[0].length);
  if (Math.floor((data.length * 3) / 4) > maxImageBytes + 2) throw tooLarge(field);
  try {
    return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  } catch {
    throw new PantheonError("bad_request", `${field}: the data URL's base64 is not valid`, { details: { field } });
  }
}

/**
 * An http(s) image fetched only through the outbound guard with the agent's `allowHosts` (private,
 * link-local and metadata addresses refused; loopback only with PANTHEON_ALLOW_LOOPBACK_OUTBOUND),
 * its body read with the 5 MiB cap.
 */
export async function bytesOfUrl(
  env: Env,
  allowHosts: readonly string[],
  url: string,
  field: string,
): Promise<Uint8Array> {
  const { allowLoopback } = outboundSettingsFrom(env);
  const guarded = makeGuardedFetch(
    (input, init) => fetch(input, init),
    () => ({ allowHosts, allowLoopback }),
  );
  let response: Response;
  try {
    response = await guarded(url, {
      headers: { accept: "image/png, image/jpeg, image/webp, image/gif" },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    if (error instanceof OutboundRefused) {
      throw new PantheonError(
        "bad_request",
        `${field}: the image URL is ${error.message} (an image URL is fetched like a tool's request: the host must be in the agent's runtime.allowHosts, and no private or loopback address)`,
        { details: { field } },
      );
    }
    throw new PantheonError(
      "bad_request",
      `${field}: the image URL could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
      { details: { field }, cause: error },
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new PantheonError("bad_request", `${field}: the image URL answered ${response.status}`, {
      details: { field, status: response.status },
    });
  }
  return readCapped(response.body, field, response.headers.get("content-length"));
}

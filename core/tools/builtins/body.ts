import { cutUtf8, truncationMarker } from "../truncate";

/**
 * Reads at most `maxBytes` of a response body, then stops reading (the rest never crosses the
 * network into memory) and marks the cut. The total comes from Content-Length when the server sent one.
 */
export async function readBodyWithin(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let more = false;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > maxBytes) {
      more = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  if (!more) return { text: new TextDecoder().decode(all), truncated: false };
  const kept = cutUtf8(all, maxBytes);
  const declared = Number(response.headers.get("content-length"));
  const total = Number.isFinite(declared) && declared > kept.length ? declared : undefined;
  return { text: `${new TextDecoder().decode(kept)}\n${truncationMarker(kept.length, total)}`, truncated: true };
}

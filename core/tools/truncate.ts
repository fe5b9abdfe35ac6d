export interface Truncated {
  text: string;
  truncated: boolean;
  /** UTF-8 bytes of the text before the cut. */
  totalBytes: number;
}

/** `…[truncated: 12345 of 67890 bytes shown]`; an unknown total reads `of more than N bytes`. */
export function truncationMarker(shownBytes: number, totalBytes: number | undefined): string {
  return totalBytes === undefined
    ? `…[truncated: ${shownBytes} of more than ${shownBytes} bytes shown]`
    : `…[truncated: ${shownBytes} of ${totalBytes} bytes shown]`;
}

/** Cuts `bytes` to at most `maxBytes` without splitting a UTF-8 character. */
export function cutUtf8(bytes: Uint8Array, maxBytes: number): Uint8Array {
  if (bytes.length <= maxBytes) return bytes;
  let end = Math.max(0, maxBytes);
  // Continuation bytes look like 10xxxxxx: step back to the start of the character that was split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/**
 * Keeps a tool result within a byte budget and says so explicitly when it cut.
 * @example
 * truncateToBytes("x".repeat(100), 10).text; // "xxxxxxxxxx\n…[truncated: 10 of 100 bytes shown]"
 */
export function truncateToBytes(text: string, maxBytes: number): Truncated {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, truncated: false, totalBytes: bytes.length };
  const kept = cutUtf8(bytes, maxBytes);
  return {
    text: `${new TextDecoder().decode(kept)}\n${truncationMarker(kept.length, bytes.length)}`,
    truncated: true,
    totalBytes: bytes.length,
  };
}

// Real images (encoded by an image library once, kept as base64): a 2x2 PNG, a 16x8 JPEG, a 5x3
// lossy WebP and a 3x4 GIF, every one a solid red.
const b64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

export const png2x2 = b64(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQImWM4ISd3Qk6OAUIBAB8mBBGFRCvEAAAAAElFTkSuQmCC",
);
export const jpeg16x8 = b64(
  "/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAIABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABgf/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCAAHlhf//Z",
);
export const webp5x3 = b64("UklGRjoAAABXRUJQVlA4IC4AAACwAQCdASoFAAMAAUAmJaACdLoABDAAAP7x3I/4DdfFtMv/vYL/3YL/3YL/WwAA");
export const gif3x4 = b64("R0lGODlhAwAEAIAAAExpccgeHiH5BAUAAAAALAAAAAADAAQAAAIDjI9WADs=");

/** A PNG header claiming `width`x`height` (enough for the sniffing; no pixels). */
export function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  return bytes;
}

export const base64Of = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
export const dataUrl = (type: string, bytes: Uint8Array) => `data:${type};base64,${base64Of(bytes)}`;

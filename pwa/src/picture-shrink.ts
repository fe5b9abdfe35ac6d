import { fitWithin, JPEG_QUALITY, LONGEST_SIDE, SMALL_PNG_BYTES, type ShrunkPicture } from "./pictures";

/**
 * Sizes a chosen file down. EXIF orientation is applied while decoding (a portrait photo stays
 * upright once the EXIF is gone). A file the device cannot decode is passed through unchanged:
 * the server sniffs it and answers with the reason it refuses it, which the person then reads.
 */
export async function shrinkFile(file: Blob, name: string): Promise<ShrunkPicture> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return { blob: file, type: file.type || "application/octet-stream", name };
  }
  try {
    if (
      file.type === "image/png" &&
      file.size <= SMALL_PNG_BYTES &&
      Math.max(bitmap.width, bitmap.height) <= LONGEST_SIDE
    ) {
      return { blob: file, type: "image/png", name, width: bitmap.width, height: bitmap.height };
    }
    return { ...(await encodeJpeg(bitmap)), name };
  } finally {
    bitmap.close();
  }
}

/** Grabs the frame a live camera preview shows now, sized down like a chosen file. */
export async function captureFrame(video: HTMLVideoElement): Promise<ShrunkPicture> {
  const bitmap = await createImageBitmap(video);
  try {
    return { ...(await encodeJpeg(bitmap)), name: "camera" };
  } finally {
    bitmap.close();
  }
}

async function encodeJpeg(bitmap: ImageBitmap): Promise<{ blob: Blob; type: string; width: number; height: number }> {
  const { width, height } = fitWithin(bitmap.width, bitmap.height);
  const canvas = new OffscreenCanvas(width, height);
  const g = canvas.getContext("2d");
  if (!g) throw new Error("This browser cannot draw pictures (no 2D canvas)");
  // JPEG has no transparency: a transparent PNG's background becomes white, not black.
  g.fillStyle = "#fff";
  g.fillRect(0, 0, width, height);
  g.imageSmoothingQuality = "high";
  g.drawImage(bitmap, 0, 0, width, height);
  const blob = await canvas.convertToBlob({ type: "image/jpeg", quality: JPEG_QUALITY });
  return { blob, type: "image/jpeg", width, height };
}
